package router

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// Config is everything `shakectl sim router` can be told by flag; each field
// names its flag. Start from DefaultConfig: several zero values are
// meaningful (ParkedRequestMax 0 disables parking, ServiceTime 0 answers at
// once), so Start never replaces a zero with a default, except that an empty
// listen address means an ephemeral loopback port ("127.0.0.1:0").
type Config struct {
	// Model is the real router the simulator rehearses, --model: the seed
	// design (default), main (no parking), PR #221 or upstream main of
	// 2026-08. See Model.
	Model Model

	// Listen is the router (Envoy front) address, --listen.
	Listen string
	// MetricsListen serves Prometheus text on /metrics, --metrics-listen.
	MetricsListen string
	// StatusListen serves /statusz, --status-listen.
	StatusListen string

	// Listener, MetricsListener and StatusListener, when set, are used
	// instead of the addresses above (tests run the servers over a
	// memnet listener inside a synctest bubble). Start takes ownership.
	Listener, MetricsListener, StatusListener net.Listener

	// Workers is the size of the worker pool, --workers.
	Workers int
	// Actors is how many actors exist (actor-0001 … actor-NNNN) in
	// Atespace, --actors.
	Actors int
	// AnyActor makes every well-formed actor name in Atespace exist,
	// --any-actor.
	AnyActor bool
	// Atespace is the one atespace whose actors exist, --atespace.
	Atespace string

	// ResumeLatency is how long a successful resume takes, --resume-latency.
	ResumeLatency time.Duration
	// ServiceTime is how long a running actor takes to answer,
	// --service-time.
	ServiceTime time.Duration
	// ActorIdle is how long a running actor stays up without traffic
	// before it suspends and frees its worker; 0 means never, --actor-idle.
	ActorIdle time.Duration

	// ParkedRequestBudget is the park budget per resume flight,
	// --parked-request-budget.
	ParkedRequestBudget time.Duration
	// ParkedRequestMax is the parking-lot size, --parked-request-max. In
	// the seed model 0 disables parking; in the pr221 model it is PR #221's
	// --parking-max-parked, and 0 keeps parking on and sheds every request
	// ("router at capacity"), as PR #221 does.
	ParkedRequestMax int
	// ParkingDisabled is PR #221's --parking-enabled=false, the pr221
	// model's own switch: no lot, no parking series, one ResumeActor call
	// (only Aborted is retried), and a statusz card that says
	// "enabled":false and still shows the configured lot. The seed model
	// turns parking off with ParkedRequestMax 0 instead.
	ParkingDisabled bool
	// ParkedRequestRetryInterval is the delay before a flight's first
	// retry, --parked-request-retry-interval.
	ParkedRequestRetryInterval time.Duration
	// ParkedRequestRetryFactor multiplies the delay after each attempt
	// (>= 1), --parked-request-retry-factor.
	ParkedRequestRetryFactor float64
	// ParkedRequestRetryJitter is the random fraction in [0, 1) of the
	// delay added per retry, --parked-request-retry-jitter.
	ParkedRequestRetryJitter float64
	// ExtprocMaxRequests is Envoy's circuit-breaker max_requests for the
	// ext_proc cluster (>= ParkedRequestMax), --extproc-max-requests. In
	// the main-2026-08 model 0 derives it as the real router does: twice
	// the lot, at least 1024 (ExtprocBreaker).
	ExtprocMaxRequests int
	// AllowBreakerBelowLot skips the startup rule ExtprocMaxRequests >=
	// ParkedRequestMax, to rehearse the misconfiguration the seed warns
	// about (Envoy truncating the lot), --allow-breaker-below-lot.
	AllowBreakerBelowLot bool

	// PoolFullCode is the gRPC code ateapi's ResumeActor answers when no
	// worker is free, --pool-full-code; 0 means the model's own
	// (ResourceExhausted for main-2026-08, FailedPrecondition otherwise).
	PoolFullCode Code
	// PoolFullMessage is ateapi's text for a full pool, --pool-full-message;
	// empty means "no free workers available" (ateapi until 2026-08; newer
	// ateapi says "no worker has room for the actor").
	PoolFullMessage string

	// RouteTimeout is Envoy's route timeout, from the listener to the
	// actor's answer, not covering the resume (main-2026-08's
	// --route-timeout; 0: none). A worker slower than it gets Envoy's 504.
	RouteTimeout time.Duration
	// DrainDelay is how long a graceful stop keeps serving before it
	// drains (main-2026-08's --drain-delay).
	DrainDelay time.Duration
	// DrainTimeout bounds the drain of parked requests (main-2026-08's
	// --drain-timeout); 0 derives budget + 10s + 5s as the real router does.
	DrainTimeout time.Duration
	// DrainCompleteFile, when set, is created once the drain is over
	// (main-2026-08's --drain-complete-file; the marker a preStop hook waits
	// for). Empty: none.
	DrainCompleteFile string
	// Args is the command line statusz reports under "args"
	// (main-2026-08); empty shows "shakectl sim router".
	Args string

	// RequestTimeout is each request's own deadline when the client sends
	// no x-request-timeout header; 0 means none, --request-timeout.
	RequestTimeout time.Duration

	// ControlPlaneUnavailable lists windows, relative to Start, during which
	// every ResumeActor call answers Unavailable, --control-plane-unavailable.
	ControlPlaneUnavailable []Window
	// ControlPlaneLatency is added to every ResumeActor call,
	// --control-plane-latency.
	ControlPlaneLatency time.Duration
	// Deny, Unauth, Slow and Fail name actors ("actor-0001" or
	// "atespace/actor-0001") whose resume answers PermissionDenied (403),
	// Unauthenticated (401), DeadlineExceeded (504) or Internal (500):
	// --deny, --unauth, --slow, --fail.
	Deny, Unauth, Slow, Fail []string
	// NotFound names actors whose resume answers NotFound (404) although
	// they exist in --actors, --not-found.
	NotFound []string
	// RateLimit names actors whose resume answers ResourceExhausted (429
	// `actor "x" rate limited`), --rate-limit.
	RateLimit []string
	// RoutingFail names actors whose resume succeeds but whose worker
	// address is unusable (500 `actor "x" routing failed`; the real router
	// records the park as served), --routing-fail.
	RoutingFail []string
	// BreakerOverflow503 makes Envoy's breaker answer as an upstream-cluster
	// overflow (503 "reset reason: overflow" + x-envoy-overloaded) instead
	// of the ext_proc stream failure real Envoy sends (500, empty body),
	// --breaker-overflow-503.
	BreakerOverflow503 bool
	// ExtprocMessageTimeout emulates Envoy's ext_proc message_timeout
	// (max-wait + 5s with parking, else 5s): a request still in the
	// router after it gets Envoy's 504 with an empty body,
	// --extproc-message-timeout.
	ExtprocMessageTimeout bool
	// Abort maps an actor to how many of its next resumes answer Aborted (a
	// concurrent resume holds it, as from a second router replica); 0 or
	// less means every resume, --abort ACTOR[=N].
	Abort map[string]int
	// AbortRate is the probability in [0, 1] that any resume answers
	// Aborted, --abort-rate.
	AbortRate float64
	// Hold maps an actor ("actor-0001", "atespace/actor-0001", or "*" for
	// every actor) to how long its resumes answer FailedPrecondition "no
	// free workers available" although the pool may have room: the control
	// plane that "holds no free workers" in the real router's rehearsals.
	// The zero Hold never lets the actor have a worker; see Hold and
	// ParseHold, --hold ACTOR[=DURATION|=N].
	Hold map[string]Hold

	// Seed seeds the jitter and AbortRate randomness; 0 picks one, --seed.
	Seed uint64

	// Log, when set, gets the error lines of the simulator's HTTP
	// servers (a client's malformed request, a handler's panic); nil
	// drops them. shakectl's is the command's notifier.
	Log io.Writer
}

