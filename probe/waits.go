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
//
// It keeps nothing per request: a tracker that did paid a lock, two map
// lookups and appends on every request, every worker on one lock with
// --actors 1.
// The requests in flight are the recorder shards' own lists, which every
// request joins and leaves under its shard's lock anyway, in the order
// sent (shard.flying); only a refusal reads them, and only refusals take
// the tracker's lock.
type waitTracker struct {
	shards []*shard

	mu sync.Mutex
	// groups are the actors' last groups of refusals.
	groups map[int]refusalGroup
	// sweepAt is the size of groups at which stale groups are dropped.
	sweepAt int
}

// refusalGroup is an actor's last group of refusals: when its first was
// read, and when its flight started.
type refusalGroup struct{ at, start time.Duration }

// sameMoment is how far apart two refusals of one actor may be read and
// still be one flight's end.
const sameMoment = 50 * time.Millisecond

func newWaitTracker(shards []*shard) *waitTracker {
	return &waitTracker{shards: shards, groups: map[int]refusalGroup{}, sweepAt: 64}
}

// refused says how long the flight of r, a capacity refusal read at
// doneAt and not yet recorded, waited; bound is the wait from which a
// refusal counts as after the budget (AtOnceBound). Only which side of
// bound the wait falls on decides anything (Judge), so the search for an
// older request stops where it can no longer change that side, for r or
// for a refusal of its group read after it: a search bounded so reads
// only requests that have waited about bound or more.
func (t *waitTracker) refused(r *sentRequest, doneAt, bound time.Duration) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Within a group the oldest request still waiting is never older than
	// the group's start: every request waiting now and sent before the
	// group's first refusal was waiting then too.
	if g, ok := t.groups[r.idx]; ok && doneAt-g.at <= sameMoment {
		return doneAt - min(g.start, r.sentAt)
	}
	// A new group: its start is the oldest request to the actor still
	// waiting, r's own send or earlier. When r itself waited bound or
	// more, r's send stands for it: an earlier start would change no
	// verdict of the group. Otherwise the search needs only requests sent
	// before both r and (doneAt - bound + sameMoment): if none is waiting,
	// the start is later than that, and r's send again decides every
	// verdict of the group as the true start would.
	start := r.sentAt
	if doneAt-r.sentAt < bound {
		start = t.oldestWaiting(r.idx, min(r.sentAt, doneAt-bound+sameMoment), r.sentAt)
	}
	t.groups[r.idx] = refusalGroup{at: doneAt, start: start}
	if len(t.groups) >= t.sweepAt {
		for a, g := range t.groups {
			if doneAt-g.at > time.Second {
				delete(t.groups, a)
			}
		}
		t.sweepAt = max(64, 2*len(t.groups))
	}
	return doneAt - start
}

// oldestWaiting is the send time of the oldest request to actor still in
// flight that was sent at limit or before, else none.
func (t *waitTracker) oldestWaiting(actor int, limit, none time.Duration) time.Duration {
	oldest := none
	for _, s := range t.shards {
		s.mu.Lock()
		for q := s.oldest; q != nil && q.sentAt <= limit && q.sentAt < oldest; q = q.prev {
			if q.idx == actor {
				oldest = q.sentAt
				break
			}
		}
		s.mu.Unlock()
	}
	return oldest
}
