// Package gate is the proxy's capacity gate. One transient refusal already
// says that a create asking as much of the refused resource will be refused
// again until the cluster frees some: the gate remembers the refused shape
// for the refusal's Retry-After and holds back, in arrival order, the
// creates that ask at least as much, instead of letting every waiting
// client replay on its own clock. When the window ends one held create goes
// first; if it is not refused there again, the next goes at once; if it is,
// the window opens again for the new Retry-After. A held create is sent,
// at the latest one round trip before its budget ends, and gets the
// server's answer to its own request: the gate answers nothing itself,
// and only a proxy that stops (Stopped) answers a create it never sent.
//
// A burst learns from its first answer. A refusal can only close the gate
// once it is back, and 40 creates sent in one instant are all on their way
// before it is: the whole first wave would be refused. So while the gate
// has heard nothing recent about creates restricted as one is (no answer
// other than a gated refusal within knownFor), the first such create goes
// alone and the ones that arrive while it is out wait for its answer (they
// are "held" for the first answer): a success or any other answer lets them
// all go at once, so a healthy cluster is never served one at a time; a
// transient refusal closes the gate and they stay held under its rules.
// The wait is bounded by scoutBound, so a create that is slow to answer
// (being placed, not refused) does not hold up the others for long.
//
// The gate sits inside the proxy's one retry loop, and each create passes
// it with a Pass: Admit before every send, Report with every answer, Leave
// when the create has its answer or its client has gone. The loop keeps
// its own rules (the attempt cap, the budget, its own Retry-After wait):
// the gate only says when a send may go.
package gate

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/retry"
)

// Reason says why the gate let a create go (Admit), or why the create
// stopped waiting without being let go (Stopped, Gone).
type Reason string

const (
	Free   Reason = "free"   // nothing holds it
	First  Reason = "first"  // the window ended and it goes first
	Next   Reason = "next"   // the create ahead of it was not refused there
	Budget Reason = "budget" // its budget ends within one round trip
	// Held for the first answer of a burst (see scoutBound):
	Answered Reason = "answered" // the create ahead of it was answered, not refused
	Bound    Reason = "bound"    // the create ahead of it has been out longer than scoutBound
	// Not let go: the caller stops waiting.
	Stopped Reason = "stopped" // the stop channel closed: the proxy is shutting down
	Gone    Reason = "gone"    // the context ended: the client went away
)

// Release is Admit's answer.
type Release struct {
	Reason Reason
	// Held says the gate held the create before this Reason (a line said
	// so when it started: see Hold), and HeldFor for how long.
	Held    bool
	HeldFor time.Duration
}

// Hold is what the gate says when it starts holding a create back, for
// the line that tells the user why.
type Hold struct {
	// FirstAnswer: held for the answer to the first create of its burst,
	// at the latest for Bound. Otherwise held by a refused shape: the rest.
	FirstAnswer bool
	Bound       time.Duration
	// Stage is the refusal's stage; Why says what it holds, e.g. "a create
	// asking 2 vCPUs was refused at stage sufficient_idle_cpu and this one
	// asks 2"; Asks and RefusedAsking are those two amounts.
	Stage               string
	Why                 string
	Asks, RefusedAsking float64
	// Window is the time left until the refused shape's window ends; when
	// it is not positive, the window has ended and the create ahead of it
	// is out finding out whether the shape fits now.
	Window time.Duration
	// Again: it was held for its burst's first answer, which was a refusal
	// that now holds it: one send held back, not two.
	Again bool
}

// Answer is what became of a send the gate let go.
type Answer struct {
	// SentAt and At are when the create was sent and answered, on the
	// gate's clock.
	SentAt, At time.Time
	// Status is the answer's HTTP status; 0 when there was none (a
	// transport error).
	Status int
	// Transient and Stage are the answer as retry.ClassifyRefusal reads
	// it; RetryAfter is the wait a transient refusal asks for, clamped.
	Transient  bool
	Stage      string
	RetryAfter time.Duration
	// Retry is when the create will be sent again, after its own wait;
	// zero when its call ends with this answer. Until then it keeps its
	// place in the gate's line.
	Retry time.Time
}

// closure is one refused shape: creates restricted as where was (or any
// create, when where is "") that ask at least amount of the stage's
// resource are held until until; then one goes at a time.
type closure struct {
	stage  string
	res    resource
	where  string
	amount float64
	until  time.Time
	probe  *Pass // the create sent to find out whether the shape fits now
	// opened: since its last refusal, a create it holds went through, so
	// the next goes at once rather than "first after the window".
	opened bool
}

func (c *closure) holds(s Shape) bool {
	return (c.where == "" || c.where == s.where) && s.ask(c.res) >= c.amount
}

// why says what a closure holds, for the line.
func (c *closure) why(s Shape) string {
	if c.res == resAny {
		return fmt.Sprintf("a create was refused at stage %s", c.stage)
	}
	return fmt.Sprintf("a create asking %s %s was refused at stage %s and this one asks %s",
		fmtAmount(c.amount), c.res.unit(), c.stage, fmtAmount(s.ask(c.res)))
}