// Hold says how long an actor's resumes are refused with "no free workers
// available". For counts from the actor's first ResumeActor call; Times
// refuses that many calls. With both zero the actor never gets a worker.
type Hold struct {
	For   time.Duration
	Times int
}

// Forever reports whether the hold never ends.
func (h Hold) Forever() bool { return h.For == 0 && h.Times == 0 }

func (h Hold) String() string {
	switch {
	case h.For > 0:
		return h.For.String()
	case h.Times > 0:
		return strconv.Itoa(h.Times)
	}
	return "forever"
}

// HoldEveryActor is the --hold name that applies to every actor without
// a hold of its own.
const HoldEveryActor = "*"

// ParseHold reads a --hold value: ACTOR (never gets a worker), ACTOR=DURATION
// (refused for that long after its first resume, e.g. actor-0001=800ms) or
// ACTOR=N (its first N resumes refused). ACTOR may be "*": every actor.
func ParseHold(s string) (actor string, h Hold, err error) {
	actor, v, hasV := strings.Cut(strings.TrimSpace(s), "=")
	if actor == "" {
		return "", Hold{}, fielderr.Errorf("{Hold} %q: want ACTOR, ACTOR=DURATION or ACTOR=N", s)
	}
	if !hasV {
		return actor, Hold{}, nil
	}
	if n, nerr := strconv.Atoi(v); nerr == nil {
		h = Hold{Times: n}
	} else if d, derr := time.ParseDuration(v); derr == nil {
		h = Hold{For: d}
	} else {
		return "", Hold{}, fielderr.Errorf("{Hold} %q: %q is neither a duration (800ms) nor a count of resumes", s, v)
	}
	if h.Forever() {
		return "", Hold{}, fielderr.Errorf("{Hold} %q: the duration or count must be positive; give ACTOR alone for a hold that never ends", s)
	}
	if err := h.validate(); err != nil {
		return "", Hold{}, fielderr.Errorf("{Hold} %q: %v", s, err)
	}
	return actor, h, nil
}

