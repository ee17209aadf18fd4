package router

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Code is a gRPC status code as ateapi's ResumeActor answers it. The
// simulator spells the codes itself rather than importing gRPC.
type Code int

// The codes the resume path distinguishes (values as in gRPC).
const (
	OK                 Code = 0
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	Internal           Code = 13
	Unavailable        Code = 14
	Unauthenticated    Code = 16
)

func (c Code) String() string {
	switch c {
	case OK:
		return "OK"
	case DeadlineExceeded:
		return "DeadlineExceeded"
	case NotFound:
		return "NotFound"
	case PermissionDenied:
		return "PermissionDenied"
	case FailedPrecondition:
		return "FailedPrecondition"
	case Aborted:
		return "Aborted"
	case Internal:
		return "Internal"
	case ResourceExhausted:
		return "ResourceExhausted"
	case Unavailable:
		return "Unavailable"
	case Unauthenticated:
		return "Unauthenticated"
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// StatusError is a non-OK answer from the simulated control plane.
type StatusError struct {
	Code Code
	Msg  string
}

func (e *StatusError) Error() string { return e.Code.String() + ": " + e.Msg }

func status(c Code, msg string) *StatusError { return &StatusError{Code: c, Msg: msg} }

// msgNoFreeWorkers is AssignWorkerStep's refusal, word for word, and
// msgNoRoom the newer ateapi's (substrate internal/e2e/atenet_dataplane.go
// at 603c7c34 expects it in the router's 503).
const (
	msgNoFreeWorkers = "no free workers available"
	msgNoRoom        = "no worker has room for the actor"
)

// MsgConcurrent is the simulated ateapi's text for Aborted: another
// resume holds the actor. main-2026-08 passes it on in its 503 body.
const MsgConcurrent = "a concurrent resume holds the actor"

// The answers a contended control plane gives over and over; shared, since
// parked flights ask many times a second. (A full pool's answer is
// cp.poolFull, which the configuration sets.)
var (
	errConcurrent    = status(Aborted, MsgConcurrent)
	errCPUnavailable = status(Unavailable, "ateapi is unavailable")
)

type actorState int

const (
	suspended actorState = iota
	resuming
	running
)

// worker is one slot of the pool; a running actor holds exactly one.
type worker struct {
	id   int
	name string
	ip   string
}

// servedAnswer is a running actor's 200, built once when it gets its worker
// so the fast path only copies references. Its slices are shared by every
// response and never modified.
type servedAnswer struct {
	body                        string
	length, actorHdr, workerHdr []string
	// target is where Envoy sends the request: the worker's IP and the
	// dataplane port, as main-2026-08's statusz queries show it.
	target string
}

func newServedAnswer(ref string, w *worker) *servedAnswer {
	body := "actor " + ref + " served by " + w.name + " (" + w.ip + ")"
	return &servedAnswer{
		body:      body,
		length:    []string{strconv.Itoa(len(body))},
		actorHdr:  []string{ref},
		workerHdr: []string{w.name},
		target:    w.ip + ":443",
	}
}

// actorKey indexes actors without building the atespace/name string.
type actorKey struct{ atespace, name string }

// actor is one addressable actor and its lifecycle.
type actor struct {
	ref string // atespace/name

	mu       sync.Mutex
	state    actorState
	worker   *worker
	served   *servedAnswer // set while running
	inflight int           // requests being served right now
	lastUsed time.Time     // end of the last request (or the resume)
	idle     *time.Timer
}

// controlPlane plays ateapi: the actor registry, the worker pool, and
// ResumeActor with its fault injection.
type controlPlane struct {
	cfg   Config
	start time.Time

	// actors is read on every request and written once per actor: a
	// sync.Map (actorKey → *actor) keeps the fast path off cp.mu.
	actors sync.Map

	mu   sync.Mutex
	free []*worker // released workers, used as a stack
	// made counts the workers made so far: a worker is made when first
	// claimed, so Start costs the same for --workers 1 and 100000 (a
	// large pool used to be allocated, slowly, before the simulator could
	// be interrupted).
	made    int
	aborts  map[string]int
	holds   map[string]Hold // --hold, by atespace/name
	holdAll *Hold           // --hold '*'
	held    map[string]*holdProgress
	closed  bool
	rand    *lockedRand
	special map[string]Code // per-actor fault: deny/unauth/slow/fail/not-found
	// poolFull is the answer when no worker is free (or --hold refuses).
	poolFull *StatusError

	// stop ends at the simulator's hard stop.
	stop context.Context

	calls atomic.Int64 // ResumeActor calls answered
	busy  atomic.Int64 // workers held by an actor

	// onCall, when set (tests), sees every ResumeActor call and its answer.
	onCall func(ref string, at time.Time, err error)
}

func newControlPlane(stop context.Context, cfg Config, start time.Time, rng *lockedRand) *controlPlane {
	cp := &controlPlane{
		stop:     stop,
		cfg:      cfg,
		start:    start,
		aborts:   make(map[string]int),
		rand:     rng,
		special:  make(map[string]Code),
		poolFull: cfg.poolFull(),
	}
	for n, h := range cfg.Hold {
		if n == HoldEveryActor {
			cp.holdAll = &h
			continue
		}
		if ref, err := cfg.actorRef(n); err == nil {
			if cp.holds == nil {
				cp.holds = make(map[string]Hold)
			}
			cp.holds[ref] = h
		}
	}
	if cp.holds != nil || cp.holdAll != nil {
		cp.held = make(map[string]*holdProgress)
	}
	for _, l := range []struct {
		names []string
		code  Code
	}{{cfg.Deny, PermissionDenied}, {cfg.Unauth, Unauthenticated}, {cfg.Slow, DeadlineExceeded}, {cfg.Fail, Internal}, {cfg.NotFound, NotFound}, {cfg.RateLimit, ResourceExhausted}} {
		for _, n := range l.names {
			if ref, err := cfg.actorRef(n); err == nil {
				cp.special[ref] = l.code
			}
		}
	}
	for n, times := range cfg.Abort {
		if ref, err := cfg.actorRef(n); err == nil {
			cp.aborts[ref] = normaliseAborts(times)
		}
	}
	return cp
}

// ActorName is the name of the n-th known actor (from 1): actor-0001.
func ActorName(n int) string { return fmt.Sprintf("actor-%04d", n) }

// abortForever marks an actor whose every resume answers Aborted.
const abortForever = -1

func normaliseAborts(n int) int {
	if n <= 0 {
		return abortForever
	}
	return n
}

// exists says whether the registry knows the actor.
func (cp *controlPlane) exists(atespace, name string) bool {
	if atespace != cp.cfg.Atespace {
		return false
	}
	if cp.cfg.AnyActor {
		return true
	}
	num, ok := strings.CutPrefix(name, "actor-")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(num)
	// The round trip rejects other spellings of the number (actor-1, actor-00001).
	return err == nil && n >= 1 && n <= cp.cfg.Actors && ActorName(n) == name
}

// lookup returns the actor's record, creating it on first use, or nil when
// the actor does not exist.
func (cp *controlPlane) lookup(atespace, name string) *actor {
	key := actorKey{atespace, name}
	if a, ok := cp.actors.Load(key); ok {
		return a.(*actor)
	}
	if !cp.exists(atespace, name) {
		return nil
	}
	a, _ := cp.actors.LoadOrStore(key, &actor{ref: atespace + "/" + name})
	return a.(*actor)
}

// eachActor visits every actor created so far.
func (cp *controlPlane) eachActor(f func(*actor)) {
	cp.actors.Range(func(_, a any) bool {
		f(a.(*actor))
		return true
	})
}

// injectAborted makes the actor's next n resumes answer Aborted (n <= 0:
// all of them).
func (cp *controlPlane) injectAborted(ref string, n int) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if n == 0 {
		delete(cp.aborts, ref)
		return
	}
	cp.aborts[ref] = normaliseAborts(n)
}

func (cp *controlPlane) takeAbort(ref string) bool {
	cp.mu.Lock()
	n, ok := cp.aborts[ref]
	switch {
	case !ok:
	case n == abortForever:
	case n <= 1:
		delete(cp.aborts, ref)
	default:
		cp.aborts[ref] = n - 1
	}
	cp.mu.Unlock()
	if ok {
		return true
	}
	if cp.cfg.AbortRate > 0 {
		return cp.rand.Float64() < cp.cfg.AbortRate
	}
	return false
}

// holdProgress is how far an actor is through its --hold.
type holdProgress struct {
	first time.Time // its first ResumeActor call
	calls int
	over  bool
}

// holding reports whether the actor's resume is refused by --hold now:
// the control plane answers "no free workers available" whatever the pool
// holds, as the fake ateapi did when the real router was rehearsed.
func (cp *controlPlane) holding(ref string, now time.Time) bool {
	if cp.held == nil {
		return false
	}
	h, ok := cp.holds[ref]
	if !ok {
		if cp.holdAll == nil {
			return false
		}
		h = *cp.holdAll
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	p := cp.held[ref]
	if p == nil {
		p = &holdProgress{first: now}
		cp.held[ref] = p
	}
	if p.over {
		return false
	}
	p.calls++
	switch {
	case h.Times > 0:
		p.over = p.calls > h.Times
	case h.For > 0:
		p.over = now.Sub(p.first) >= h.For
	}
	return !p.over
}

func (cp *controlPlane) unavailable(now time.Time) bool {
	since := now.Sub(cp.start)
	for _, w := range cp.cfg.ControlPlaneUnavailable {
		if w.contains(since) {
			return true
		}
	}
	return false
}

// resume is ateapi's ResumeActor. a is nil for an actor that does not
// exist. Once a worker is claimed the resume completes even if ctx ends
// (it is a server-side workflow); the caller just stops waiting for it.
// resumed says whether this call moved the actor to running (false when
// it already was).
func (cp *controlPlane) resume(ctx context.Context, ref string, a *actor) (resumed bool, err error) {
	defer func() {
		cp.calls.Add(1)
		if cp.onCall != nil {
			cp.onCall(ref, time.Now(), err)
		}
	}()
	if d := cp.cfg.ControlPlaneLatency; d > 0 {
		if err := sleepCtx(ctx, d); err != nil {
			return false, status(DeadlineExceeded, "context ended during the call")
		}
	}
	if cp.unavailable(time.Now()) {
		return false, errCPUnavailable
	}
	if a == nil {
		return false, status(NotFound, "actor "+ref+" not found")
	}
	if code, ok := cp.special[ref]; ok {
		if code == DeadlineExceeded {
			// A slow resume: the workflow runs until its deadline.
			_ = sleepCtx(ctx, cp.cfg.ResumeLatency)
		}
		return false, status(code, "injected fault")
	}
	if cp.holding(ref, time.Now()) {
		return false, cp.poolFull
	}
	if cp.takeAbort(ref) {
		return false, errConcurrent
	}

	a.mu.Lock()
	switch a.state {
	case running:
		a.mu.Unlock()
		return false, nil
	case resuming:
		a.mu.Unlock()
		return false, errConcurrent
	}
	w := cp.claim()
	if w == nil {
		a.mu.Unlock()
		return false, cp.poolFull
	}
	a.state, a.worker = resuming, w
	a.mu.Unlock()

	// The resume finishes on its own schedule whatever the caller does;
	// only the simulator's hard stop cuts it short.
	_ = sleepCtx(cp.stop, cp.cfg.ResumeLatency)

	a.mu.Lock()
	a.state = running
	a.served = newServedAnswer(a.ref, w)
	a.lastUsed = time.Now()
	cp.armIdle(a)
	a.mu.Unlock()
	return true, nil
}

// claim takes a free worker, or nil when the pool is exhausted.
func (cp *controlPlane) claim() *worker {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	var w *worker
	switch {
	case len(cp.free) > 0:
		w = cp.free[len(cp.free)-1]
		cp.free = cp.free[:len(cp.free)-1]
	case cp.made < cp.cfg.Workers:
		cp.made++
		w = newWorker(cp.made)
	default:
		return nil
	}
	cp.busy.Add(1)
	return w
}

// newWorker is the i-th worker of the pool (from 1). Its address stays a
// valid IPv4 address up to MaxWorkers (10.0.0.2 … 10.1.150.1).
func newWorker(i int) *worker {
	return &worker{id: i, name: fmt.Sprintf("worker-%02d", i), ip: fmt.Sprintf("10.%d.%d.%d", i/62500, i/250%250, i%250+1)}
}

func (cp *controlPlane) release(w *worker) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.free = append(cp.free, w)
	cp.busy.Add(-1)
}

// armIdle (a.mu held) schedules the idle check of a running actor.
func (cp *controlPlane) armIdle(a *actor) {
	if cp.cfg.ActorIdle <= 0 {
		return
	}
	cp.mu.Lock()
	closed := cp.closed
	cp.mu.Unlock()
	if closed {
		return
	}
	if a.idle == nil {
		a.idle = time.AfterFunc(cp.cfg.ActorIdle, func() { cp.idleCheck(a) })
		return
	}
	a.idle.Reset(cp.cfg.ActorIdle)
}

// idleCheck suspends an actor that has had no traffic for ActorIdle,
// freeing its worker, or looks again when it next could be idle.
func (cp *controlPlane) idleCheck(a *actor) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != running {
		return
	}
	if a.inflight > 0 {
		a.idle.Reset(cp.cfg.ActorIdle)
		return
	}
	if left := cp.cfg.ActorIdle - time.Since(a.lastUsed); left > 0 {
		a.idle.Reset(left)
		return
	}
	w := a.worker
	a.state, a.worker, a.served = suspended, nil, nil
	cp.release(w)
}

// acquire starts serving a request on a running actor: it returns the
// actor's answer from its worker, or nil when the actor is not running.
func (a *actor) acquire() *servedAnswer {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != running {
		return nil
	}
	a.inflight++
	return a.served
}

// done ends a request started with acquire.
func (a *actor) done() {
	a.mu.Lock()
	a.inflight--
	a.lastUsed = time.Now()
	a.mu.Unlock()
}

// close stops the idle timers; actors keep their state.
func (cp *controlPlane) close() {
	cp.mu.Lock()
	cp.closed = true
	cp.mu.Unlock()
	cp.eachActor(func(a *actor) {
		a.mu.Lock()
		if a.idle != nil {
			a.idle.Stop()
		}
		a.mu.Unlock()
	})
}

// counts reports running actors and busy workers.
func (cp *controlPlane) counts() (runningActors int) {
	cp.eachActor(func(a *actor) {
		a.mu.Lock()
		if a.state == running {
			runningActors++
		}
		a.mu.Unlock()
	})
	return runningActors
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
