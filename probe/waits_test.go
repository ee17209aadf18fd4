package probe

import (
	"math/rand/v2"
	"testing"
	"time"
)

// refWaits is the flight tracking issue 44 replaced, kept as the rule the
// tracker must keep: every request to an actor is noted when sent and when
// answered, and a refusal's flight starts at the oldest request to its
// actor not yet answered, or at its group's start.
type refWaits struct {
	actors map[int]*refActor
}

type refActor struct {
	sent                []time.Duration
	done                []bool
	base                uint64
	open                int
	groupAt, groupStart time.Duration
	grouped             bool
}

func (t *refWaits) sent(actor int, at time.Duration) uint64 {
	a := t.actors[actor]
	if a == nil {
		a = &refActor{}
		t.actors[actor] = a
	}
	a.sent = append(a.sent, at)
	a.done = append(a.done, false)
	a.open++
	return a.base + uint64(len(a.sent)-1)
}

func (t *refWaits) answered(actor int, ticket uint64, doneAt time.Duration, refusal bool) time.Duration {
	a := t.actors[actor]
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
		delete(t.actors, actor)
	}
	return waited
}

// TestRefusalVerdictsMatchTheFlightRule: the tracker that keeps nothing
// per request (issue 44) judges every capacity refusal as the per-request
// tracking did, budget_exhausted or at once, over random runs of sends,
// answers and refusals to a few actors on a few recorder shards: late
// joiners refused with their flight, groups of refusals read at the same
// moment, refusals of a router that refuses at once, and requests to other
// actors older than the refusal.
func TestRefusalVerdictsMatchTheFlightRule(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 44))
		bound := []time.Duration{0, 30 * time.Millisecond, 200 * time.Millisecond, time.Second}[rng.IntN(4)]
		rec := newRecorder(1+rng.IntN(3), false, 0, seed)
		tracker := newWaitTracker(rec.shards)
		ref := &refWaits{actors: map[int]*refActor{}}
		type flying struct {
			r      *sentRequest
			ticket uint64
		}
		var inFlight []flying
		now := time.Duration(0)
		actors := 1 + rng.IntN(4)
		for step := range 300 {
			// Steps of 0 to 60 ms: refusals fall within and beyond
			// sameMoment of each other, waits either side of bound.
			now += time.Duration(rng.IntN(61)) * time.Millisecond
			if len(inFlight) == 0 || rng.IntN(2) == 0 {
				r := &sentRequest{shard: uint64(rng.IntN(len(rec.shards))), idx: rng.IntN(actors), sentAt: now}
				s := rec.shards[r.shard]
				s.mu.Lock()
				s.link(r)
				s.mu.Unlock()
				inFlight = append(inFlight, flying{r, ref.sent(r.idx, now)})
				continue
			}
			i := rng.IntN(len(inFlight))
			f := inFlight[i]
			inFlight = append(inFlight[:i], inFlight[i+1:]...)
			refusal := rng.IntN(3) > 0
			want := ref.answered(f.r.idx, f.ticket, now, refusal)
			if refusal {
				got := tracker.refused(f.r, now, bound)
				if (got >= bound) != (want >= bound) {
					t.Fatalf("seed %d step %d: refusal to actor %d sent at %v, read at %v: waited %v, the rule says %v (bound %v)",
						seed, step, f.r.idx, f.r.sentAt, now, got, want, bound)
				}
			}
			s := rec.shards[f.r.shard]
			s.mu.Lock()
			s.unlink(f.r)
			s.mu.Unlock()
		}
	}
}

// TestLateJoinerRefusedWithItsFlight: requests to one actor parked from
// 0 s and from 3 s, refused together at 5 s with a 4 s budget: both waited
// out the budget (the joiner's flight started at 0 s), while a refusal
// to another actor at 5 s whose only request was sent at 4.9 s came at
// once, however old the first actor's requests.
func TestLateJoinerRefusedWithItsFlight(t *testing.T) {
	rec := newRecorder(2, false, 0, 1)
	tracker := newWaitTracker(rec.shards)
	send := func(shard uint64, actor int, at time.Duration) *sentRequest {
		r := &sentRequest{shard: shard, idx: actor, sentAt: at}
		rec.shards[shard].link(r)
		return r
	}
	first, joiner := send(0, 1, 0), send(1, 1, 3*time.Second)
	other := send(0, 2, 4900*time.Millisecond)
	bound := AtOnceBound(4 * time.Second)
	// The joiner's answer is read first, then the first request's.
	if w := tracker.refused(joiner, 5*time.Second, bound); w < bound {
		t.Errorf("late joiner: waited %v, want its flight's 5s", w)
	}
	rec.shards[1].unlink(joiner)
	if w := tracker.refused(first, 5*time.Second+time.Millisecond, bound); w < bound {
		t.Errorf("first request: waited %v", w)
	}
	rec.shards[0].unlink(first)
	if w := tracker.refused(other, 5*time.Second, bound); w >= bound {
		t.Errorf("refusal at once to another actor: waited %v, want under %v", w, bound)
	}
}