func (h Hold) validate() error {
	if h.For < 0 || h.For > MaxDuration {
		return fmt.Errorf("duration must be in (0, %s] (got %s)", MaxDuration, h.For)
	}
	if h.Times < 0 || h.Times > MaxCount {
		return fmt.Errorf("count must be in [1, %d] (got %d)", MaxCount, h.Times)
	}
	if h.For > 0 && h.Times > 0 {
		return errors.New("give a duration or a count, not both")
	}
	return nil
}

// Window is a span of time, relative to the simulator's start, during which
// the control plane is unavailable.
type Window struct {
	Start, Duration time.Duration
}

func (w Window) String() string { return w.Start.String() + "+" + w.Duration.String() }

// contains reports whether the offset since start falls in the window.
func (w Window) contains(since time.Duration) bool {
	return since >= w.Start && since < w.Start+w.Duration
}

// ParseWindow reads START+DURATION, e.g. "2s+3s": unavailable from two
// seconds after start for three seconds.
func ParseWindow(s string) (Window, error) {
	start, dur, ok := strings.Cut(strings.TrimSpace(s), "+")
	if !ok {
		return Window{}, fmt.Errorf("invalid window %q: want START+DURATION, e.g. 2s+3s", s)
	}
	st, err := time.ParseDuration(strings.TrimSpace(start))
	if err != nil {
		return Window{}, fmt.Errorf("invalid window %q: start: %v", s, err)
	}
	d, err := time.ParseDuration(strings.TrimSpace(dur))
	if err != nil {
		return Window{}, fmt.Errorf("invalid window %q: duration: %v", s, err)
	}
	w := Window{Start: st, Duration: d}
	if err := w.validate(); err != nil {
		return Window{}, err
	}
	return w, nil
}

func (w Window) validate() error {
	if w.Start < 0 {
		return fmt.Errorf("control-plane unavailability window %s: start must not be negative", w)
	}
	if w.Duration <= 0 {
		return fmt.Errorf("control-plane unavailability window %s: duration must be positive", w)
	}
	if w.Start > MaxDuration || w.Duration > MaxDuration {
		return fmt.Errorf("control-plane unavailability window %s: start and duration must be at most %s", w, MaxDuration)
	}
	return nil
}

// Bounds on the sizes a user can ask for. A bound is far above anything a
// rehearsal needs and low enough that a typo (--workers 1000000000) is a
// usage error naming the flag, not minutes of start-up or gigabytes.
const (
	// MaxWorkers bounds --workers (workers are made as they are first
	// claimed, so a large pool costs nothing until used).
	MaxWorkers = 100_000
	// MaxActors bounds --actors.
	MaxActors = 10_000_000
	// MaxLot bounds --parked-request-max and --extproc-max-requests.
	MaxLot = 1_000_000
	// MaxDuration bounds every duration flag and window.
	MaxDuration = 24 * time.Hour
	// MaxRetryFactor bounds --parked-request-retry-factor.
	MaxRetryFactor = 100
	// MaxCount bounds --abort ACTOR=N and --hold ACTOR=N.
	MaxCount = 1_000_000
	// MaxNamedActors bounds how many actors the fault flags may name
	// together (--deny, --unauth, --slow, --fail, --rate-limit,
	// --routing-fail, --abort, --hold).
	MaxNamedActors = 100_000
	// MaxWindows bounds the --control-plane-unavailable windows.
	MaxWindows = 10_000
)

