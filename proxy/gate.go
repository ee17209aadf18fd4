package proxy

// The capacity gate (issue 36). One transient refusal already says that a
// create asking as much of the refused resource will be refused again until
// the cluster frees some: the gate remembers the refused shape for the
// refusal's Retry-After and holds back, in arrival order, the creates that
// ask at least as much, instead of letting every waiting client replay on
// its own clock. When the window ends one held create goes first; if it is
// not refused there again, the next goes at once; if it is, the window
// opens again for the new Retry-After. A held create is never answered by
// the gate with anything but the server's answer to its own request: it
// is sent, at the latest one round trip before its budget ends, and only a
// shutdown answers a never-sent create itself (a 503 saying so).
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

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/retry"
)

// stageResource is what each transient stage measures, and so which part
// of a create's shape a refusal there is about (shakenfist
// capacity_refusals.md at 0c24a714, "Which refusals are transient").
// queue_state and capacity_guard say nothing about one resource: they hold
// every create. A transient stage not listed here (a newer server's) is
// not gated: such creates replay as they do without the gate.
var stageResource = map[string]resource{
	"sufficient_idle_cpu":    resCPUs,
	"sufficient_idle_memory": resMemory,
	"sufficient_free_disk":   resDisk,
	"sufficient_idle_disk":   resDisk,
	"queue_state":            resAny,
	"capacity_guard":         resAny,
}

type resource int

const (
	resAny resource = iota
	resCPUs
	resMemory
	resDisk
)

func (r resource) unit() string {
	switch r {
	case resCPUs:
		return "vCPUs"
	case resMemory:
		return "MiB of memory"
	case resDisk:
		return "GiB of disk"
	}
	return ""
}

// shape is what a create asks of the cluster, read from the body the
// client sent: "cpus", "memory" (MiB) and the sum of the "disk" sizes
// (GiB), as the server's scheduler reads them, and the candidate nodes it
// restricts itself to ("placed_on", hard affinity). A refusal of a create
// restricted to some nodes says nothing of one that may go anywhere.
type shape struct {
	cpus, memory, disk float64
	where              string // "" for any node; else placed_on and the hard affinity
}

func (s shape) ask(r resource) float64 {
	switch r {
	case resCPUs:
		return s.cpus
	case resMemory:
		return s.memory
	case resDisk:
		return s.disk
	}
	return 0
}

