package sim

import (
	"context"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/flagtable"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/sim/router"
)

type RouterOptions struct {
	Cfg     router.Config
	windows []string
	aborts  []string
	holds   []string
	// parkingEnabled is pr221's --parking-enabled; false sets
	// Cfg.ParkingDisabled.
	parkingEnabled bool
	// poolFullCode is --pool-full-code's spelling of Cfg.PoolFullCode.
	poolFullCode string
	// args is the command line, for main-2026-08's statusz "args".
	args string
	// onStart, when set (tests), sees the running simulator.
	onStart func(*router.Server)
	// Changed reports whether a flag was set on the command line.
	Changed func(name string) bool
}

// NewCmdRouter runs the atenet router simulator until interrupted.
func NewCmdRouter(f *cmdutil.Factory) *cobra.Command { return newCmdRouter(f, nil) }

func newCmdRouter(f *cmdutil.Factory, onStart func(*router.Server)) *cobra.Command {
	opts := &RouterOptions{Cfg: router.DefaultConfig(), onStart: onStart}
	c := cmdutil.Local(&cobra.Command{
		Use:   "router",
		Short: "Run a simulated atenet router that parks requests like a real one",
		Long: `Run one process that plays Envoy, the atenet router, the ateapi control plane
and a worker pool, implementing request parking as the atenet design says,
until Ctrl-C or SIGTERM. It is the reference target for parking-probe.

Which dataplane it models (--model):
` + router.ModelHelp(RouterFlagName) + `
The three URLs (router, metrics, status) go to stdout, one "NAME URL" per
line, or as one JSON object with -o json (agentgateway has no statusz, so
no status URL); everything else goes to stderr.

Requests name their actor in the Host header,
<actor>.<atespace>.actors.resources.substrate.ate.dev (any port, any path),
or, under after-1229 and agentgateway, in the header
ate-target-actor: <atespace>/<actor>.
Actors actor-0001…actor-NNNN (--actors) exist in --atespace, or every name
with --any-actor; all start suspended. A request for a running actor is
served by its worker (--service-time) with a 200. A request for a suspended
actor resumes it: ResumeActor claims a free worker (--resume-latency) or
answers FailedPrecondition "no free workers available". A running actor
suspends after --actor-idle without traffic, freeing its worker.

Parking (on unless --parked-request-max=0, or --parking-enabled=false
under pr221): FailedPrecondition, Unavailable
and Aborted are retried with exponential backoff (--parked-request-retry-*,
no cap, no attempt limit) until the resume succeeds or the per-flight budget
(--parked-request-budget) elapses. Concurrent requests for one actor share
one resume flight: one control-plane call, one budget; each takes a lot slot.
A full lot sheds at once. With parking disabled, FailedPrecondition and
Unavailable fail at once and only Aborted is retried, within 15s.

Answers (text/plain, no trailing newline; under seed, main, pr221 and
agentgateway the id is quoted, without the atespace, as those dataplanes
write it; main-2026-08 and after-1229 write actor <atespace>/<id> instead;
agentgateway's own endings are described above):
  200 actor <atespace>/<id> served by worker-NN (IP)
  404 invalid host "<host>": <why>          Host does not name an actor
  404 actor "<id>" not found                NotFound
  503 actor "<id>" unavailable: router at capacity       lot full (shed)
  503 actor "<id>" unavailable: no free workers available  budget spent on
                                            a full pool (or no parking)
  503 actor "<id>" unavailable              control plane unavailable or
                                            Aborted at budget end
  504 actor "<id>" request timed out        DeadlineExceeded, or the
                                            request's own deadline
  403 actor "<id>" access denied            PermissionDenied
  401 actor "<id>" authentication required  Unauthenticated
  429 actor "<id>" rate limited             ResourceExhausted (--rate-limit)
  500 actor "<id>" routing failed           bad worker IP (--routing-fail)
  500 error resuming actor "<id>"           any other resume error
  500 (empty body)                          Envoy: more than
                                            --extproc-max-requests requests
                                            in the router at once (ext_proc
                                            stream failure, status_on_error)
  503 upstream connect error or disconnect/reset before headers. reset
      reason: overflow (x-envoy-overloaded: true)
                                            the same, with
                                            --breaker-overflow-503 (what an
                                            upstream cluster's breaker sends)
  504 (empty body)                          Envoy's ext_proc message timeout
                                            (--extproc-message-timeout):
                                            budget + 5s, or 5s unparked

A request's own deadline is its x-request-timeout header (a duration such as
1.5s, or seconds such as 2), else --request-timeout; when it expires while
parked the request is answered 504 and recorded with outcome "timeout".

Metrics (Prometheus text on --metrics-listen, path /metrics):
atenet_router_parking_active, atenet_router_parking_rejected_total and
atenet_router_parking_wait_duration_seconds{outcome=served|budget_exhausted|
canceled|timeout|error}. /statusz on --status-listen shows the "Request
Parking" card as HTML, or as JSON with ?format=json or Accept:
application/json: {"parking": {"enabled", "active", "max_parked",
"max_wait"}}, max_wait being the park budget as a Go duration ("5s").

On Ctrl-C or SIGTERM the simulator stops accepting connections and answers
every parked request (each finishes its park, within the budget) before it
exits with status 0.`,
		Example: `  # The defaults: 16 workers, 100 actors, the real router's parking settings
  shakectl sim router

  # Saturate a small pool, and probe it from another terminal
  shakectl sim router --workers 2 --actors 50 --actor-idle 100ms
  shakectl parking-probe --target http://127.0.0.1:8080 --actors 50 --mode burst --requests 500 \
      --metrics-url http://127.0.0.1:9090/metrics --statusz-url http://127.0.0.1:4040/statusz

  # Rehearse an ateapi rolling restart 2s after start, lasting 3s
  shakectl sim router --control-plane-unavailable 2s+3s

  # Fail-fast answers for chosen actors, and a concurrent resume on another
  shakectl sim router --deny actor-0001 --unauth actor-0002 --slow actor-0003 --abort actor-0004=3

  # Parking disabled: fail fast
  shakectl sim router --parked-request-max 0

  # Rehearse a pool that frees a worker for actor-0001 only after 3s, and
  # never for actor-0002
  shakectl sim router --hold actor-0001=3s --hold actor-0002

  # The router as it runs today (upstream main 2026-08), with ateapi's newest
  # text for a full pool
  shakectl sim router --model main-2026-08 --atespace demo-ns \
      --pool-full-message 'no worker has room for the actor'

  # The router on substrate main (no parking) and PR #221's parking router
  shakectl sim router --model main
  shakectl sim router --model pr221
  shakectl parking-probe --target http://127.0.0.1:8080 \
      --host-template '{actor}.actors.resources.substrate.ate.dev' ...`,
	}, func(c *cobra.Command, _ []string) error {
		opts.Changed = func(name string) bool { return c.Flags().Changed(name) }
		opts.args = commandLine(c)
		return runRouter(f, opts)
	})
	bindRouterFlags(c.Flags(), opts)
	return c
}