// Defaults, as `shakectl sim router --help` and the seed list them.
const (
	DefaultListen                     = "127.0.0.1:8080"
	DefaultMetricsListen              = "127.0.0.1:9090"
	DefaultStatusListen               = "127.0.0.1:4040"
	DefaultWorkers                    = 16
	DefaultActors                     = 100
	DefaultAtespace                   = "default"
	DefaultResumeLatency              = 20 * time.Millisecond
	DefaultServiceTime                = 5 * time.Millisecond
	DefaultActorIdle                  = 250 * time.Millisecond
	DefaultParkedRequestBudget        = 5 * time.Second
	DefaultParkedRequestMax           = 1024
	DefaultParkedRequestRetryInterval = 100 * time.Millisecond
	DefaultParkedRequestRetryFactor   = 1.1
	DefaultParkedRequestRetryJitter   = 0.1
	DefaultExtprocMaxRequests         = 2048
	// DisabledAbortedBudget bounds the retries of Aborted when parking is
	// disabled (the seed's 15 s).
	DisabledAbortedBudget = 15 * time.Second
)

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Model:                      ModelSeed,
		Listen:                     DefaultListen,
		MetricsListen:              DefaultMetricsListen,
		StatusListen:               DefaultStatusListen,
		Workers:                    DefaultWorkers,
		Actors:                     DefaultActors,
		Atespace:                   DefaultAtespace,
		ResumeLatency:              DefaultResumeLatency,
		ServiceTime:                DefaultServiceTime,
		ActorIdle:                  DefaultActorIdle,
		ParkedRequestBudget:        DefaultParkedRequestBudget,
		ParkedRequestMax:           DefaultParkedRequestMax,
		ParkedRequestRetryInterval: DefaultParkedRequestRetryInterval,
		ParkedRequestRetryFactor:   DefaultParkedRequestRetryFactor,
		ParkedRequestRetryJitter:   DefaultParkedRequestRetryJitter,
		ExtprocMaxRequests:         DefaultExtprocMaxRequests,
	}
}

// ExtprocBreaker is the ext_proc circuit breaker's max_requests in force:
// --extproc-max-requests, or, in a model that derives it (main-2026-08 and
// later) from 0, twice the lot and at least 1024 (2048 at the defaults),
// as 6210ad86 derives it. A model without Envoy (agentgateway) has none:
// MaxLot, above any lot.
func (c Config) ExtprocBreaker() int {
	switch c.traits().breaker {
	case breakerDerived:
		if c.ExtprocMaxRequests == 0 {
			return max(2*c.ParkedRequestMax, EnvoyDefaultMaxRequests)
		}
	case breakerNone:
		return MaxLot
	}
	return c.ExtprocMaxRequests
}

// poolFull is ateapi's answer to a resume when no worker is free.
func (c Config) poolFull() *StatusError {
	code := c.PoolFullCode
	if code == OK {
		code = c.traits().poolFull
	}
	msg := c.PoolFullMessage
	if msg == "" {
		msg = c.traits().poolFullText
	}
	if msg == "" {
		msg = msgNoFreeWorkers
	}
	return status(code, msg)
}

// ParkingEnabled reports whether requests are parked. main never parks;
// pr221 parks unless ParkingDisabled (a lot of 0 parks nothing and sheds
// everything, but parking is on); the others park when ParkedRequestMax > 0.
func (c Config) ParkingEnabled() bool {
	switch c.traits().parking {
	case parkingNever:
		return false
	case parkingOffByFlag:
		return !c.ParkingDisabled
	}
	return c.ParkedRequestMax > 0
}

// Validate checks the real routers' startup rules and the simulator's own;
// each error names the setting, as a fielderr {Field} placeholder (the
// command renders its flag), and the rule it broke. All broken rules are
// reported, joined.
func (c Config) Validate() error {
	var v validation
	tr, ok := modelRow(c.Model)
	if !ok {
		v.bad("{Model} %q: want %s", c.Model, ModelNames())
		tr = c.traits()
	}
	c.validateModelFlags(&v, tr)
	c.validateSizes(&v)
	c.validateDurations(&v)
	c.validateRetry(&v, tr)
	c.validateBreaker(&v, tr)
	if !c.validateFaults(&v) {
		return v.err()
	}
	c.validateAddrs(&v)
	return v.err()
}