// createShape reads a create's shape from its body. ok is false for a body
// that is not a create the scheduler could weigh (not a JSON object, cpus
// or memory not numbers): such a request is never held, and the server
// answers it as it would have.
func createShape(body []byte) (shape, bool) {
	var b struct {
		CPUs     json.RawMessage   `json:"cpus"`
		Memory   json.RawMessage   `json:"memory"`
		Disk     []json.RawMessage `json:"disk"`
		PlacedOn json.RawMessage   `json:"placed_on"`
		Metadata struct {
			Affinity json.RawMessage `json:"affinity"`
		} `json:"metadata"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&b); err != nil {
		return shape{}, false
	}
	var s shape
	var ok bool
	if s.cpus, ok = jsonNumber(b.CPUs, false); !ok {
		return shape{}, false
	}
	if s.memory, ok = jsonNumber(b.Memory, false); !ok {
		return shape{}, false
	}
	for _, raw := range b.Disk {
		var d struct {
			Size json.RawMessage `json:"size"`
		}
		if json.Unmarshal(raw, &d) != nil {
			return shape{}, false
		}
		if len(d.Size) == 0 || string(d.Size) == "null" {
			continue // a disk of the base image's size: nothing the body says
		}
		n, ok := jsonNumber(d.Size, true) // the server takes int("8") too
		if !ok {
			return shape{}, false
		}
		s.disk += n
	}
	var where []string
	if p := canonical(b.PlacedOn); p != "" && p != "null" {
		where = append(where, "placed_on="+p)
	}
	if a := canonical(b.Metadata.Affinity); a != "" && a != "null" && hasHardAffinity(b.Metadata.Affinity) {
		where = append(where, "affinity="+a)
	}
	s.where = strings.Join(where, " ")
	return s, true
}

// canonical is raw JSON re-encoded (object keys sorted, no spaces), so
// two clients spelling one placement differently restrict alike.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(bytes.TrimSpace(raw))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// hasHardAffinity reports whether an affinity object restricts the
// candidate nodes (require_with_tag, require_without_tag); soft weights
// only rank them.
func hasHardAffinity(raw []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return true // not understood: assume it restricts, which holds less
	}
	_, with := m["require_with_tag"]
	_, without := m["require_without_tag"]
	return with || without
}

func jsonNumber(raw json.RawMessage, allowString bool) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return 0, false
	}
	var f float64
	var err error
	switch v := v.(type) {
	case json.Number:
		f, err = v.Float64()
	case string:
		if !allowString {
			return 0, false
		}
		f, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
	default:
		return 0, false
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
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
	probe  *waiter // the create sent to find out whether the shape fits now
	// opened: since its last refusal, a create it holds went through, so
	// the next goes at once rather than "first after the window".
	opened bool
}

func (c *closure) holds(s shape) bool {
	return (c.where == "" || c.where == s.where) && s.ask(c.res) >= c.amount
}

// why says what a closure holds, for the log line.
func (c *closure) why(s shape) string {
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

// Release reasons.
const (
	releaseFree   = "free"   // nothing holds it (no event)
	releaseFirst  = "first"  // the window ended and it goes first
	releaseNext   = "next"   // the create ahead of it was not refused there
	releaseBudget = "budget" // its budget ends within one round trip
	// Held for the first answer of a burst (see scoutBound):
	releaseAnswered = "answered" // the create ahead of it was answered, not refused
	releaseBound    = "bound"    // the create ahead of it has been out longer than scoutBound
	// Not let go: the caller stops waiting.
	releaseStopped = "stopped" // the proxy is shutting down
	releaseGone    = "gone"    // the client went away
)

// waiter is one create inside the gate, from its arrival at the proxy to
// its answer. It keeps its place (seq) across its own replays.
type waiter struct {
	seq       uint64
	shape     shape
	budgetEnd time.Time
	notBefore time.Time // its own Retry-After wait, when it is replaying
	queued    bool
	held      bool      // the gate has held it past notBefore
	heldSince time.Time // when the gate started holding it
	heldBy    *closure  // the closure named in its "held" line; nil when held for a first answer
	sentAt    time.Time // when the gate last let it go
	release   chan string
	probing   []*closure
	info      *requestInfo // for the log lines
}

// gate is the proxy's capacity gate; nil when --gate=off.
type gate struct {
	now func() time.Time // the monotonic clock (time.Now)

	mu       sync.Mutex
	closures map[closureKey]*closure
	queue    []*waiter // in arrival order
	seq      uint64
	rtts     [16]time.Duration
	nrtt     int
	// The round trips of the last 16 transient refusals, for scoutBound.
	refusalRTTs [16]time.Duration
	nrefusal    int
	// heard: when a create restricted as the key says (shape.where) last
	// got an answer that was not a gated refusal; first: the create that
	// went alone to find out, while nothing recent was heard.
	heard  map[string]time.Time
	first  map[string]*waiter
	timer  *time.Timer
	wake   time.Time
	onHeld func(w *waiter, c *closure, again bool)
}

func newGate(onHeld func(w *waiter, c *closure, again bool)) *gate {
	return &gate{now: time.Now, closures: map[closureKey]*closure{}, heard: map[string]time.Time{}, first: map[string]*waiter{}, onHeld: onHeld}
}

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
// not above a tenth of the default budget, so a server that answers very
// slowly costs a burst at most that.
const (
	minScoutBound = retry.MinWait
	maxScoutBound = DefaultBudget / 10
)

// scoutBound is how long the creates of a burst wait for the first one's
// answer: twice the slowest of the last 16 transient refusals' round
// trips, or before any refusal, of the last 16 creates' (any answer). A
// refusal is what the wait is for, and the scheduler refuses at a known
// point of the create: a first create out for longer than refusals have
// been taking (with room for a busy moment) is most likely being placed,
// so the others go rather than queue behind a slow success. Clamped to
// [minScoutBound, maxScoutBound]; before any answer it is minScoutBound.
func (g *gate) scoutBound() time.Duration {
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

// enter registers a create as it arrives at the proxy.
func (g *gate) enter(s shape, budget time.Duration) *waiter {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	return &waiter{seq: g.seq, shape: s, budgetEnd: g.now().Add(budget), release: make(chan string, 1)}
}

// rtt is the slowest of the last 16 create round trips: a held create goes
// this long before its budget ends, so its answer comes back in time.
func (g *gate) rtt() time.Duration {
	var m time.Duration
	for i := 0; i < min(g.nrtt, len(g.rtts)); i++ {
		m = max(m, g.rtts[i])
	}
	return m
}

// wait queues w until it may be sent: not before notBefore (its own
// Retry-After wait, zero for a first send), and then while a closed shape
// holds it, unless its budget would end. It returns why w was let go, or
// "" with cancelled/stopped closed; the caller then calls leave.
func (g *gate) wait(w *waiter, notBefore time.Time, cancelled, stopped <-chan struct{}) string {
	g.mu.Lock()
	w.notBefore = notBefore
	w.queued = true
	select {
	case <-w.release:
	default:
	}
	i := sort.Search(len(g.queue), func(i int) bool { return g.queue[i].seq > w.seq })
	g.queue = append(g.queue, nil)
	copy(g.queue[i+1:], g.queue[i:])
	g.queue[i] = w
	g.pumpLocked()
	g.mu.Unlock()
	select {
	case why := <-w.release:
		return why
	case <-cancelled:
	case <-stopped:
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case why := <-w.release:
		// Released at the same moment: it has been given its turn; the
		// caller's leave hands the turn on.
		g.unqueueLocked(w)
		return why
	default:
	}
	g.unqueueLocked(w)
	g.pumpLocked()
	return ""
}

func (g *gate) unqueueLocked(w *waiter) {
	if !w.queued {
		return
	}
	w.queued = false
	for i, q := range g.queue {
		if q == w {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
}

// outcome is what became of a create the gate let go.
type outcome int

const (
	outcomeOther   outcome = iota // any other answer, or none: nothing learnt
	outcomeRefused                // a transient refusal
	outcomeCreated                // 2xx: the shape fits now
)

// answered records the answer to a create the gate let go: a transient
// refusal at a gated stage closes (or keeps closed) its shape for hint; a
// success ends the window of every shape w's own shape fits in, so the
// next held create goes at once; any other answer only hands the turn on.
func (g *gate) answered(w *waiter, rtt time.Duration, o outcome, stage string, hint time.Duration, at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rtts[g.nrtt%len(g.rtts)] = rtt
	g.nrtt++
	if g.first[w.shape.where] == w {
		delete(g.first, w.shape.where)
	}
	if _, gated := stageResource[stage]; o == outcomeRefused && gated {
		g.refusalRTTs[g.nrefusal%len(g.refusalRTTs)] = rtt
		g.nrefusal++
		delete(g.heard, w.shape.where)
	} else {
		// Anything else, an error included, is what the creates held
		// for this answer would get without the gate: they go.
		g.heard[w.shape.where] = at
	}
	for _, c := range w.probing {
		if c.probe == w {
			c.probe = nil
		}
	}
	w.probing = nil
	if res, gated := stageResource[stage]; o == outcomeRefused && gated {
		key := closureKey{stage, w.shape.where}
		c := g.closures[key]
		if c == nil {
			c = &closure{stage: stage, res: res, where: w.shape.where, amount: w.shape.ask(res)}
			g.closures[key] = c
		}
		c.amount = min(c.amount, w.shape.ask(res))
		if until := at.Add(hint); until.After(c.until) {
			c.until = until
		}
		c.opened = false
	}
	if o == outcomeCreated {
		// One at a time still: the next create each shape holds goes
		// now, and a shape is forgotten once a create it holds went
		// through with none waiting behind.
		for k, c := range g.closures {
			if !c.holds(w.shape) {
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
	g.pumpLocked()
}

func (g *gate) anyQueuedLocked(c *closure) bool {
	for _, w := range g.queue {
		if c.holds(w.shape) {
			return true
		}
	}
	return false
}

// leave takes w out of the gate for good (its client has its answer or
// has gone); a turn it held passes on.
func (g *gate) leave(w *waiter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unqueueLocked(w)
	for _, c := range w.probing {
		if c.probe == w {
			c.probe = nil
		}
	}
	w.probing = nil
	if g.first[w.shape.where] == w {
		// It left unanswered (its client went away): the next in line
		// goes to find out.
		delete(g.first, w.shape.where)
	}
	g.pumpLocked()
}

// pumpLocked lets go every queued create that may go now, in arrival
// order, and sets the timer for the next moment one may.
func (g *gate) pumpLocked() {
	now := g.now()
	rtt := g.rtt()
	var next time.Time
	later := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	kept := g.queue[:0]
	for _, w := range g.queue {
		if now.Before(w.notBefore) {
			later(w.notBefore)
			kept = append(kept, w)
			continue
		}
		var holding []*closure
		var closed *closure
		for _, c := range g.closuresLocked() {
			if !c.holds(w.shape) {
				continue
			}
			holding = append(holding, c)
			if now.Before(c.until) || c.probe != nil {
				if closed == nil || c.until.After(closed.until) {
					closed = c
				}
			}
		}
		why := releaseFree
		switch {
		case closed != nil:
			if deadline := w.budgetEnd.Add(-rtt); now.Before(deadline) {
				if !w.held || w.heldBy == nil {
					again := w.held
					if !w.held {
						w.heldSince = now
					}
					w.held, w.heldBy = true, closed
					if g.onHeld != nil {
						g.onHeld(w, closed, again)
					}
				}
				if now.Before(closed.until) {
					later(closed.until)
				}
				later(deadline)
				kept = append(kept, w)
				continue
			}
			why = releaseBudget
		case len(holding) > 0:
			// Every shape holding it has its window over and nobody out
			// finding out: it goes, alone, to find out.
			why = releaseNext
			for _, c := range holding {
				c.probe = w
				if !c.opened {
					why = releaseFirst
				}
			}
			w.probing = holding
		default:
			// No refused shape holds it. If nothing recent was heard of
			// creates like it, the first goes alone and the others wait
			// for its answer, within scoutBound and the budget.
			where := w.shape.where
			if at, ok := g.heard[where]; ok && now.Sub(at) < knownFor {
				if w.held && w.heldBy == nil {
					why = releaseAnswered
				}
				break
			}
			first := g.first[where]
			if first == nil {
				g.first[where] = w
				break // it goes to find out (if held: the one ahead left unanswered)
			}
			if first == w {
				break // its own replay, when nothing holds its shape
			}
			bound := first.sentAt.Add(g.scoutBound())
			deadline := w.budgetEnd.Add(-rtt)
			if now.Before(bound) && now.Before(deadline) {
				if !w.held {
					w.held, w.heldSince, w.heldBy = true, now, nil
					if g.onHeld != nil {
						g.onHeld(w, nil, false)
					}
				}
				later(bound)
				later(deadline)
				kept = append(kept, w)
				continue
			}
			why = releaseBound
			if !now.Before(deadline) {
				why = releaseBudget
			}
		}
		w.queued = false
		w.sentAt = now
		w.release <- why
	}
	for i := len(kept); i < len(g.queue); i++ {
		g.queue[i] = nil
	}
	g.queue = kept
	// A shape nobody has asked for since long after its window is
	// forgotten, so that a client naming ever new nodes cannot grow the
	// gate without bound.
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
	g.arm(next)
}

// closuresLocked lists the closures in a fixed order.
func (g *gate) closuresLocked() []*closure {
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

func (g *gate) arm(at time.Time) {
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

func (g *gate) tick() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wake = time.Time{}
	g.pumpLocked()
}

// stoppedAnswer is what a client whose create the gate held, and never
// sent, gets when the proxy stops: a 503 that says nothing reached the
// server, so the client knows it may send the create again elsewhere.
func stoppedAnswer(req *http.Request) *http.Response {
	body := "shakectl proxy: the proxy stopped before this create was sent (the capacity gate was holding it); the server never received it\n"
	return &http.Response{
		Status:        "503 Service Unavailable",
		StatusCode:    http.StatusServiceUnavailable,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// refusalHint is the wait a transient refusal asks for, as the request's
// own retry reads it (retry.Call.CheckRetry): the Retry-After, or the
// --retry-wait that replaces it, clamped.
func refusalHint(resp *http.Response, override time.Duration, now time.Time) time.Duration {
	if override > 0 {
		return retry.Clamp(override)
	}
	return retry.ParseRetryAfter(resp.Header.Values("Retry-After"), now)
}

// logHeld is the "held" line: which refused shape holds the create and
// until when, or (c nil) that it waits for the answer to the first create
// of its burst. again: the create was held for that first answer, which
// was a refusal that now holds it; the send is not counted twice. It is
// called with the gate locked.
func (s *Server) logHeld(w *waiter, c *closure, again bool) {
	if !again {
		s.heldBack.Add(1)
	}
	var text, stage, reason string
	var asks, refusedAsking, window float64
	if c == nil {
		reason = "first_answer"
		text = fmt.Sprintf("%s %s: held by the capacity gate: nothing recent is known of whether the cluster takes creates, and the first of this burst is finding out; it goes when that one is answered (and waits under the gate's rules if it is refused), at the latest in %s",
			w.info.method, w.info.path, retry.HumanDuration(s.gate.scoutBound()))
	} else {
		reason, stage, asks, refusedAsking = "refused_shape", c.stage, w.shape.ask(c.res), c.amount
		left := time.Until(c.until)
		window = max(left, 0).Seconds()
		text = fmt.Sprintf("%s %s: held by the capacity gate: %s; it goes when the window ends (in %s), or one round trip before its budget does",
			w.info.method, w.info.path, c.why(w.shape), retry.HumanDuration(left))
		if left <= 0 {
			text = fmt.Sprintf("%s %s: held by the capacity gate: %s; the create ahead of it is finding out whether it fits now",
				w.info.method, w.info.path, c.why(w.shape))
		}
	}
	s.logEvent(text, struct {
		Event         string  `json:"event"`
		Method        string  `json:"method"`
		Path          string  `json:"path"`
		Reason        string  `json:"reason"`
		Stage         string  `json:"stage,omitempty"`
		Asks          float64 `json:"asks"`
		RefusedAsking float64 `json:"refused_asking"`
		WindowSeconds float64 `json:"window_seconds"`
		Message       string  `json:"message"`
	}{"held", w.info.method, w.info.path, reason, stage, asks, refusedAsking, window, text})
}

// logReleased is the "released" line; why is a release reason, or
// releaseStopped or releaseGone; refused says the create holds its own
// refusal.
func (s *Server) logReleased(w *waiter, why string, refused bool) {
	reason, says := why, ""
	switch why {
	case releaseFirst:
		says = "the window ended and it goes first"
	case releaseNext:
		says = "the create ahead of it went through, so it goes at once"
	case releaseBudget:
		says = "its budget ends within one round trip, so it goes now and gets its own answer"
	case releaseFree:
		says = "nothing holds it any more"
	case releaseAnswered:
		says = "the first create of its burst was answered and not refused, so it goes at once"
	case releaseBound:
		says = "the first create of its burst is slow to answer (most likely being placed), so it goes"
	case releaseStopped:
		says = "the proxy is stopping; it gets a 503 that says it was never sent"
		if refused {
			says = "the proxy is stopping; it gets its own last refusal"
		}
	case releaseGone:
		says = "its client went away"
	}
	held := time.Since(w.heldSince)
	text := fmt.Sprintf("%s %s: released by the capacity gate after %s: %s", w.info.method, w.info.path, retry.HumanDuration(held), says)
	s.logEvent(text, struct {
		Event       string  `json:"event"`
		Method      string  `json:"method"`
		Path        string  `json:"path"`
		Reason      string  `json:"reason"`
		HeldSeconds float64 `json:"held_seconds"`
		Message     string  `json:"message"`
	}{"released", w.info.method, w.info.path, reason, held.Seconds(), text})
}
