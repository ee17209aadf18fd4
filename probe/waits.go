package probe

import (
	"sync"
	"time"
)

// waitTracker says how long a capacity refusal's resume flight waited, so
// the refusal can be judged against the park budget (Reading.Judge).
//
// A parking router resumes an actor once for every request that waits on
// it (singleflight): the flight starts with its first request, and when
// the budget runs out every waiting request is refused at the same moment,
// a late joiner after far less than the budget itself. So a refusal's wait
// is measured from the oldest request to its actor still waiting when the
// refusal came, or, when that request's answer was read first, from the
// start of the group of refusals the actor got at the same moment. A
// router that refuses at once never has an old request waiting, however
// many requests to one actor overlap.
type waitTracker struct {
	stripes [waitStripes]waitStripe
}

const waitStripes = 64

// sameMoment is how far apart two refusals of one actor may be read and
// still be one flight's end.
const sameMoment = 50 * time.Millisecond

type waitStripe struct {
	mu     sync.Mutex
	actors map[int]*actorWaits
}

// actorWaits is one actor's requests in flight, in the order they were
// sent, and its last group of refusals.
type actorWaits struct {
	// sent holds the send times of requests from sequence base on; done
	// marks those answered. The front is popped once answered.
	sent []time.Duration
	done []bool
	base uint64
	open int
	// groupAt is when the last group of refusals was read and groupStart
	// when its flight started.
	groupAt, groupStart time.Duration
	grouped             bool
}

func newWaitTracker() *waitTracker {
	t := &waitTracker{}
	for i := range t.stripes {
		t.stripes[i].actors = map[int]*actorWaits{}
	}
	return t
}

func (t *waitTracker) stripe(actor int) *waitStripe {
	return &t.stripes[uint(actor)%waitStripes]
}

// sent notes a request to actor sent at at, and returns its ticket.
func (t *waitTracker) sent(actor int, at time.Duration) uint64 {
	if t == nil {
		return 0
	}
	s := t.stripe(actor)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.actors[actor]
	if a == nil {
		a = &actorWaits{}
		s.actors[actor] = a
	}
	a.sent = append(a.sent, at)
	a.done = append(a.done, false)
	a.open++
	return a.base + uint64(len(a.sent)-1)
}

// answered notes that ticket's request was answered at doneAt. For a
// capacity refusal it returns how long the refusal's flight waited (sentAt
// is when the request itself was sent: a tracker that is nil measures from
// it).
func (t *waitTracker) answered(actor int, ticket uint64, sentAt, doneAt time.Duration, refusal bool) time.Duration {
	if t == nil {
		return doneAt - sentAt
	}
	s := t.stripe(actor)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.actors[actor]
	if a == nil || ticket < a.base || ticket-a.base >= uint64(len(a.sent)) {
		return doneAt - sentAt
	}
	var waited time.Duration
	if refusal {
		start := doneAt
		for i, at := range a.sent {
			if !a.done[i] {
				start = min(start, at)
				break
			}
		}
		if a.grouped && doneAt-a.groupAt <= sameMoment {
			start = min(start, a.groupStart)
		} else {
			a.groupAt, a.grouped = doneAt, true
		}
		a.groupStart = start
		waited = doneAt - start
	}
	a.done[ticket-a.base] = true
	a.open--
	n := 0
	for n < len(a.done) && a.done[n] {
		n++
	}
	a.sent, a.done, a.base = a.sent[n:], a.done[n:], a.base+uint64(n)
	if a.open == 0 && (!a.grouped || doneAt-a.groupAt > sameMoment) {
		delete(s.actors, actor)
	}
	return waited
}