func fmtAmount(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

type closureKey struct{ stage, where string }

// forgetAfter is how long after its window a refused shape that no create
// has tested is kept.
const forgetAfter = 10 * time.Minute

// knownFor is how long an answer to a create that was not a refusal
// counts as knowing the cluster takes creates: the contract's Retry-After,
// which the server chose as the horizon over which its capacity changes
// (it clears the metrics lag of a teardown about three times). A burst
// within it goes at once; after it, its first create goes alone.
const knownFor = 15 * time.Second

// Bounds of scoutBound: not below the policy's shortest wait between two
// sends of one request (retry.MinWait), so what a burst may be held for
// is never less than what one replay waits anyway, which also keeps a
// busy machine's scheduling jitter from letting a burst out early; and
// not above 6 s (a tenth of the proxy's default budget), so a server that
// answers very slowly costs a burst at most that.
const (
	minScoutBound = retry.MinWait
	maxScoutBound = 6 * time.Second
)

// Pass is one create inside the gate, from its arrival at the proxy to
// its answer. It keeps its place (seq) across its own replays. A nil Pass
// (the gate off, or a request it does not hold) admits every send at once.
type Pass struct {
	g         *Gate
	onHold    func(Hold)
	seq       uint64
	shape     Shape
	budgetEnd time.Time
	notBefore time.Time // the end of its own Retry-After wait, when it is replaying
	queued    bool
	held      bool      // the gate has held it past notBefore
	heldSince time.Time // when the gate started holding it
	heldBy    *closure  // the closure named in its Hold; nil when held for a first answer
	sentAt    time.Time // when the gate last let it go
	release   chan Reason
	probing   []*closure
}

// Gate is the capacity gate; a nil *Gate is the gate off.
type Gate struct {
	now func() time.Time

	mu       sync.Mutex
	closures map[closureKey]*closure
	queue    []*Pass // in arrival order
	seq      uint64
	rtts     [16]time.Duration
	nrtt     int
	// The round trips of the last 16 transient refusals, for scoutBound.
	refusalRTTs [16]time.Duration
	nrefusal    int
	// heard: when a create restricted as the key says (Shape.where) last
	// got an answer that was not a gated refusal; first: the create that
	// went alone to find out, while nothing recent was heard.
	heard map[string]time.Time
	first map[string]*Pass
	timer *time.Timer
	wake  time.Time
}

// New is a gate on the clock now (the proxy's): every moment it keeps, a
// window's end, a budget's, an answer's, is read from it; it sleeps on
// the time package's timers, for the durations between those moments.
func New(now func() time.Time) *Gate {
	return &Gate{now: now, closures: map[closureKey]*closure{}, heard: map[string]time.Time{}, first: map[string]*Pass{}}
}

// Enter registers a create of shape s as it arrives, with the budget its
// call has to wait in; onHold is called, with the gate locked, each time
// the gate starts holding it. On a nil Gate it returns a nil Pass.
func (g *Gate) Enter(s Shape, budget time.Duration, onHold func(Hold)) *Pass {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	return &Pass{g: g, onHold: onHold, seq: g.seq, shape: s, budgetEnd: g.now().Add(budget), release: make(chan Reason, 1)}
}

// Admit waits until the gate lets the create's next send go, and says
// why; or until ctx ends (Gone) or stop closes (Stopped), and then the
// create must not be sent. On a nil Pass it returns Free at once.
func (p *Pass) Admit(ctx context.Context, stop <-chan struct{}) Release {
	if p == nil {
		return Release{Reason: Free}
	}
	g := p.g
	g.mu.Lock()
	select {
	case why := <-p.release:
		// Let go while it waited out its own Retry-After.
		defer g.mu.Unlock()
		return g.releasedLocked(p, why)
	default:
	}
	if !p.queued {
		g.enqueueLocked(p, time.Time{})
	}
	g.pumpLocked()
	g.mu.Unlock()
	select {
	case why := <-p.release:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.releasedLocked(p, why)
	case <-ctx.Done():
	case <-stop:
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	why := Stopped
	select {
	case why = <-p.release:
		// Let go at the same moment: it has been given its turn; Leave
		// hands the turn on.
	default:
		g.unqueueLocked(p)
		g.pumpLocked()
		if ctx.Err() != nil {
			why = Gone
		}
	}
	return g.releasedLocked(p, why)
}

// releasedLocked is the Release of a create that stops waiting for why.
func (g *Gate) releasedLocked(p *Pass, why Reason) Release {
	r := Release{Reason: why, Held: p.held}
	if p.held {
		r.HeldFor = g.now().Sub(p.heldSince)
		p.held = false
	}
	return r
}

// Report records the answer to a send Admit let go: a transient refusal at
// a gated stage closes (or keeps closed) its shape for a.RetryAfter; a
// success ends the window of every shape the create fits in, so the next
// held create goes at once; any other answer only hands the turn on. With
// a.Retry set the create takes its place in line again, due then.
func (p *Pass) Report(a Answer) {
	if p == nil {
		return
	}
	g := p.g
	g.mu.Lock()
	defer g.mu.Unlock()
	g.recordRoundTripLocked(p, a)
	g.endProbesLocked(p)
	res, gated := stageResource[a.Stage]
	switch {
	case a.Transient && gated:
		g.closeLocked(p, a.Stage, res, a.At.Add(a.RetryAfter))
	case !a.Transient && a.Status >= 200 && a.Status < 300:
		g.openLocked(p.shape, a.At)
	}
	if !a.Retry.IsZero() {
		g.enqueueLocked(p, a.Retry)
	}
	g.pumpLocked()
}

// Leave takes the create out of the gate for good (its client has its
// answer or has gone); a turn it held passes on.
func (p *Pass) Leave() {
	if p == nil {
		return
	}
	g := p.g
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unqueueLocked(p)
	g.endProbesLocked(p)
	if g.first[p.shape.where] == p {
		// It left unanswered (its client went away): the next in line
		// goes to find out.
		delete(g.first, p.shape.where)
	}
	g.pumpLocked()
}

// recordRoundTripLocked keeps the answer's round trip for rtt and
// scoutBound, and what it says of creates restricted as p is: a gated
// refusal says nothing is known of whether they fit; anything else, an
// error included, is what the creates held for this answer would get
// without the gate, so they go.
func (g *Gate) recordRoundTripLocked(p *Pass, a Answer) {
	rtt := a.At.Sub(a.SentAt)
	g.rtts[g.nrtt%len(g.rtts)] = rtt
	g.nrtt++
	where := p.shape.where
	if g.first[where] == p {
		delete(g.first, where)
	}
	if _, gated := stageResource[a.Stage]; a.Transient && gated {
		g.refusalRTTs[g.nrefusal%len(g.refusalRTTs)] = rtt
		g.nrefusal++
		delete(g.heard, where)
		return
	}
	g.heard[where] = a.At
}

// endProbesLocked: p is no longer out finding out for the shapes it
// probed.
func (g *Gate) endProbesLocked(p *Pass) {
	for _, c := range p.probing {
		if c.probe == p {
			c.probe = nil
		}
	}
	p.probing = nil
}

// closeLocked closes p's shape at stage until until (or keeps it closed
// that long): creates restricted as p is and asking at least as much of
// the stage's resource are held.
func (g *Gate) closeLocked(p *Pass, stage string, res resource, until time.Time) {
	key := closureKey{stage, p.shape.where}
	c := g.closures[key]
	if c == nil {
		c = &closure{stage: stage, res: res, where: p.shape.where, amount: p.shape.ask(res)}
		g.closures[key] = c
	}
	c.amount = min(c.amount, p.shape.ask(res))
	if until.After(c.until) {
		c.until = until
	}
	c.opened = false
}

// openLocked: a create of shape s went through at at. One at a time
// still: the next create each shape s fits in holds goes now, and a shape
// is forgotten once a create it holds went through with none waiting
// behind.
func (g *Gate) openLocked(s Shape, at time.Time) {
	for k, c := range g.closures {
		if !c.holds(s) {
			continue
		}
		if c.until.After(at) {
			c.until = at
		}
		c.opened = true
		if c.probe == nil && !g.anyQueuedLocked(c) {
			delete(g.closures, k)
		}
	}
}

func (g *Gate) anyQueuedLocked(c *closure) bool {
	for _, p := range g.queue {
		if c.holds(p.shape) {
			return true
		}
	}
	return false
}

// enqueueLocked puts p in line, in arrival order, due at notBefore.
func (g *Gate) enqueueLocked(p *Pass, notBefore time.Time) {
	p.notBefore = notBefore
	p.queued = true
	i := sort.Search(len(g.queue), func(i int) bool { return g.queue[i].seq > p.seq })
	g.queue = append(g.queue, nil)
	copy(g.queue[i+1:], g.queue[i:])
	g.queue[i] = p
}

func (g *Gate) unqueueLocked(p *Pass) {
	if !p.queued {
		return
	}
	p.queued = false
	for i, q := range g.queue {
		if q == p {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
}

// rtt is the slowest of the last 16 create round trips: a held create goes
// this long before its budget ends, so its answer comes back in time.
func (g *Gate) rtt() time.Duration {
	var m time.Duration
	for i := 0; i < min(g.nrtt, len(g.rtts)); i++ {
		m = max(m, g.rtts[i])
	}
	return m
}

// scoutBound is how long the creates of a burst wait for the first one's
// answer: twice the slowest of the last 16 transient refusals' round
// trips, or before any refusal, of the last 16 creates' (any answer). A
// refusal is what the wait is for, and the scheduler refuses at a known
// point of the create: a first create out for longer than refusals have
// been taking (with room for a busy moment) is most likely being placed,
// so the others go rather than queue behind a slow success. Clamped to
// [minScoutBound, maxScoutBound]; before any answer it is minScoutBound.
func (g *Gate) scoutBound() time.Duration {
	var slowest time.Duration
	if g.nrefusal > 0 {
		for i := 0; i < min(g.nrefusal, len(g.refusalRTTs)); i++ {
			slowest = max(slowest, g.refusalRTTs[i])
		}
	} else {
		slowest = g.rtt()
	}
	return min(max(2*slowest, minScoutBound), maxScoutBound)
}