// BuildConfig completes the configuration from the flags that need
// parsing, and checks it; every problem is a usage error.
func (o *RouterOptions) BuildConfig() (router.Config, error) {
	cfg := o.Cfg
	if o.Changed != nil {
		router.ApplyModelDefaults(&cfg, o.Changed)
	}
	if cfg.Args == "" {
		cfg.Args = o.args
	}
	switch o.poolFullCode {
	case "":
	case "ResourceExhausted":
		cfg.PoolFullCode = router.ResourceExhausted
	case "FailedPrecondition":
		cfg.PoolFullCode = router.FailedPrecondition
	default:
		return cfg, cmdutil.UsageErrorf("--pool-full-code %q: want ResourceExhausted or FailedPrecondition", o.poolFullCode)
	}
	for _, s := range o.windows {
		w, err := router.ParseWindow(s)
		if err != nil {
			return cfg, cmdutil.UsageErrorf("--control-plane-unavailable: %s", err)
		}
		cfg.ControlPlaneUnavailable = append(cfg.ControlPlaneUnavailable, w)
	}
	if len(o.aborts) > 0 {
		cfg.Abort = make(map[string]int, len(o.aborts))
		for _, s := range o.aborts {
			actor, times, hasTimes := strings.Cut(s, "=")
			n := 0
			if hasTimes {
				var err error
				if n, err = strconv.Atoi(times); err != nil || n < 1 {
					return cfg, cmdutil.UsageErrorf("--abort %q: want ACTOR or ACTOR=N with N a positive number", s)
				}
			}
			cfg.Abort[actor] = n
		}
	}
	if o.Changed != nil && o.Changed("parking-enabled") {
		cfg.ParkingDisabled = !o.parkingEnabled
	}
	for _, s := range o.holds {
		actor, h, err := router.ParseHold(s)
		if err != nil {
			return cfg, routerError(err)
		}
		if cfg.Hold == nil {
			cfg.Hold = make(map[string]router.Hold, len(o.holds))
		}
		cfg.Hold[actor] = h
	}
	if err := cfg.Validate(); err != nil {
		return cfg, routerError(err)
	}
	return cfg, nil
}

