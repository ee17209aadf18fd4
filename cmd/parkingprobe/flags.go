package parkingprobe

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/internal/flagtable"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"
)

// probeFlags are parking-probe's flags. Most write straight into a
// probe.Options field (as sim router's flags write into router.Config), so
// no copy of the options stands between the flags and the probe; the rest
// write into Options, what the command parses or keeps itself. Each names
// the field the probe's option errors give the value ({Requests},
// {Checks.Budget}), so an error names the flag the user typed.
func probeFlags() flagtable.Table[*probe.Options, *Options] {
	type (
		fs = *pflag.FlagSet
		po = *probe.Options
		op = *Options
	)
	return flagtable.Table[*probe.Options, *Options]{
		{Field: "Target", Name: "target", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.Target, n, "", "router base URL, e.g. http://127.0.0.1:8080 (required unless --url-template is a full URL)")
		}},
		{Field: "", Name: "mode", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar((*string)(&p.Mode), n, string(probe.Burst), "load shape: burst, closed or open")
		}},
		{Field: "Requests", Name: "requests", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Requests, n, 100, numflag.Between(1, probe.MaxBurst*MaxShards), "burst: requests released together, at most "+strconv.Itoa(probe.MaxBurst)+" per shard")
		}},
		{Field: "Concurrency", Name: "concurrency", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Concurrency, n, 16, numflag.Between(1, probe.MaxConcurrency), "closed: workers sending back to back")
		}},
		{Field: "Rate", Name: "rate", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Rate, n, 100, numflag.Above[float64](0, probe.MaxRate), "open: requests a second")
		}},
		{Field: "Duration", Name: "duration", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Duration, n, 10*time.Second, numflag.Above(0, MaxDuration), "closed and open: how long to send")
		}},
		{Field: "ActorCount", Name: "actors", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.ActorCount, n, 100, numflag.Between(1, probe.MaxActors), "number of generated actors (actor-0001 …); default 100 unless --actor or --actors-file is given")
		}},
		{Field: "Actors", Name: "actor", Define: func(fl fs, n string, p po, _ op) { fl.StringArrayVar(&p.Actors, n, nil, "an actor name (repeat)") }},
		{Field: "ActorsFile", Name: "actors-file", Define: func(fl fs, n string, _ po, o op) {
			fl.StringVar(&o.actorsFile, n, "", "file of actor names, one a line (- for stdin)")
		}},
		{Field: "", Name: "distribution", Define: func(fl fs, n string, _ po, o op) {
			fl.StringVar(&o.distribution, n, "uniform", "how requests spread over actors: uniform, hot:FRACTION or zipf:S")
		}},
		{Field: "", Name: "seed", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Seed, n, 0, numflag.Between[uint64](0, math.MaxUint64), "seed of the actor choice, for repeatable runs (default: random, printed in the report)")
		}},
		{Field: "Addressing", Name: "addressing", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.Addressing, n, "", "where the actor goes, by the dataplane generation's form: "+probe.AddressingFormNames()+" (see ADDRESSING)")
		}},
		{Field: "HostTemplate", Name: "host-template", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.HostTemplate, n, probe.DefaultHostTemplate, "Host header template ({actor}, {atespace}), or a Host form by name: atespace (the default) or pr221 ({actor}.actors.resources.substrate.ate.dev)")
		}},
		{Field: "URLTemplate", Name: "url-template", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.URLTemplate, n, "", "URL template instead of the Host header: a full URL or a path joined to --target ({actor}, {atespace})")
		}},
		{Field: "Atespace", Name: "atespace", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.Atespace, n, probe.DefaultAtespace, "atespace for {atespace}")
		}},
		{Field: "Transport", Name: "transport", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.Transport, n, "", "HTTP client: wire (the probe's own connections; the default for http:// to one address) or net/http (Go's client; the default for https:// and actor-in-host URL templates)")
		}},
		{Field: "Method", Name: "method", Define: func(fl fs, n string, p po, _ op) { fl.StringVar(&p.Method, n, http.MethodGet, "HTTP method") }},
		{Field: "Header", Name: "header", Define: func(fl fs, n string, _ po, o op) {
			fl.StringArrayVarP(&o.headers, n, "H", nil, "request header \"Key: value\" (repeat); {actor} and {atespace} in the value expand per request")
		}},
		{Field: "", Name: "body", Define: func(fl fs, n string, _ po, o op) {
			fl.StringVar(&o.body, n, "", "request body; @FILE reads it from a file, @- from standard input")
		}},
		// A local --timeout shadows the global one (whole-command
		// deadline): for parking-probe it is the per-request timeout.
		{Field: "Timeout", Name: "timeout", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Timeout, n, 0, numflag.Above(0, MaxDuration), "per-request timeout (default --budget + 10s); shadows the global --timeout")
		}},
		{Field: "StartAt", Name: "start-at", Define: func(fl fs, n string, _ po, o op) {
			fl.StringVar(&o.startAt, n, "", "start the load at this RFC 3339 time, so probes on several machines fire together")
		}},
		{Field: "MetricsURL", Name: "metrics-url", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.MetricsURL, n, "", "router Prometheus endpoint, scraped before, during and after the run")
		}},
		{Field: "StatuszURL", Name: "statusz-url", Define: func(fl fs, n string, p po, _ op) {
			fl.StringVar(&p.StatuszURL, n, "", "router /statusz, read as JSON (?format=json) before and after the run")
		}},
		{Field: "Checks.Budget", Name: "budget", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Checks.Budget, n, report.DefaultBudget, numflag.Above(0, MaxDuration), "the router's park budget (seed --parked-request-budget, PR #221 --parking-max-wait), for budget_bound; unset, the router's statusz max_wait is used when --statusz-url gives it")
		}},
		{Field: "Checks.Slack", Name: "slack", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Checks.Slack, n, report.DefaultSlack, numflag.Between(0, MaxDuration), "grace above --budget before a budget_exhausted answer is late (0 for none)")
		}},
		{Field: "Checks.ShedMax", Name: "shed-max", Define: func(fl fs, n string, p po, _ op) {
			numflag.Var(fl, &p.Checks.ShedMax, n, report.DefaultShedMax, numflag.Above(0, MaxDuration), "shed answers' p99 must stay under this")
		}},
		{Field: "Checks.Expect", Name: "expect", Define: func(fl fs, n string, _ po, o op) {
			fl.StringArrayVar(&o.expect, n, nil, "expectation such as served>=0.95 or p99(served)<6s (repeat, or separate with commas)")
		}},
		{Field: "", Name: "out", Define: func(fl fs, n string, _ po, o op) {
			fl.StringVar(&o.out, n, "", "also write the JSON report to FILE (atomically); - makes stdout the JSON report alone, the text report going to stderr")
		}},
		{Field: "", Name: "plot", Define: func(fl fs, n string, _ po, o op) {
			fl.StringVar(&o.plot, n, "", "write the run as one self-contained HTML page, FILE.html: latency, answers and in-flight over time")
		}},
		// The command's, not the probe's: the library changes no process
		// setting, so the run's CPU count is set (and restored) in run.
		{Field: "", Name: "procs", Define: func(fl fs, n string, _ po, o op) {
			numflag.Var(fl, &o.procs, n, 0, numflag.Between(0, MaxProcs), "CPUs to run the load on (GOMAXPROCS for the run, as vegeta's -cpus); 0 leaves Go's default, all of them")
		}},
		{Field: "Shard.Count", Name: "shards", Define: func(fl fs, n string, _ po, o op) {
			numflag.Var(fl, &o.shards, n, 1, numflag.Between(1, MaxShards), "run one of N shards that together send this command line's load (needs --seed or --start-at)")
		}},
		{Field: "Shard.Index", Name: "shard", Define: func(fl fs, n string, _ po, o op) {
			numflag.Var(fl, &o.shard, n, 0, numflag.Between(0, MaxShards-1), "this process's shard index, 0 ≤ I < --shards (default: $JOB_COMPLETION_INDEX)")
		}},
	}
}

// Bounds of the flags that probe.Options leaves open, as the command
// sees them.
const (
	// MaxShards is the most shards a run is split into: Kubernetes'
	// bound on an Indexed Job's completions and parallelism (10^5).
	MaxShards = 100_000
	// MaxProcs bounds --procs: GOMAXPROCS far above the CPUs a machine
	// has only multiplies the runtime's threads (100000 ended in "fatal
	// error: thread exhaustion").
	MaxProcs = 1024
	// MaxDuration bounds the durations: a run, a request, a park budget.
	MaxDuration = 24 * time.Hour
)

// bindFlags defines every flag on fl, bound into po and o.
func bindFlags(fl *pflag.FlagSet, po *probe.Options, o *Options) { probeFlags().Bind(fl, po, o) }

// FlagName is the flag for a field the probe's option errors name, "" for
// none.
func FlagName(field string) string { return probeFlags().Name(field) }