// validation gathers every broken rule.
type validation struct{ errs []error }

func (v *validation) bad(format string, a ...any) {
	v.errs = append(v.errs, fielderr.Errorf(format, a...))
}
func (v *validation) err() error { return errors.Join(v.errs...) }

// validateModelFlags refuses the flags the configured model does not have.
func (c Config) validateModelFlags(v *validation, tr modelTraits) {
	if !tr.drainFlags {
		for _, d := range []struct {
			field string
			set   bool
		}{
			{"{RouteTimeout}", c.RouteTimeout != 0},
			{"{DrainDelay}", c.DrainDelay != 0},
			{"{DrainTimeout}", c.DrainTimeout != 0},
			{"{DrainCompleteFile}", c.DrainCompleteFile != ""},
		} {
			if d.set {
				v.bad(d.field+" is the flag of the routers from main-2026-08 on and needs {Model} %s", modelsWith(func(m modelTraits) bool { return m.drainFlags }))
			}
		}
	}
	// The real router's startup rule (6210ad86 cmd.go, as the reference
	// reads it).
	if tr.drainFlags && c.DrainTimeout > 0 && c.DrainTimeout < c.ParkedRequestBudget && c.ParkingEnabled() {
		v.bad("{DrainTimeout} (%s) must be >= {ParkedRequestBudget} (%s) while parking is on", c.DrainTimeout, c.ParkedRequestBudget)
	}
	if c.ParkingDisabled && tr.parking != parkingOffByFlag {
		v.bad("{ParkingDisabled} is PR #221's switch and needs {Model} pr221; the %s model turns parking off with {ParkedRequestMax} 0", tr.model)
	}
	switch c.PoolFullCode {
	case OK, ResourceExhausted, FailedPrecondition:
	default:
		v.bad("{PoolFullCode} %s: want ResourceExhausted or FailedPrecondition", c.PoolFullCode)
	}
	if err := checkLabel(c.Atespace); err != nil {
		v.bad("{Atespace} %q is not a valid atespace name: %v", c.Atespace, err)
	}
}

// modelsWith names the models whose row satisfies has.
func modelsWith(has func(modelTraits) bool) string {
	var names []string
	for _, m := range models {
		if has(m) {
			names = append(names, string(m.model))
		}
	}
	return strings.Join(names, " or ")
}

func (c Config) validateSizes(v *validation) {
	if c.Workers < 1 {
		v.bad("{Workers} must be at least 1 (got %d)", c.Workers)
	} else if c.Workers > MaxWorkers {
		v.bad("{Workers} must be at most %d (got %d)", MaxWorkers, c.Workers)
	}
	if c.Actors < 0 || (c.Actors == 0 && !c.AnyActor) {
		v.bad("{Actors} must be at least 1, or use {AnyActor} (got %d)", c.Actors)
	} else if c.Actors > MaxActors {
		v.bad("{Actors} must be at most %d (got %d)", MaxActors, c.Actors)
	}
}

func (c Config) validateDurations(v *validation) {
	for _, d := range []struct {
		field string
		v     time.Duration
	}{
		{"{ResumeLatency}", c.ResumeLatency},
		{"{ServiceTime}", c.ServiceTime},
		{"{ActorIdle}", c.ActorIdle},
		{"{ParkedRequestBudget}", c.ParkedRequestBudget},
		{"{ParkedRequestRetryInterval}", c.ParkedRequestRetryInterval},
		{"{ControlPlaneLatency}", c.ControlPlaneLatency},
		{"{RequestTimeout}", c.RequestTimeout},
		{"{RouteTimeout}", c.RouteTimeout},
		{"{DrainDelay}", c.DrainDelay},
		{"{DrainTimeout}", c.DrainTimeout},
	} {
		if d.v < 0 {
			v.bad(d.field+" must not be negative (got %s)", d.v)
		} else if d.v > MaxDuration {
			v.bad(d.field+" must be at most %s (got %s)", MaxDuration, d.v)
		}
	}
	if c.ParkedRequestRetryInterval == 0 {
		// A zero first delay stays zero under any factor: the flight would
		// call the control plane in a tight loop.
		v.bad("{ParkedRequestRetryInterval} must be positive (got 0s)")
	}
}

