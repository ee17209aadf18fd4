package router

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Answer bodies, as the real router and Envoy write them (text/plain, no
// trailing newline).
const (
	envoyOverflowBody = "upstream connect error or disconnect/reset before headers. reset reason: overflow"
	// RequestTimeoutHeader carries a request's own deadline: a Go duration
	// ("1.5s", "250ms") or a number of seconds ("2", "0.5").
	RequestTimeoutHeader = "x-request-timeout"
	// requestTimeoutKey is its canonical form, for a map lookup that does
	// not canonicalise on every request.
	requestTimeoutKey = "X-Request-Timeout"
)

// textPlain is the Content-Type of every answer, shared read-only.
var textPlain = []string{"text/plain; charset=utf-8"}

// PR #221 and the seed name the actor by its id alone, quoted, without the
// atespace (agent-substrate/substrate PR #221 4a8f978b, errors.go
// mapResumeError and parkingFullErr; the bodies were also captured from
// the built binary). Upstream main 2026-08 writes atespace/id unquoted,
// and quoted only in the lot-full body (captures atenet-router-6210ad86).
func quotedActor(ref string) string {
	_, name, _ := strings.Cut(ref, "/")
	return "actor " + strconv.Quote(name)
}

// who is how the model's answer bodies name the actor.
func (rt *router) who(ref string) string {
	if rt.tr.refInBodies {
		return "actor " + ref
	}
	return quotedActor(ref)
}

// Answer bodies after the actor (who is "actor \"x\"" or "actor ns/x").
func bodyNoFreeWorkers(who string) string { return who + " unavailable: " + msgNoFreeWorkers }
func bodyNotFound(who string) string      { return who + " not found" }
func bodyUnavailable(who string) string   { return who + " unavailable" }
func bodyTimedOut(who string) string      { return who + " request timed out" }
func bodyDenied(who string) string        { return who + " access denied" }
func bodyUnauth(who string) string        { return who + " authentication required" }
func bodyResumeError(who string) string   { return "error resuming " + who }
func bodyRateLimited(who string) string   { return who + " rate limited" }
func bodyRoutingFailed(who string) string { return who + " routing failed" }

// envoyRouteTimeoutBody is Envoy's local reply when the route timeout
// fires before the upstream answers (504; Envoy's text, inferred from its
// source, not captured).
const envoyRouteTimeoutBody = "upstream request timeout"

// errRequestTimeout is the cause of a request context whose own deadline
// expired, as opposed to the client going away.
var errRequestTimeout = errors.New("request deadline expired")

// errMessageTimeout is the cause when Envoy's ext_proc message timeout
// (emulated) ends the exchange.
var errMessageTimeout = errors.New("ext_proc message timeout")

// gate is a counting admission limit that refuses rather than queues.
type gate struct {
	n   atomic.Int64
	max int64
}

func (g *gate) tryAcquire() bool {
	for {
		n := g.n.Load()
		if n >= g.max {
			return false
		}
		if g.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (g *gate) release() { g.n.Add(-1) }

// flightResult is how one resume flight ended; every request that joined
// the flight shares it.
type flightResult struct {
	err       *StatusError // nil: the actor is running
	exhausted bool         // the budget ran out on a retryable condition
	stopped   bool         // the simulator was stopped under it
	resumed   bool         // the flight moved the actor to running
}

// router plays Envoy's ext_proc breaker and the atenet router's resume and
// parking logic in front of the control plane.
type router struct {
	cfg Config
	// tr is the model's row (models.go), resolved once.
	tr      modelTraits
	cp      *controlPlane
	m       dataplaneMetrics
	rand    *lockedRand
	parking bool
	// richRoutes names route outcomes as 6210ad86 and later do
	// (ate_router_outcome: no_capacity, lock_conflict, …); PR #221 and
	// main have ok, error, not_found and cancelled.
	richRoutes bool
	// cache is agentgateway's resolved-actor cache (lotOnCacheMiss):
	// atespace/name → when its entry expires.
	cache sync.Map
	// routingFail holds the --routing-fail actors (atespace/name).
	routingFail map[string]bool
	// queries is main-2026-08's statusz query log.
	queries *queryLog

	breaker gate // ext_proc streams in use (parked + fast path)
	lot     gate // parking-lot slots in use

	// stop ends every flight at the simulator's hard stop.
	stop context.Context

	// flights holds the one in-flight resume per actor. It is
	// singleflight.DoChan's semantics with the flight goroutine started
	// under our own lock, so Close can wait for every flight without racing
	// one that starts as it closes.
	flightMu     sync.Mutex
	flights      map[string]*flight
	flightClosed bool
	flightWG     sync.WaitGroup
}

// flight is one actor's in-flight resume; done closes when res is set.
// parked closes at the park transition, the flight's first retryable
// error (#1229's lot takes its slots then), and parkCode is that error's.
type flight struct {
	done     chan struct{}
	res      flightResult
	parked   chan struct{}
	parkCode Code
}

// routeEnd is how one ext_proc exchange ended, for the route-duration
// histogram: its outcome, whether the actor was resolved (template labels
// set) and, in main-2026-08, how the actor came to run.
type routeEnd struct {
	outcome  RouteOutcome
	resolved bool
	resume   Resume
	// unaddressed: the request named no actor the router could read.
	unaddressed bool
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Envoy's circuit breaker on the ext_proc cluster sees every request
	// before the router does.
	if !rt.breaker.tryAcquire() {
		rt.breakerOverflow(w)
		return
	}
	breakerHeld := true
	releaseBreaker := func() {
		if breakerHeld {
			breakerHeld = false
			rt.breaker.release()
		}
	}
	defer releaseBreaker()

	if rt.tr.grpcAnswers && isGRPC(r) {
		w = &grpcRefusal{ResponseWriter: w}
	}
	// The ext_proc exchange starts: the route-duration clock runs until the
	// worker is resolved or the request is answered.
	start := time.Now()
	end, a, sa, ctx, cancel := rt.route(w, r)
	d := time.Since(start)
	switch {
	case !rt.tr.failuresAreResumeErrors:
		rt.m.routed(d, end)
	case !end.unaddressed:
		// agentgateway records every failed resolution as resume_error,
		// and nothing for a request that named no actor.
		if end.outcome != RouteOK {
			end.outcome = RouteResumeError
		}
		rt.m.routed(d, end)
	}
	if rt.queries != nil {
		target := "-"
		if sa != nil {
			target = sa.target
		}
		rt.queries.add(r, start, d, end.outcome == RouteOK, target)
	}
	if cancel != nil {
		defer cancel()
	}
	if sa == nil {
		return
	}
	// Routed: the ext_proc exchange is over, the worker serves the body.
	releaseBreaker()
	rt.serve(ctx, w, a, sa)
}

// route is the ext_proc exchange: it resolves the request's actor and
// worker, or answers the request itself. With a worker it returns the
// request's context (and its cancel, which the caller runs after serving).
func (rt *router) route(w http.ResponseWriter, r *http.Request) (routeEnd, *actor, *servedAnswer, context.Context, context.CancelFunc) {
	atespace, name, refusal := rt.parseActor(r)
	if refusal != "" {
		answer(w, http.StatusNotFound, refusal)
		return routeEnd{outcome: RouteNotFound, unaddressed: true}, nil, nil, nil, nil
	}
	ctx, cancel, err := rt.requestContext(r)
	if err != nil {
		answer(w, http.StatusBadRequest, err.Error())
		return routeEnd{outcome: rt.genericError()}, nil, nil, nil, nil
	}
	// The ext_proc exchange ends at Envoy's message timeout, if emulated;
	// the worker's own answer afterwards is not bound by it.
	extCtx := ctx
	cancelExt := func() {}
	if rt.cfg.ExtprocMessageTimeout {
		extCtx, cancelExt = context.WithTimeoutCause(ctx, rt.messageTimeout(), errMessageTimeout)
	}
	defer cancelExt()

	ref := atespace + "/" + name
	a := rt.cp.lookup(atespace, name)
	var sa *servedAnswer
	resume := ResumeNone
	if a != nil && rt.fastPath(ref) {
		// The actor is already running, and this router knows it without
		// asking ateapi (the seed's fast path, agentgateway's cache).
		sa = a.acquire()
	}
	if sa == nil {
		var end routeEnd
		if sa, end = rt.resume(extCtx, w, ref, a); sa == nil {
			cancel()
			return end, nil, nil, nil, nil
		}
		resume = end.resume
	}
	if rt.routingFail[ref] {
		// Resumed, but the worker's address is unusable. PR #221 keeps
		// the template labels; main-2026-08 writes them only on success.
		a.done()
		answer(w, http.StatusInternalServerError, bodyRoutingFailed(rt.who(ref)))
		cancel()
		if rt.richRoutes {
			return routeEnd{outcome: RouteResumeError}, nil, nil, nil, nil
		}
		return routeEnd{outcome: RouteError, resolved: true}, nil, nil, nil, nil
	}
	return routeEnd{outcome: RouteOK, resolved: true, resume: resume}, a, sa, ctx, cancel
}

// genericError is the route outcome of a failure with no better name.
func (rt *router) genericError() RouteOutcome {
	if rt.richRoutes {
		return RouteResumeError
	}
	return RouteError
}

// breakerOverflow answers a request Envoy's ext_proc circuit breaker
// refused. Real Envoy treats the overflow as an ext_proc stream failure:
// status_on_error, 500 with an empty body (envoy ext_proc.cc onGrpcError;
// inferred from Envoy's source, not observed). The 503 with
// x-envoy-overloaded is what an upstream cluster's breaker sends; it is
// kept behind --breaker-overflow-503.
func (rt *router) breakerOverflow(w http.ResponseWriter) {
	if rt.cfg.BreakerOverflow503 {
		w.Header().Set("x-envoy-overloaded", "true")
		answer(w, http.StatusServiceUnavailable, envoyOverflowBody)
		return
	}
	answer(w, http.StatusInternalServerError, "")
}

// messageTimeout is Envoy's ext_proc message_timeout as PR #221's xDS sets
// it: max-wait + 5s when parking is on, else 5s.
func (rt *router) messageTimeout() time.Duration {
	if rt.parking && rt.cfg.ParkedRequestBudget > 0 {
		return rt.cfg.ParkedRequestBudget + 5*time.Second
	}
	return 5 * time.Second
}

// parseActor reads the atespace and actor from the request where the
// model's router reads them, or returns the body of the router's 404.
func (rt *router) parseActor(r *http.Request) (atespace, name, refusal string) {
	var err error
	switch rt.tr.addressing {
	case addrTargetActor:
		var v string
		if vs := r.Header[targetActorKey]; len(vs) > 0 {
			v = vs[0]
		}
		if atespace, name, err = parseTargetActor(v); err != nil {
			return "", "", `invalid "` + TargetActorHeader + `": expected <atespace>/<actor>`
		}
		return atespace, name, ""
	case addrHostPR221:
		atespace = rt.cfg.Atespace
		name, err = parseHostPR221(r.Host)
	case addrHost202608:
		atespace, name, err = parseHost202608(r.Host)
	default:
		atespace, name, err = ParseHost(r.Host)
	}
	if err != nil {
		return "", "", "invalid host " + quoteHost(r.Host) + ": " + err.Error()
	}
	return atespace, name, ""
}

// fastPath reports whether a request for ref, whose actor exists, may be
// served without the resume path when the actor is running: always in the
// seed; in agentgateway while the actor's cache entry lasts; never in the
// routers that call ResumeActor for every request.
func (rt *router) fastPath(ref string) bool {
	switch rt.tr.lot {
	case lotSuspendedOnArrival:
		return true
	case lotOnCacheMiss:
		exp, ok := rt.cache.Load(ref)
		return ok && time.Now().Before(exp.(time.Time))
	}
	return false
}

// AgentgatewayCacheTTL is agentgateway's default cacheTtl: how long a
// resolved actor is served from its cache, without a permit or a
// ResumeActor call (crates/agentgateway/src/http/substrate/ingress.rs at
// 5f96588b7).
const AgentgatewayCacheTTL = 5 * time.Second

// resolved notes that ref's actor was resolved to a worker (agentgateway
// caches it).
func (rt *router) resolved(ref string) {
	if rt.tr.lot == lotOnCacheMiss {
		rt.cache.Store(ref, time.Now().Add(AgentgatewayCacheTTL))
	}
}

// requestContext gives the request its own deadline: the
// x-request-timeout header, else --request-timeout, else none.
func (rt *router) requestContext(r *http.Request) (context.Context, context.CancelFunc, error) {
	d := rt.cfg.RequestTimeout
	if vs := r.Header[requestTimeoutKey]; len(vs) > 0 && vs[0] != "" {
		v := vs[0]
		var err error
		if d, err = ParseRequestTimeout(v); err != nil {
			return nil, nil, fmt.Errorf("invalid %s %q: %v", RequestTimeoutHeader, v, err)
		}
	}
	if d <= 0 {
		return r.Context(), func() {}, nil
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), d, errRequestTimeout)
	return ctx, cancel, nil
}

// ParseRequestTimeout reads an x-request-timeout value: a Go duration
// ("1.5s") or a bare number of seconds ("2", "0.5"). It must be positive.
func ParseRequestTimeout(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	d, err := time.ParseDuration(v)
	if err != nil {
		secs, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
			return 0, errors.New("want a duration such as 1.5s or a number of seconds")
		}
		if secs > (time.Duration(math.MaxInt64) / time.Second).Seconds() {
			return 0, errors.New("too long")
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, errors.New("must be positive")
	}
	return d, nil
}

// resume gets a suspended (or unknown) actor running, parking the request
// when parking is on. It returns the worker to route to, or nil when it
// has already answered, with how the route ended.
func (rt *router) resume(ctx context.Context, w http.ResponseWriter, ref string, a *actor) (*servedAnswer, routeEnd) {
	switch {
	case !rt.parking:
		// Disabled: no admission cap, no parking metrics; only Aborted is
		// retried (inside the flight).
		wk, res, started, err := rt.await(ctx, ref, a)
		return rt.ended(ctx, w, ref, wk, res, started, err)
	case rt.tr.lot == lotAtParkTransition:
		return rt.resumeParkingAtTransition(ctx, w, ref, a)
	}
	if !rt.lot.tryAcquire() {
		return nil, rt.shed(w, ref, ResourceExhausted)
	}
	rt.m.parked(1)
	start := time.Now()
	wk, res, started, err := rt.await(ctx, ref, a)
	// Recorded once, as the resume attempt completes, with how it ended.
	rt.m.waited(time.Since(start), rt.outcomeOf(ctx, res, err))
	rt.m.parked(-1)
	rt.lot.release()
	return rt.ended(ctx, w, ref, wk, res, started, err)
}

// ended answers a request whose resume is over: routed to its worker, or
// refused.
func (rt *router) ended(ctx context.Context, w http.ResponseWriter, ref string, wk *servedAnswer, res flightResult, started bool, err error) (*servedAnswer, routeEnd) {
	if wk != nil {
		rt.resolved(ref)
		return wk, routeEnd{outcome: RouteOK, resolved: true, resume: resumeOf(res, started)}
	}
	return nil, routeEnd{outcome: rt.fail(ctx, w, ref, res, err)}
}

// shed answers a request the full lot refused. After #1229 the route
// outcome follows the error that parked the flight: no_capacity for
// ResourceExhausted, unavailable otherwise.
func (rt *router) shed(w http.ResponseWriter, ref string, parkCode Code) routeEnd {
	rt.m.shed()
	answer(w, http.StatusServiceUnavailable, rt.tr.lotFull(ref))
	switch {
	case !rt.richRoutes:
		return routeEnd{outcome: RouteError}
	case parkCode == ResourceExhausted:
		return routeEnd{outcome: RouteNoCapacity}
	}
	return routeEnd{outcome: RouteUnavailable}
}

// resumeParkingAtTransition is the resume path after #1229: the request
// joins its actor's flight without a lot slot; it takes one only when the
// flight meets its first retryable error (or at once when it joins a
// flight already retrying), and is shed then if the lot is full. A request
// resolved by the flight's first attempt (a running actor, a fail-fast
// error) never touches the lot, and only requests that parked count in
// parking_active and the wait histogram, measured from lot entry.
func (rt *router) resumeParkingAtTransition(ctx context.Context, w http.ResponseWriter, ref string, a *actor) (*servedAnswer, routeEnd) {
	for {
		f, started := rt.joinFlight(ref, a)
		if f == nil {
			return rt.ended(ctx, w, ref, nil, flightResult{stopped: true}, false, nil)
		}
		slot := false
		select {
		case <-f.done:
		default:
			select {
			case <-ctx.Done():
				return rt.ended(ctx, w, ref, nil, flightResult{}, started, ctx.Err())
			case <-f.done:
			case <-f.parked:
				select {
				case <-f.done:
					// It ended as it parked: nothing to wait for.
				default:
					if !rt.lot.tryAcquire() {
						return nil, rt.shed(w, ref, f.parkCode)
					}
					slot = true
				}
			}
		}
		var err error
		var entered time.Time
		if slot {
			rt.m.parked(1)
			entered = time.Now()
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-f.done:
			}
		}
		var res flightResult
		if err == nil {
			res = f.res
		}
		var wk *servedAnswer
		if err == nil && res.err == nil && !res.exhausted && !res.stopped {
			wk = a.acquire()
		}
		if slot {
			rt.m.waited(time.Since(entered), rt.outcomeOf(ctx, res, err))
			rt.m.parked(-1)
			rt.lot.release()
		}
		if wk != nil || err != nil || res.err != nil || res.exhausted || res.stopped {
			return rt.ended(ctx, w, ref, wk, res, started, err)
		}
		// Suspended again between the resume and this request's turn (a
		// tiny --actor-idle): resume once more.
	}
}

// resumeOf is main-2026-08's ate_router_resume label for a routed
// request: "triggered" when the flight it started resumed the actor,
// "joined" when a flight it joined did, "none" when the actor was running.
func resumeOf(res flightResult, started bool) Resume {
	switch {
	case !res.resumed:
		return ResumeNone
	case started:
		return ResumeTriggered
	}
	return ResumeJoined
}

// await joins (or starts) the actor's resume flight and waits for its
// result or for the request to end. On success it returns the worker the
// request now holds; started says whether this request started the flight.
func (rt *router) await(ctx context.Context, ref string, a *actor) (*servedAnswer, flightResult, bool, error) {
	for {
		f, started := rt.joinFlight(ref, a)
		if f == nil {
			return nil, flightResult{stopped: true}, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, flightResult{}, started, ctx.Err()
		case <-f.done:
			res := f.res
			if res.err != nil || res.exhausted || res.stopped {
				return nil, res, started, nil
			}
			if sa := a.acquire(); sa != nil {
				return sa, res, started, nil
			}
			// Suspended again between the resume and this request's turn
			// (a tiny --actor-idle): resume once more.
		}
	}
}

// joinFlight shares one in-flight ResumeActor sequence per actor among all
// its concurrent requests: the first starts it (and its budget clock),
// later ones join it. It returns nil once the simulator is stopping.
func (rt *router) joinFlight(ref string, a *actor) (*flight, bool) {
	rt.flightMu.Lock()
	defer rt.flightMu.Unlock()
	if rt.flightClosed {
		return nil, false
	}
	if f, ok := rt.flights[ref]; ok {
		return f, false
	}
	f := &flight{done: make(chan struct{}), parked: make(chan struct{})}
	rt.flights[ref] = f
	rt.flightWG.Add(1)
	go func() {
		defer rt.flightWG.Done()
		f.res = rt.fly(f, ref, a)
		rt.flightMu.Lock()
		delete(rt.flights, ref)
		rt.flightMu.Unlock()
		close(f.done)
	}()
	return f, true
}

// fly is one resume flight: call ResumeActor, and retry retryable answers
// with exponential backoff (no cap, no attempt limit) until the flight's
// budget, which started with this call, runs out. The first retryable
// answer is the flight's park transition (f.parked).
func (rt *router) fly(f *flight, ref string, a *actor) flightResult {
	budget := rt.flightBudget()
	deadline := time.Now().Add(budget)
	// Only a call that can block (control-plane latency, a slow resume)
	// needs the budget as a context; the rest of the flight runs on one
	// reused timer, so 10,000 parked flights make little garbage. After
	// #675 the budget never cuts a call.
	ctx := rt.stop
	if (rt.cfg.ControlPlaneLatency > 0 || len(rt.cfg.Slow) > 0) && !rt.tr.attemptOutlivesBudget {
		c, cancel := context.WithDeadline(rt.stop, deadline)
		defer cancel()
		ctx = c
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	jitter := rt.cfg.RetryJitter()
	delay := float64(rt.cfg.ParkedRequestRetryInterval)
	var last *StatusError
	for {
		resumed, err := rt.cp.resume(ctx, ref, a)
		left := time.Until(deadline)
		if err == nil {
			// After #675 an attempt that outlived the budget still serves
			// its requests (late).
			return flightResult{resumed: resumed}
		}
		var st *StatusError
		if !errors.As(err, &st) {
			st = status(Internal, err.Error())
		}
		if rt.stop.Err() != nil {
			return flightResult{stopped: true}
		}
		if left <= 0 && !rt.tr.attemptOutlivesBudget {
			return rt.exhausted(last, st)
		}
		if !rt.retryable(st.Code) {
			// After #675 a late non-retryable answer is kept as it is.
			return flightResult{err: st}
		}
		if last == nil {
			f.parkCode = st.Code
			close(f.parked)
		}
		last = st
		if left <= 0 {
			return rt.exhausted(last, st)
		}
		wait := time.Duration(delay * (1 + jitter*rt.rand.Float64()))
		// The delay grows without a cap (the budget alone bounds the
		// wait); clamping the number far beyond any budget only keeps the
		// float conversion from overflowing.
		delay = math.Min(delay*rt.cfg.ParkedRequestRetryFactor, float64(100*365*24*time.Hour))
		final := wait >= left
		if final {
			wait = left
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		select {
		case <-timer.C:
		case <-rt.stop.Done():
			return flightResult{stopped: true}
		}
		if final {
			// The budget ends the retries (after #675 it ends no attempt
			// already running, and none is now).
			return rt.exhausted(last, st)
		}
	}
}

// exhausted is the result of a flight whose budget ran out: the last
// retryable condition it was blocked on (6210ad86 reports a
// non-retryable error that came after the budget as that, too).
func (rt *router) exhausted(last, current *StatusError) flightResult {
	if rt.retryable(current.Code) {
		last = current
	}
	if last == nil {
		// The budget ran out inside the very first call (a slow control
		// plane): it never answered, which is unavailability.
		last = status(Unavailable, "no answer within the budget")
	}
	return flightResult{err: last, exhausted: true}
}

// flightBudget bounds one resume flight. The seed retries Aborted for 15s
// when parking is off; PR #221's resumer (withParking) takes max-wait as
// the budget whenever it is positive, parking on or off, and 15s
// otherwise (resumer.go, legacyResumeBudget, 4a8f978b).
func (rt *router) flightBudget() time.Duration {
	if rt.tr.budgetEvenUnparked {
		if rt.cfg.ParkedRequestBudget > 0 {
			return rt.cfg.ParkedRequestBudget
		}
		return DisabledAbortedBudget
	}
	if !rt.parking {
		return DisabledAbortedBudget
	}
	return rt.cfg.ParkedRequestBudget
}

// retryable says which ResumeActor answers a flight waits out: Aborted
// always, and the model's parked codes while parking is on (PR #221:
// FailedPrecondition only; 6210ad86 and later: ResourceExhausted too).
func (rt *router) retryable(c Code) bool {
	if c == Aborted {
		return true
	}
	return rt.parking && rt.tr.parksCode(c)
}

// outcomeOf names how a park ended, for the wait histogram. PR #221
// records a spent budget as "error" and any end of the request's stream,
// its own deadline included, as "canceled".
func (rt *router) outcomeOf(ctx context.Context, res flightResult, err error) Outcome {
	pr221 := rt.tr.metrics == metricsAtenetPR221
	switch {
	case err != nil && !pr221 && errors.Is(context.Cause(ctx), errRequestTimeout):
		return OutcomeTimeout
	case err != nil:
		return OutcomeCanceled
	case res.exhausted && !pr221:
		return OutcomeBudgetExhausted
	case res.exhausted || res.err != nil || res.stopped:
		return OutcomeError
	}
	return OutcomeServed
}

// fail answers a request whose resume did not get the actor running, and
// says how the route ended. PR #221's classifyOutcome gives "cancelled"
// to a stream that ended (the client, a deadline, Envoy's timeout),
// "not_found" to a 404 and "error" to the rest; 6210ad86 names the code
// (routeOutcomeFor).
func (rt *router) fail(ctx context.Context, w http.ResponseWriter, ref string, res flightResult, err error) RouteOutcome {
	who := rt.who(ref)
	switch {
	case err != nil && errors.Is(context.Cause(ctx), errMessageTimeout):
		// Envoy's own local reply: 504, empty body (details
		// ext_proc_error_per-message_timeout_exceeded; inferred).
		answer(w, http.StatusGatewayTimeout, "")
		return RouteCancelled
	case err != nil && errors.Is(context.Cause(ctx), errRequestTimeout):
		answer(w, http.StatusGatewayTimeout, bodyTimedOut(who))
		if rt.richRoutes {
			return RouteTimeout
		}
		return RouteCancelled
	case err != nil:
		// The client went away: nobody reads an answer. 6210ad86 still
		// writes one (408, read in its source).
		if rt.richRoutes {
			answer(w, http.StatusRequestTimeout, "request for "+who+" canceled by client")
		}
		return RouteCancelled
	case res.stopped:
		answer(w, http.StatusServiceUnavailable, bodyUnavailable(who))
		if rt.richRoutes {
			return RouteUnavailable
		}
		return RouteError
	case res.exhausted && rt.tr.budgetEndTimedOut:
		// agentgateway: the budget running out is a timeout, whatever
		// kept the flight waiting (ingress.rs 279-285, 324-329).
		answer(w, http.StatusGatewayTimeout, bodyTimedOut(who))
		return RouteTimeout
	}
	code, body := rt.statusFor(who, res.err)
	answer(w, code, body)
	return rt.routeOutcomeFor(res.err.Code)
}

// routeOutcomeFor is the route outcome of a resume that failed with c.
func (rt *router) routeOutcomeFor(c Code) RouteOutcome {
	if !rt.richRoutes {
		if c == NotFound {
			return RouteNotFound
		}
		return RouteError
	}
	switch c {
	case ResourceExhausted:
		return RouteNoCapacity
	case FailedPrecondition:
		return RouteFailedPrecondition
	case Aborted:
		return RouteLockConflict
	case Unavailable:
		return RouteUnavailable
	case NotFound:
		return RouteNotFound
	case DeadlineExceeded:
		return RouteTimeout
	}
	return RouteResumeError
}

// statusFor is the router's mapping of a resume failure to an HTTP answer.
func (rt *router) statusFor(who string, st *StatusError) (int, string) {
	switch st.Code {
	case ResourceExhausted, FailedPrecondition, Aborted:
		if rt.tr.passesDescription && !(st.Code == ResourceExhausted && rt.tr.unparkedExhaustionIs429) {
			// ateapi's own description is passed on (captures budget,
			// budget-newtext, budget-fp, code-Aborted, disabled;
			// agentgateway's `unavailable: <grpc msg>`).
			return http.StatusServiceUnavailable, who + " unavailable: " + st.Msg
		}
	}
	switch st.Code {
	case FailedPrecondition:
		return http.StatusServiceUnavailable, bodyNoFreeWorkers(who)
	case Aborted:
		if rt.tr.abortedIsResumeError {
			// PR #221's mapResumeError has no case for Aborted: a budget
			// spent on a contended actor is a 500 (errors.go, 4a8f978b).
			return http.StatusInternalServerError, bodyResumeError(who)
		}
		return http.StatusServiceUnavailable, bodyUnavailable(who)
	case Unavailable:
		return http.StatusServiceUnavailable, bodyUnavailable(who)
	case NotFound:
		return http.StatusNotFound, bodyNotFound(who)
	case DeadlineExceeded:
		return http.StatusGatewayTimeout, bodyTimedOut(who)
	case PermissionDenied:
		return http.StatusForbidden, bodyDenied(who)
	case Unauthenticated:
		return http.StatusUnauthorized, bodyUnauth(who)
	case ResourceExhausted:
		return http.StatusTooManyRequests, bodyRateLimited(who)
	}
	return http.StatusInternalServerError, bodyResumeError(who)
}

// serve is the worker answering the request, within Envoy's route timeout
// when one is set.
func (rt *router) serve(ctx context.Context, w http.ResponseWriter, a *actor, sa *servedAnswer) {
	defer a.done()
	if d := rt.cfg.ServiceTime; d > 0 {
		routeTimedOut := false
		if rt.cfg.RouteTimeout > 0 && d > rt.cfg.RouteTimeout {
			d, routeTimedOut = rt.cfg.RouteTimeout, true
		}
		if err := sleepCtx(ctx, d); err != nil {
			if errors.Is(context.Cause(ctx), errRequestTimeout) {
				answer(w, http.StatusGatewayTimeout, bodyTimedOut(rt.who(a.ref)))
			}
			return
		}
		if routeTimedOut {
			answer(w, http.StatusGatewayTimeout, envoyRouteTimeoutBody)
			return
		}
	}
	// Canonical keys, shared values: no per-request header work.
	h := w.Header()
	h["Content-Type"] = textPlain
	h["Content-Length"] = sa.length
	h["X-Actor"] = sa.actorHdr
	h["X-Worker"] = sa.workerHdr
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, sa.body)
}

// answer writes a text/plain body with no trailing newline.
func answer(w http.ResponseWriter, code int, body string) {
	h := w.Header()
	h["Content-Type"] = textPlain
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

// closeFlights stops new flights and waits for running ones to end.
func (rt *router) closeFlights() {
	rt.flightMu.Lock()
	rt.flightClosed = true
	rt.flightMu.Unlock()
	rt.flightWG.Wait()
}