func runRouter(f *cmdutil.Factory, opts *RouterOptions) error {
	cfg, err := opts.BuildConfig()
	if err != nil {
		return err
	}
	conf, err := f.Config()
	if err != nil {
		return err
	}
	// The servers' error lines are notes, as every stderr line.
	n := f.IOStreams.Notifier()
	cfg.Log = n.Lines("log")
	ctx := f.Context
	if err := RouterListeners(ctx, f, &cfg); err != nil {
		return err
	}
	srv, err := router.Start(ctx, cfg)
	if err != nil {
		return fielderr.Rendered(err, RouterFlagName)
	}
	defer srv.Close()

	for _, w := range RouterWarnings(srv.Addrs()) {
		n.Warn(w)
	}
	// The banner comes before the URLs, as sim cluster's does: the URLs on
	// stdout are the signal that start-up is over, for scripts and tests.
	n.Block("banner", routerBanner(cfg))
	urls := map[string]string{"router_url": srv.URL(), "metrics_url": srv.MetricsURL()}
	if cfg.HasStatusz() {
		urls["statusz_url"] = srv.StatusURL()
	}
	if conf.JSONOutput() {
		fmt.Fprintln(f.IOStreams.Out, output.JSONLine(urls))
	} else {
		// One write: a script may read the URLs as soon as the first is out.
		lines := fmt.Sprintf("router   %s\nmetrics  %s\n", urls["router_url"], urls["metrics_url"])
		if cfg.HasStatusz() {
			lines += fmt.Sprintf("statusz  %s\n", urls["statusz_url"])
		}
		fmt.Fprint(f.IOStreams.Out, lines)
	}
	if opts.onStart != nil {
		opts.onStart(srv)
	}

	<-ctx.Done()
	if p := srv.Status().Parking; p != nil && p.Active > 0 {
		n.Note("shutting_down", fmt.Sprintf("sim router: shutting down; answering %d parked request(s) first", p.Active))
	} else {
		n.Note("shutting_down", "sim router: shutting down")
	}
	return fielderr.Rendered(srv.Close(), RouterFlagName)
}

// RouterListeners opens cfg's three addresses on the factory's network
// (Factory.Net), for `sim router` and the demo; with the machine's
// TCP they stay nil and router.Start listens itself.
func RouterListeners(ctx context.Context, f *cmdutil.Factory, cfg *router.Config) error {
	for _, p := range []struct {
		addr string
		ln   *net.Listener
	}{{cfg.Listen, &cfg.Listener}, {cfg.MetricsListen, &cfg.MetricsListener}, {cfg.StatusListen, &cfg.StatusListener}} {
		ln, err := network.Listener(ctx, f.Net, p.addr)
		if err != nil {
			for _, l := range []net.Listener{cfg.Listener, cfg.MetricsListener, cfg.StatusListener} {
				if l != nil {
					_ = l.Close()
				}
			}
			return err
		}
		*p.ln = ln
	}
	return nil
}

// commandLine is the command as given, flags written --name=value, for
// main-2026-08's statusz "args" (the real router shows its own command
// line there).
func commandLine(c *cobra.Command) string {
	parts := []string{c.CommandPath()}
	c.Flags().Visit(func(f *pflag.Flag) {
		parts = append(parts, "--"+f.Name+"="+f.Value.String())
	})
	return strings.Join(parts, " ")
}

// RouterWarnings warns about each endpoint other machines can reach.
func RouterWarnings(addrs [3]net.Addr) []string {
	var warnings []string
	for i, name := range [3]string{"router", "metrics", "status"} {
		if !router.IsLoopback(addrs[i]) {
			warnings = append(warnings, fmt.Sprintf("the %s endpoint listens on %s, which other machines can reach; the simulator has no authentication", name, addrs[i]))
		}
	}
	return warnings
}

