package router

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"time"
)

// Config is everything `shakectl sim router` can be told by flag; each field
// names its flag. Start from DefaultConfig: several zero values are
// meaningful (ParkedRequestMax 0 disables parking, ServiceTime 0 answers at
// once), so Start never replaces a zero with a default, except that an empty
// listen address means an ephemeral loopback port ("127.0.0.1:0").
type Config struct {
	// Model is the real router the simulator rehearses, --model: the seed
	// design (default), main (no parking) or PR #221. See Model.
	Model Model

	// Listen is the router (Envoy front) address, --listen.
	Listen string
	// MetricsListen serves Prometheus text on /metrics, --metrics-listen.
	MetricsListen string
	// StatusListen serves /statusz, --status-listen.
	StatusListen string

	// Listener, MetricsListener and StatusListener, when set, are used
	// instead of the addresses above (tests run the servers over a
	// MemListener inside a synctest bubble). Start takes ownership.
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
	// ParkedRequestMax is the parking-lot size; 0 disables parking,
	// --parked-request-max.
	ParkedRequestMax int
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
	// ext_proc cluster (>= ParkedRequestMax), --extproc-max-requests.
	ExtprocMaxRequests int
	// AllowBreakerBelowLot skips the startup rule ExtprocMaxRequests >=
	// ParkedRequestMax, to rehearse the misconfiguration the seed warns
	// about (Envoy truncating the lot), --allow-breaker-below-lot.
	AllowBreakerBelowLot bool

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

	// Seed seeds the jitter and AbortRate randomness; 0 picks one, --seed.
	Seed uint64
}

// Model names which real atenet router the simulator behaves like
// (reference/atenet-router.md has the measured differences).
type Model string

const (
	// ModelSeed is the design in seed 000_ (--parked-request-* flags,
	// budget_exhausted label, fast path for running actors).
	ModelSeed Model = "seed"
	// ModelMain is agent-substrate/substrate main 86e138f6: no parking at
	// all; a full pool is answered at once, no parking metrics, no statusz
	// parking card.
	ModelMain Model = "main"
	// ModelPR221 is PR #221 head 4a8f978b: parking with its Host form
	// <actor>.actors.resources.substrate.ate.dev, outcome="error" for a
	// spent budget, "canceled" for a stream deadline, no fast path, a
	// statusz max_wait written as a Go duration, and parking series that
	// appear only once used.
	ModelPR221 Model = "pr221"
)

// Models lists the valid --model values.
var Models = []Model{ModelSeed, ModelMain, ModelPR221}

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
	return nil
}

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

// ParkingEnabled reports whether requests are parked (ParkedRequestMax > 0).
// main never parks, whatever the lot size says.
func (c Config) ParkingEnabled() bool { return c.ParkedRequestMax > 0 && c.Model != ModelMain }

// model is Model with the zero value read as the seed.
func (c Config) model() Model {
	if c.Model == "" {
		return ModelSeed
	}
	return c.Model
}

// Validate checks the seed's startup rules and the simulator's own; each
// error names the flag and the rule it broke. All broken rules are reported.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	switch c.model() {
	case ModelSeed, ModelMain, ModelPR221:
	default:
		bad("--model %q: want seed, main or pr221", c.Model)
	}
	if c.Workers < 1 {
		bad("--workers must be at least 1 (got %d)", c.Workers)
	}
	if c.Actors < 0 || (c.Actors == 0 && !c.AnyActor) {
		bad("--actors must be at least 1, or use --any-actor (got %d)", c.Actors)
	}
	if err := checkLabel(c.Atespace); err != nil {
		bad("--atespace %q is not a valid atespace name: %v", c.Atespace, err)
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--resume-latency", c.ResumeLatency},
		{"--service-time", c.ServiceTime},
		{"--actor-idle", c.ActorIdle},
		{"--parked-request-budget", c.ParkedRequestBudget},
		{"--parked-request-retry-interval", c.ParkedRequestRetryInterval},
		{"--control-plane-latency", c.ControlPlaneLatency},
		{"--request-timeout", c.RequestTimeout},
	} {
		if d.v < 0 {
			bad("%s must not be negative (got %s)", d.flag, d.v)
		}
	}
	if c.ParkedRequestRetryInterval == 0 {
		// A zero first delay stays zero under any factor: the flight would
		// call the control plane in a tight loop.
		bad("--parked-request-retry-interval must be positive (got 0s)")
	}
	if c.ParkedRequestMax < 0 {
		bad("--parked-request-max must not be negative; 0 disables parking (got %d)", c.ParkedRequestMax)
	}
	if math.IsNaN(c.ParkedRequestRetryFactor) || math.IsInf(c.ParkedRequestRetryFactor, 0) || c.ParkedRequestRetryFactor < 1 {
		bad("--parked-request-retry-factor must be >= 1 (got %v)", c.ParkedRequestRetryFactor)
	}
	if math.IsNaN(c.ParkedRequestRetryJitter) || c.ParkedRequestRetryJitter < 0 || c.ParkedRequestRetryJitter >= 1 {
		bad("--parked-request-retry-jitter must be in [0, 1) (got %v)", c.ParkedRequestRetryJitter)
	}
	if c.ExtprocMaxRequests < 1 {
		bad("--extproc-max-requests must be at least 1 (got %d)", c.ExtprocMaxRequests)
	}
	if c.ExtprocMaxRequests < c.ParkedRequestMax && !c.AllowBreakerBelowLot {
		bad("--extproc-max-requests (%d) must be >= --parked-request-max (%d): a breaker below the lot makes Envoy reject parked requests with overflow 503s that never count in parking.rejected",
			c.ExtprocMaxRequests, c.ParkedRequestMax)
	}
	for _, w := range c.ControlPlaneUnavailable {
		if err := w.validate(); err != nil {
			bad("--control-plane-unavailable: %v", err)
		}
	}
	for _, l := range []struct {
		flag  string
		names []string
	}{{"--deny", c.Deny}, {"--unauth", c.Unauth}, {"--slow", c.Slow}, {"--fail", c.Fail}, {"--rate-limit", c.RateLimit}, {"--routing-fail", c.RoutingFail}} {
		for _, n := range l.names {
			if _, err := c.actorRef(n); err != nil {
				bad("%s: %v", l.flag, err)
			}
		}
	}
	for n := range c.Abort {
		if _, err := c.actorRef(n); err != nil {
			bad("--abort: %v", err)
		}
	}
	if math.IsNaN(c.AbortRate) || c.AbortRate < 0 || c.AbortRate > 1 {
		bad("--abort-rate must be in [0, 1] (got %v)", c.AbortRate)
	}
	for _, a := range []struct{ flag, addr string }{
		{"--listen", c.Listen}, {"--metrics-listen", c.MetricsListen}, {"--status-listen", c.StatusListen},
	} {
		if a.addr == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(a.addr); err != nil {
			bad("%s %q is not HOST:PORT: %v", a.flag, a.addr, err)
		}
	}
	return errors.Join(errs...)
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