func (c Config) validateRetry(v *validation, tr modelTraits) {
	zeroLot := "0 disables parking"
	if tr.parking == parkingOffByFlag {
		zeroLot = "0 sheds every request"
	}
	if c.ParkedRequestMax < 0 {
		v.bad("{ParkedRequestMax} must not be negative; %s (got %d)", zeroLot, c.ParkedRequestMax)
	} else if c.ParkedRequestMax > MaxLot {
		v.bad("{ParkedRequestMax} must be at most %d (got %d)", MaxLot, c.ParkedRequestMax)
	}
	if math.IsNaN(c.ParkedRequestRetryFactor) || c.ParkedRequestRetryFactor < 1 {
		v.bad("{ParkedRequestRetryFactor} must be >= 1 (got %v)", c.ParkedRequestRetryFactor)
	} else if c.ParkedRequestRetryFactor > MaxRetryFactor {
		v.bad("{ParkedRequestRetryFactor} must be at most %d (got %v)", MaxRetryFactor, c.ParkedRequestRetryFactor)
	}
	if math.IsNaN(c.ParkedRequestRetryJitter) || c.ParkedRequestRetryJitter < 0 || c.ParkedRequestRetryJitter >= 1 {
		v.bad("{ParkedRequestRetryJitter} must be in [0, 1) (got %v)", c.ParkedRequestRetryJitter)
	}
}

func (c Config) validateBreaker(v *validation, tr modelTraits) {
	switch tr.breaker {
	case breakerNone:
		// No Envoy in front: --extproc-max-requests is not read.
	case breakerDerived:
		switch {
		case c.ExtprocMaxRequests < 0:
			v.bad("{ExtprocMaxRequests} must not be negative; 0 derives twice {ParkedRequestMax}, at least %d (got %d)", EnvoyDefaultMaxRequests, c.ExtprocMaxRequests)
		case c.ExtprocMaxRequests > 0 && c.ExtprocMaxRequests < c.ParkedRequestMax && !c.AllowBreakerBelowLot:
			// The real router's own words.
			v.bad("{ExtprocMaxRequests} (%d) must be >= {ParkedRequestMax} (%d): a circuit breaker below the parking lot silently truncates it with Envoy-generated 503s",
				c.ExtprocMaxRequests, c.ParkedRequestMax)
		case c.ExtprocMaxRequests > MaxLot:
			v.bad("{ExtprocMaxRequests} must be at most %d (got %d)", MaxLot, c.ExtprocMaxRequests)
		}
	default:
		switch {
		case c.ExtprocMaxRequests < 1:
			v.bad("{ExtprocMaxRequests} must be at least 1 (got %d)", c.ExtprocMaxRequests)
		case c.ExtprocMaxRequests > MaxLot:
			v.bad("{ExtprocMaxRequests} must be at most %d (got %d)", MaxLot, c.ExtprocMaxRequests)
		}
		if c.ExtprocMaxRequests < c.ParkedRequestMax && !c.AllowBreakerBelowLot {
			v.bad("{ExtprocMaxRequests} (%d) must be >= {ParkedRequestMax} (%d): a breaker below the lot makes Envoy reject parked requests with overflow 503s that never count in parking.rejected",
				c.ExtprocMaxRequests, c.ParkedRequestMax)
		}
	}
}

// validateFaults checks the fault-injection settings; false when the
// names are too many to walk.
func (c Config) validateFaults(v *validation) bool {
	if n := len(c.ControlPlaneUnavailable); n > MaxWindows {
		v.bad("{ControlPlaneUnavailable}: at most %d windows (got %d)", MaxWindows, n)
	} else {
		for _, w := range c.ControlPlaneUnavailable {
			if err := w.validate(); err != nil {
				v.bad("{ControlPlaneUnavailable}: %v", err)
			}
		}
	}
	if n := len(c.Deny) + len(c.Unauth) + len(c.Slow) + len(c.Fail) + len(c.NotFound) + len(c.RateLimit) + len(c.RoutingFail) + len(c.Abort) + len(c.Hold); n > MaxNamedActors {
		// Checked before the names, so a huge list is not walked.
		v.bad("the fault flags name %d actors together; at most %d", n, MaxNamedActors)
		return false
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"{Deny}", c.Deny}, {"{Unauth}", c.Unauth}, {"{Slow}", c.Slow}, {"{Fail}", c.Fail}, {"{NotFound}", c.NotFound}, {"{RateLimit}", c.RateLimit}, {"{RoutingFail}", c.RoutingFail}} {
		for _, n := range l.names {
			if _, err := c.actorRef(n); err != nil {
				v.bad(l.field+": %v", err)
			}
		}
	}
	for n, times := range c.Abort {
		if _, err := c.actorRef(n); err != nil {
			v.bad("{Abort}: %v", err)
		}
		if times > MaxCount {
			v.bad("{Abort} %s=%d: at most %d resumes", n, times, MaxCount)
		}
	}
	for n, h := range c.Hold {
		if n != HoldEveryActor {
			if _, err := c.actorRef(n); err != nil {
				v.bad("{Hold}: %v", err)
			}
		}
		if err := h.validate(); err != nil {
			v.bad("{Hold} %s: %v", n, err)
		}
	}
	if math.IsNaN(c.AbortRate) || c.AbortRate < 0 || c.AbortRate > 1 {
		v.bad("{AbortRate} must be in [0, 1] (got %v)", c.AbortRate)
	}
	return true
}