// routerBanner is what the simulator says when it starts.
func routerBanner(cfg router.Config) string {
	var w strings.Builder
	actors := fmt.Sprintf("%d actors (actor-0001…%s)", cfg.Actors, router.ActorName(cfg.Actors))
	if cfg.AnyActor {
		actors = "any actor"
	}
	fmt.Fprintf(&w, "atenet router simulator: %d workers, %s in atespace %q, resume %s, service %s, idle %s\n",
		cfg.Workers, actors, cfg.Atespace, cfg.ResumeLatency, cfg.ServiceTime, cfg.ActorIdle)
	fmt.Fprintf(&w, "model %s\n", cfg.Model)
	breaker := "; no ext_proc breaker (no Envoy in front)"
	if cfg.HasExtprocBreaker() {
		breaker = fmt.Sprintf("; ext_proc breaker %d", cfg.ExtprocBreaker())
	}
	if cfg.ParkingEnabled() {
		fmt.Fprintf(&w, "parking on: lot %d, budget %s, retry %s ×%g +%g jitter%s\n",
			cfg.ParkedRequestMax, cfg.ParkedRequestBudget, cfg.ParkedRequestRetryInterval,
			cfg.ParkedRequestRetryFactor, cfg.RetryJitter(), breaker)
	} else {
		fmt.Fprintf(&w, "parking off: fail fast, Aborted retried within 15s%s\n", breaker)
	}
	fmt.Fprintf(&w, "address actors as %s\n", cfg.AddressExample())
	fmt.Fprintln(&w, "Press Ctrl-C to stop.")
	return w.String()
}

