package gate

import (
	"sort"
	"time"
)

// The pump: each time something changes (a create arrives or is
// answered or leaves, a window ends), every create in line is asked, in
// arrival order, whether it may go now. A create may go unless
//
//  1. its own Retry-After wait is not over (turnLocked),
//  2. a refused shape that holds it is closed: its window is open or a
//     create is out finding out whether it fits (heldByShapeLocked), or
//  3. nothing recent is known of creates like it and the first of its
//     burst is out finding out (firstAnswerLocked);
//
// and 2 and 3 hold it only until one round trip before its budget ends.
// When every shape holding it has its window over and nobody out, it goes
// alone to find out (probeLocked).

// pumpLocked lets go every queued create that may go now, in arrival
// order, and sets the timer for the next moment one may.
func (g *Gate) pumpLocked() {
	now := g.now()
	var wake wakeup
	kept := g.queue[:0]
	for _, p := range g.queue {
		why, ok := g.turnLocked(p, now, &wake)
		if !ok {
			kept = append(kept, p)
			continue
		}
		p.queued = false
		p.sentAt = now
		p.release <- why
	}
	clear(g.queue[len(kept):])
	g.queue = kept
	g.forgetLocked(now)
	g.arm(wake.t)
}

// wakeup is the next moment the line must be looked at again.
type wakeup struct{ t time.Time }

func (w *wakeup) at(t time.Time) {
	if w.t.IsZero() || t.Before(w.t) {
		w.t = t
	}
}

// turnLocked says whether p may go now and why; when it may not, it
// notes in wake when that may change.
func (g *Gate) turnLocked(p *Pass, now time.Time, wake *wakeup) (Reason, bool) {
	if now.Before(p.notBefore) {
		wake.at(p.notBefore)
		return "", false
	}
	holding, closed := g.holdingLocked(p.shape, now)
	switch {
	case closed != nil:
		return g.heldByShapeLocked(p, closed, now, wake)
	case len(holding) > 0:
		return g.probeLocked(p, holding), true
	default:
		return g.firstAnswerLocked(p, now, wake)
	}
}

// holdingLocked lists the refused shapes that hold a create of shape s,
// and of those the closed one (its window open, or a create out finding
// out whether it fits) whose window ends last; nil when none is closed.
func (g *Gate) holdingLocked(s Shape, now time.Time) (holding []*closure, closed *closure) {
	for _, c := range g.closuresLocked() {
		if !c.holds(s) {
			continue
		}
		holding = append(holding, c)
		if (now.Before(c.until) || c.probe != nil) && (closed == nil || c.until.After(closed.until)) {
			closed = c
		}
	}
	return holding, closed
}

// heldByShapeLocked holds p behind the closed shape c, until c's window
// ends or one round trip before p's budget does; then it goes (Budget)
// to get its own answer in time.
func (g *Gate) heldByShapeLocked(p *Pass, c *closure, now time.Time, wake *wakeup) (Reason, bool) {
	deadline := p.budgetEnd.Add(-g.rtt())
	if !now.Before(deadline) {
		return Budget, true
	}
	if !p.held || p.heldBy == nil {
		g.holdLocked(p, c, now)
	}
	if now.Before(c.until) {
		wake.at(c.until)
	}
	wake.at(deadline)
	return "", false
}

// probeLocked: every shape holding p has its window over and nobody out
// finding out, so p goes, alone, to find out: First after a refusal's
// window, Next after a create of the shape went through.
func (g *Gate) probeLocked(p *Pass, holding []*closure) Reason {
	why := Next
	for _, c := range holding {
		c.probe = p
		if !c.opened {
			why = First
		}
	}
	p.probing = holding
	return why
}

// firstAnswerLocked: no refused shape holds p. If nothing recent was
// heard of creates restricted as p is, the first goes alone and the
// others wait for its answer, within scoutBound and their budgets.
func (g *Gate) firstAnswerLocked(p *Pass, now time.Time, wake *wakeup) (Reason, bool) {
	where := p.shape.where
	if at, ok := g.heard[where]; ok && now.Sub(at) < knownFor {
		if p.held && p.heldBy == nil {
			return Answered, true
		}
		return Free, true
	}
	first := g.first[where]
	switch first {
	case nil:
		// It goes to find out (if it was held: the one ahead of it left
		// unanswered).
		g.first[where] = p
		return Free, true
	case p:
		// Its own replay, when nothing holds its shape.
		return Free, true
	}
	bound := first.sentAt.Add(g.scoutBound())
	deadline := p.budgetEnd.Add(-g.rtt())
	switch {
	case !now.Before(deadline):
		return Budget, true
	case !now.Before(bound):
		return Bound, true
	}
	if !p.held {
		g.holdLocked(p, nil, now)
	}
	wake.at(bound)
	wake.at(deadline)
	return "", false
}

// holdLocked marks p held, by the shape c or (c nil) for the first answer
// of its burst, and tells its onHold.
func (g *Gate) holdLocked(p *Pass, c *closure, now time.Time) {
	h := Hold{Again: p.held}
	if !p.held {
		p.heldSince = now
	}
	p.held, p.heldBy = true, c
	if c == nil {
		h.FirstAnswer, h.Bound = true, g.scoutBound()
	} else {
		h.Stage, h.Why = c.stage, c.why(p.shape)
		h.Asks, h.RefusedAsking = p.shape.ask(c.res), c.amount
		h.Window = c.until.Sub(now)
	}
	if p.onHold != nil {
		p.onHold(h)
	}
}

// forgetLocked drops what no longer matters: a shape nobody has asked
// for since long after its window (so that a client naming ever new
// nodes cannot grow the gate without bound), and answers older than
// knownFor.
func (g *Gate) forgetLocked(now time.Time) {
	for k, c := range g.closures {
		if c.probe == nil && now.Sub(c.until) > forgetAfter && !g.anyQueuedLocked(c) {
			delete(g.closures, k)
		}
	}
	for where, at := range g.heard {
		if now.Sub(at) >= knownFor {
			delete(g.heard, where)
		}
	}
}

// closuresLocked lists the closures in a fixed order.
func (g *Gate) closuresLocked() []*closure {
	out := make([]*closure, 0, len(g.closures))
	for _, c := range g.closures {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].stage != out[j].stage {
			return out[i].stage < out[j].stage
		}
		return out[i].where < out[j].where
	})
	return out
}

// arm sets the timer that pumps again at at (zero: none).
func (g *Gate) arm(at time.Time) {
	if at.IsZero() {
		if g.timer != nil {
			g.timer.Stop()
		}
		g.wake = time.Time{}
		return
	}
	if g.timer != nil && g.wake.Equal(at) {
		return
	}
	g.wake = at
	d := at.Sub(g.now())
	if g.timer == nil {
		g.timer = time.AfterFunc(d, g.tick)
		return
	}
	g.timer.Stop()
	g.timer.Reset(d)
}

func (g *Gate) tick() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wake = time.Time{}
	g.pumpLocked()
}