func (c Config) validateAddrs(v *validation) {
	for _, a := range []struct{ field, addr string }{
		{"{Listen}", c.Listen}, {"{MetricsListen}", c.MetricsListen}, {"{StatusListen}", c.StatusListen},
	} {
		if a.addr == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(a.addr); err != nil {
			v.bad(a.field+" %q is not HOST:PORT: %v", a.addr, err)
		}
	}
}

// actorRef turns a fault-injection name ("actor-0001" or
// "atespace/actor-0001") into the atespace/name reference.
func (c Config) actorRef(name string) (string, error) {
	space, actor, ok := strings.Cut(name, "/")
	if !ok {
		space, actor = c.Atespace, name
	}
	if err := checkLabel(space); err != nil {
		return "", fmt.Errorf("actor %q: atespace: %v", name, err)
	}
	if err := checkLabel(actor); err != nil {
		return "", fmt.Errorf("actor %q: %v", name, err)
	}
	return space + "/" + actor, nil
}

// PR #221's built-in settings (atenet router --help and xDS at 4a8f978b):
// a lot of 2048, a 30s max wait, a first retry after 500ms, and no breaker
// set on the ext_proc cluster, so Envoy's default max_requests of 1024
// applies, below the lot.
const (
	PR221ParkedRequestMax           = 2048
	PR221ParkedRequestBudget        = 30 * time.Second
	PR221ParkedRequestRetryInterval = 500 * time.Millisecond
	EnvoyDefaultMaxRequests         = 1024
)

// Upstream main 2026-08's built-in defaults where they differ from the
// seed's (6210ad86 cmd.go, as the reference reads them): the ext_proc
// breaker derived from the lot, and Envoy's route timeout.
const (
	Main202608RouteTimeout = 10 * time.Second
	// DrainRouteTimeout is the route timeout 6210ad86 adds to a derived
	// --drain-timeout: the default's, whatever --route-timeout says.
	DrainRouteTimeout = 10 * time.Second
)

// ApplyMain202608Defaults puts upstream main 2026-08's defaults in every
// setting whose flag was not set (changed reports whether one was). The
// drain flags keep the simulator's 0s and "" (the captured runs' values;
// the real defaults, 13s and /var/run/atenet/drain-complete, would make
// Ctrl-C wait and write outside the user's files).
func ApplyMain202608Defaults(c *Config, changed func(flag string) bool) {
	if !changed("extproc-max-requests") {
		c.ExtprocMaxRequests = 0
	}
	if !changed("route-timeout") {
		c.RouteTimeout = Main202608RouteTimeout
	}
}

// ApplyPR221Defaults puts PR #221's defaults in every parking setting whose
// flag was not set (changed reports whether one was).
func ApplyPR221Defaults(c *Config, changed func(flag string) bool) {
	if !changed("parked-request-max") {
		c.ParkedRequestMax = PR221ParkedRequestMax
	}
	if !changed("parked-request-budget") {
		c.ParkedRequestBudget = PR221ParkedRequestBudget
	}
	if !changed("parked-request-retry-interval") {
		c.ParkedRequestRetryInterval = PR221ParkedRequestRetryInterval
	}
	if !changed("extproc-max-requests") {
		c.ExtprocMaxRequests = EnvoyDefaultMaxRequests
		// The real deployment has the breaker below the lot.
		c.AllowBreakerBelowLot = true
	}
}