// routerFlags are sim router's flags. Most write straight into a
// router.Config field; the rest into RouterOptions, what the command
// parses itself. Each names the field the router's errors give the value
// ({Workers}, {ParkedRequestMax}), so an error names the flag the user
// typed: the library names fields, and this table alone knows flags.
func routerFlags() flagtable.Table[*router.Config, *RouterOptions] {
	type (
		fs = *pflag.FlagSet
		rc = *router.Config
		op = *RouterOptions
	)
	return flagtable.Table[*router.Config, *RouterOptions]{
		{Field: "Model", Name: "model", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar((*string)(&d.Model), n, string(d.Model), "which real dataplane to behave like: "+router.ModelNames()+" (each is described above)")
		}},
		{Field: "Listen", Name: "listen", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar(&d.Listen, n, d.Listen, "router (Envoy) address, HOST:PORT; port 0 picks a free one")
		}},
		{Field: "MetricsListen", Name: "metrics-listen", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar(&d.MetricsListen, n, d.MetricsListen, "Prometheus /metrics address")
		}},
		{Field: "StatusListen", Name: "status-listen", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar(&d.StatusListen, n, d.StatusListen, "/statusz address")
		}},
		{Field: "Workers", Name: "workers", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.Workers, n, d.Workers, numflag.Between(1, router.MaxWorkers), "workers in the pool; a running actor holds one")
		}},
		{Field: "Actors", Name: "actors", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.Actors, n, d.Actors, numflag.Between(0, router.MaxActors), "known actors, actor-0001…actor-NNNN (0 only with --any-actor)")
		}},
		{Field: "AnyActor", Name: "any-actor", Define: func(fl fs, n string, d rc, opts op) {
			fl.BoolVar(&d.AnyActor, n, d.AnyActor, "every well-formed actor name in --atespace exists")
		}},
		{Field: "Atespace", Name: "atespace", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar(&d.Atespace, n, d.Atespace, "the atespace the actors live in")
		}},
		{Field: "ResumeLatency", Name: "resume-latency", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ResumeLatency, n, d.ResumeLatency, numflag.Between(0, router.MaxDuration), "how long a successful resume takes")
		}},
		{Field: "ServiceTime", Name: "service-time", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ServiceTime, n, d.ServiceTime, numflag.Between(0, router.MaxDuration), "how long a running actor takes to answer")
		}},
		{Field: "ActorIdle", Name: "actor-idle", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ActorIdle, n, d.ActorIdle, numflag.Between(0, router.MaxDuration), "idle time after which a running actor suspends and frees its worker (0: never)")
		}},
		{Field: "ParkedRequestBudget", Name: "parked-request-budget", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ParkedRequestBudget, n, d.ParkedRequestBudget, numflag.Between(0, router.MaxDuration), "park budget per resume flight; requests joining an in-flight resume share its remaining budget")
		}},
		{Field: "ParkedRequestMax", Name: "parked-request-max", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ParkedRequestMax, n, d.ParkedRequestMax, numflag.Between(0, router.MaxLot), "max concurrent parked/in-flight resume requests; excess shed (503); 0 disables parking (seed), or keeps parking on and sheds every request (pr221)")
		}},
		{Field: "ParkingDisabled", Name: "parking-enabled", Define: func(fl fs, n string, d rc, opts op) {
			fl.BoolVar(&opts.parkingEnabled, n, true, "pr221 model: park requests (PR #221's --parking-enabled); false fails fast, exports no parking series, and statusz shows enabled:false with the configured lot")
		}},
		{Field: "Hold", Name: "hold", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringArrayVar(&opts.holds, n, nil, "ACTOR[=DURATION|=N]: the actor's resumes answer 'no free workers available' for DURATION after its first resume, for its first N resumes, or for ever; ACTOR '*' means every actor (repeatable)")
		}},
		{Field: "ParkedRequestRetryInterval", Name: "parked-request-retry-interval", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ParkedRequestRetryInterval, n, d.ParkedRequestRetryInterval, numflag.Above(0, router.MaxDuration), "delay before a parked request's first resume retry")
		}},
		{Field: "ParkedRequestRetryFactor", Name: "parked-request-retry-factor", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ParkedRequestRetryFactor, n, d.ParkedRequestRetryFactor, numflag.Between[float64](1, router.MaxRetryFactor), "multiplier applied to the retry delay after each attempt")
		}},
		{Field: "ParkedRequestRetryJitter", Name: "parked-request-retry-jitter", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ParkedRequestRetryJitter, n, d.ParkedRequestRetryJitter, numflag.Below[float64](0, 1), "random fraction of the delay added per retry")
		}},
		{Field: "ExtprocMaxRequests", Name: "extproc-max-requests", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ExtprocMaxRequests, n, d.ExtprocMaxRequests, numflag.Between(0, router.MaxLot), "Envoy circuit-breaker max_requests for the ext_proc cluster; must be >= --parked-request-max (main-2026-08: default 0, which derives twice the lot, at least 1024)")
		}},
		{Field: "AllowBreakerBelowLot", Name: "allow-breaker-below-lot", Define: func(fl fs, n string, d rc, opts op) {
			fl.BoolVar(&d.AllowBreakerBelowLot, n, false, "permit --extproc-max-requests below --parked-request-max, to rehearse Envoy truncating the lot")
		}},
		{Field: "RequestTimeout", Name: "request-timeout", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.RequestTimeout, n, d.RequestTimeout, numflag.Between(0, router.MaxDuration), "each request's own deadline when it sends no x-request-timeout header (0: none)")
		}},
		{Field: "ControlPlaneUnavailable", Name: "control-plane-unavailable", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringArrayVar(&opts.windows, n, nil, "START+DURATION after start during which ResumeActor answers Unavailable, e.g. 2s+3s (repeatable)")
		}},
		{Field: "ControlPlaneLatency", Name: "control-plane-latency", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.ControlPlaneLatency, n, d.ControlPlaneLatency, numflag.Between(0, router.MaxDuration), "latency added to every ResumeActor call")
		}},
		{Field: "Deny", Name: "deny", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringSliceVar(&d.Deny, n, nil, "actors whose resume answers PermissionDenied (403) (repeatable or comma-separated)")
		}},
		{Field: "Unauth", Name: "unauth", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringSliceVar(&d.Unauth, n, nil, "actors whose resume answers Unauthenticated (401)")
		}},
		{Field: "Slow", Name: "slow", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringSliceVar(&d.Slow, n, nil, "actors whose resume runs into its deadline: DeadlineExceeded (504)")
		}},
		{Field: "Fail", Name: "fail", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringSliceVar(&d.Fail, n, nil, "actors whose resume fails with an internal error (500)")
		}},
		{Field: "NotFound", Name: "not-found", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringSliceVar(&d.NotFound, n, nil, "actors whose resume answers NotFound (404) although they exist")
		}},
		{Field: "PoolFullCode", Name: "pool-full-code", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar(&opts.poolFullCode, n, "", "gRPC code ateapi answers for a full pool: ResourceExhausted or FailedPrecondition (default: ResourceExhausted under main-2026-08, else FailedPrecondition)")
		}},
		{Field: "PoolFullMessage", Name: "pool-full-message", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar(&d.PoolFullMessage, n, "", `ateapi's text for a full pool (default "no free workers available"; newer ateapi says "no worker has room for the actor")`)
		}},
		{Field: "RouteTimeout", Name: "route-timeout", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.RouteTimeout, n, d.RouteTimeout, numflag.Between(0, router.MaxDuration), "main-2026-08: Envoy's route timeout from the listener to the actor's answer, not covering the resume; a slower worker gets Envoy's 504 (default 10s under main-2026-08)")
		}},
		{Field: "DrainDelay", Name: "drain-delay", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.DrainDelay, n, d.DrainDelay, numflag.Between(0, router.MaxDuration), "main-2026-08: how long to keep serving after Ctrl-C or SIGTERM before draining (the real router's default is 13s)")
		}},
		{Field: "DrainTimeout", Name: "drain-timeout", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.DrainTimeout, n, d.DrainTimeout, numflag.Between(0, router.MaxDuration), "main-2026-08: bound on draining parked requests; 0 derives budget + 10s + 5s; must be >= --parked-request-budget while parking is on")
		}},
		{Field: "DrainCompleteFile", Name: "drain-complete-file", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringVar(&d.DrainCompleteFile, n, d.DrainCompleteFile, "main-2026-08: file created once the drain is over, for a preStop hook (empty: none; the real router's default is /var/run/atenet/drain-complete)")
		}},
		{Field: "RateLimit", Name: "rate-limit", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringSliceVar(&d.RateLimit, n, nil, "actors whose resume answers ResourceExhausted (429 rate limited)")
		}},
		{Field: "RoutingFail", Name: "routing-fail", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringSliceVar(&d.RoutingFail, n, nil, "actors that resume but whose worker address is bad (500 routing failed)")
		}},
		{Field: "BreakerOverflow503", Name: "breaker-overflow-503", Define: func(fl fs, n string, d rc, opts op) {
			fl.BoolVar(&d.BreakerOverflow503, n, false, "answer ext_proc breaker overflow as an upstream cluster's 503 (x-envoy-overloaded) instead of real Envoy's empty 500")
		}},
		{Field: "ExtprocMessageTimeout", Name: "extproc-message-timeout", Define: func(fl fs, n string, d rc, opts op) {
			fl.BoolVar(&d.ExtprocMessageTimeout, n, false, "emulate Envoy's ext_proc message timeout (budget + 5s, or 5s without parking): an empty 504")
		}},
		{Field: "Abort", Name: "abort", Define: func(fl fs, n string, d rc, opts op) {
			fl.StringArrayVar(&opts.aborts, n, nil, "ACTOR[=N]: the actor's next N resumes (default: all) answer Aborted, as when another router replica resumes it (repeatable)")
		}},
		{Field: "AbortRate", Name: "abort-rate", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.AbortRate, n, d.AbortRate, numflag.Between[float64](0, 1), "probability that any resume answers Aborted")
		}},
		{Field: "Seed", Name: "seed", Define: func(fl fs, n string, d rc, opts op) {
			numflag.Var(fl, &d.Seed, n, 0, numflag.Between[uint64](0, math.MaxUint64), "seed for jitter and --abort-rate (0: random)")
		}},
	}
}

// bindRouterFlags defines every flag of the table on fl, bound into
// opts.Cfg (whose values are the defaults) and opts.
func bindRouterFlags(fl *pflag.FlagSet, opts *RouterOptions) { routerTable().Bind(fl, &opts.Cfg, opts) }

// routerTable is routerFlags, built once per process: every command tree
// renders the model help's flags with it.
var routerTable = sync.OnceValue(routerFlags)

// routerFieldShown are the fields a flag sets by another spelling than
// its name: ParkingDisabled is set by --parking-enabled=false.
var routerFieldShown = map[string]string{"ParkingDisabled": "--parking-enabled=false"}

// RouterFlagName is the flag for a field the router's errors name, "" for
// none.
func RouterFlagName(field string) string {
	if s, ok := routerFieldShown[field]; ok {
		return s
	}
	return routerTable().Name(field)
}

// routerError makes an error of the router's a usage error in the words of
// the command line.
func routerError(err error) error {
	return &cmdutil.UsageError{Msg: fielderr.Render(err, RouterFlagName)}
}
