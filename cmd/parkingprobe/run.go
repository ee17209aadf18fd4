package parkingprobe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/outfile"
	"github.com/shakenfist/shakectl/internal/textwrap"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/probe/transport"
)

// Options are what parking-probe's flags hold besides probe.Options: the
// values the command parses (distribution, headers, body, start, checks)
// or keeps for itself (output files, shards).
type Options struct {
	actorsFile   string
	distribution string
	headers      []string
	body         string
	startAt      string
	expect       []string
	out          string
	plot         string
	shards       int
	shard        int
	procs        int
}

// longHelp is the command's help. The outcome and check tables come from
// probe/report's vocabulary, the one definition the manual and the schema
// share. It is made when the command is, not at package initialisation,
// which every start-up of shakectl runs whatever the command.
func longHelp() string {
	return `Send real HTTP load at an atenet router and classify every answer, then
check that request parking behaves as documented: served vs shed vs budget
exhausted, how long each took, and whether the router's own metrics agree.

LOAD SHAPES
  --mode burst   --requests N        N requests released together (a barrier,
                                     not a loop): the shape that saturates a pool.
                                     Connections are opened before the release.
  --mode closed  --concurrency C --duration D
                                     C workers sending back to back.
  --mode open    --rate R --duration D
                                     R requests a second on a fixed schedule,
                                     however slow the answers; latency counts
                                     from each request's scheduled time, and
                                     in-flight requests are never capped (a 5 s
                                     park at R req/s holds 5R connections).

HTTP CLIENT AND CPUS
  --transport wire      the probe's own connections, with net/http's codec:
                        a parked request costs a goroutine and a small
                        buffer; the default for http:// to one address.
  --transport net/http  Go's net/http client; the default for https:// and
                        for --url-template URLs that put the actor in the
                        host name. The report's transport field says which
                        ran, and resends counts requests sent again because
                        they provably never reached the server.
  --procs N             run the load on N CPUs (GOMAXPROCS, as vegeta's
                        -cpus), restored when the run ends; 0 (the default)
                        leaves Go's, every CPU the process may use.

ADDRESSING
  The actor goes where {actor} is: in the Host header, rendered from
  --host-template (default {actor}.{atespace}.actors.resources.substrate.ate.dev),
  in the URL with --url-template (a full URL, or a path joined to --target),
  or in a header: -H values expand {actor} and {atespace} per request, so
  -H 'ate-target-actor: {atespace}/{actor}' addresses the newest dataplanes
  (the Host is then the --target's own). {atespace} is --atespace.
  --addressing names the form of a dataplane generation:
` + addressingHelp() + `  A dataplane answers another form with a 404 (invalid host "…": …, or
  invalid "ate-target-actor": expected <atespace>/<actor>); the report calls
  such 404s an addressing problem and names the flag to change.
  Actors: --actors N (actor-0001 …), --actor NAME (repeat), --actors-file FILE
  (one a line, # comments); chosen per request by --distribution:
    uniform     every actor equally
    hot:F       the fraction F (0..1) of requests to the first actor, the
                rest spread evenly over the others
    zipf:S      the k-th actor gets a share proportional to 1/k^S (S > 0)
  The choice is a function of --seed and the request's number, so the same
  seed sends the same actors in the same order.

OUTCOMES (every request lands in exactly one)
` + report.OutcomeHelp() + `  The actor id may be quoted or not, with or without the atespace
  (actor "x" …, actor "ns/x" …, actor ns/x …).
  A capacity refusal's outcome is what happened, not its wording: after at
  least half the park budget (--budget, else the router's statusz
  max_wait, else 5s assumed) it is budget_exhausted, sooner it is
  unavailable (refused at once). A router with parking off answers so;
  reached_parking then fails with "parking is disabled on the router"
  (exit 3) unless --expect parking=off says that is meant.

CHECKS (exit 3 when one fails)
` + report.CheckHelp() + `  The thresholds: budget_bound's budget is --budget, its slack --slack;
  shed_fast's bound is --shed-max; the router's metrics come from
  --metrics-url, its parking card from --statusz-url.
  A check with nothing to judge is skipped, which does not fail the run;
  reached_parking makes sure a run is never passed on skips alone.
  Without --budget the budget is the router's statusz max_wait (PR #221
  writes it "30s"; seconds are read too), else 5s; the report says which.
  A statusz without a parking card (atenet main) is reported, not an error.
  A statusz card with "enabled": false (PR #221 --parking-enabled=false,
  which still shows its configured lot and max_wait) is reported as parking
  off, and the checks about parking (budget_bound, rejected_matches_shed,
  active_drains, wait_matches_budget_exhausted, parked) are skipped with
  that reason: a router that parks nothing cannot be judged on them.
  parking_active is read four times a second during the run; the report
  prints the highest value read as the highest scraped, a lower bound of
  the router's own peak. PR #221 records a spent budget as
  parking_wait{outcome="error"}, shared with NotFound, 401 and 403, so
  wait_matches_budget_exhausted judges that series as at least the
  budget_exhausted count.

EXPECTATIONS (--expect, repeat or separate with commas)
  OUTCOME OP NUMBER       served>=0.95  shed==0  budget_exhausted<=10
  STAT(OUTCOME) OP TIME   p99(served)<6s  max(shed)<100ms
  requests OP COUNT       requests>=1000
  OP is <, <=, ==, !=, >= or >. STAT is p50, p75, p90, p95, p99, p999 or max.
  An integer is a count; a number with a decimal point in [0, 1] (0.95, 1.0)
  or with % (95%) is a share of the requests sent. Times need a unit. A
  latency expectation on an outcome that never occurred is skipped.

SHARDS (several processes or pods sending one command line's load)
  --shards N --shard I   run shard I (0 ≤ I < N) of the command line; without
                         --shard the index comes from JOB_COMPLETION_INDEX,
                         which a Kubernetes Indexed Job sets in each pod.
  The N shards together send exactly the unsharded load: burst --requests
  and closed --concurrency are split (the remainder to the lowest indices),
  open mode keeps --rate's one schedule and shard I sends its requests
  k = I, I+N, I+2N … at their unsharded times k/rate. Actors follow the
  shared --seed: with uniform each shard owns a disjoint set of the actors
  (a seeded permutation cut in N), so no two shards address the same actor;
  with hot:F and zipf:S each shard picks by the global request number as
  the unsharded run would, so the whole run keeps the distribution (and
  the hot actor gets requests from every shard, as the distribution says).
  Every shard must pick alike, so --shards needs --seed, or --start-at from
  which the seed is then derived. Release shards together with --start-at;
  each report says how late its load started (start_lateness_seconds).
  Checks that compare the router's own figures with the probe's counts
  (rejected_matches_shed, active_drains, wait_matches_budget_exhausted) are
  skipped in a shard, whose scrapes see every shard's load: "parking-probe
  merge -" judges them on the whole run. Give count --expect to the merge.

OUTPUT
  A table and the checks (colour on a terminal), or -o json: schema
  ("parking-probe/v1"), run_id, shard, shards, start_lateness_seconds (with
  --start-at), target, mode,
  started_at, duration_seconds, requests, outcomes{NAME:{count, ratio,
  latency_seconds{p50,p90,p99,max}, hdr}}, achieved_rate and
  send_lateness_seconds (open mode), in_flight_peak, metrics, statusz,
  checks[{name, ok, status, detail}], series (per second). --out FILE writes
  that JSON atomically; "parking-probe merge" combines such files from several
  machines. A live progress line goes to stderr on a terminal.

PLOT
  --plot FILE.html writes the run as one self-contained HTML page, as
  vegeta plot does: the data embedded as JSON and the charting library
  (uPlot) inlined, so the page opens offline and fetches nothing. It draws
  each outcome's latency over time and by percentile (with the park
  budget), the answers by outcome over time, and the requests in flight
  (the peak of each step, as in_flight_peak) against the router's
  parking_active at its scrape times and its lot (statusz max_parked).
  Any other file name is a usage error, refused before any load is sent.
  "parking-probe merge --plot" draws a saved or merged report the same way.

Ctrl-C cancels the requests in flight (counted as transport_error,
"canceled"; the probe waits a quarter of a second at most for them to end),
prints and writes the partial report, and exits 130 (SIGTERM: 143). A
second Ctrl-C ends the process at once.`
}

// NewCmd builds `shakectl parking-probe`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return NewCmdWith(f, nil)
}

// NewCmdWith lets tests replace the run with runF.
func NewCmdWith(f *cmdutil.Factory, runF func(*probe.Options, *Options) error) *cobra.Command {
	opts := &Options{}
	po := &probe.Options{}
	c := cmdutil.Local(&cobra.Command{
		Use:   "parking-probe --target URL [flags]",
		Short: "Load-test an atenet router's request parking and check it behaves as documented",
		Long:  longHelp(),
		Example: `  # A burst into a local simulator's lot of 100: about 100 park, the rest
  # shed (keep local bursts small: the machine's spare CPU is measured too)
  shakectl sim router --parked-request-max 100 &
  shakectl parking-probe --target http://127.0.0.1:8080 --requests 300 --actors 100 \
      --metrics-url http://127.0.0.1:9090/metrics --statusz-url http://127.0.0.1:4040/statusz

  # 200 req/s for 30 s over 500 actors, a hot one taking 80%, in CI
  shakectl parking-probe --target http://router:8080 --mode open --rate 200 \
      --duration 30s --actors 500 --distribution hot:0.8 --seed 7 \
      --expect 'served>=0.95,p99(served)<6s' -o json --out probe.json

  # Three machines firing together, then one report
  shakectl parking-probe --target http://router:8080 --start-at 2030-01-01T12:00:00Z --out a.json
  shakectl parking-probe merge a.json b.json c.json

  # One command line as 4 shards (here local; in a Kubernetes Indexed Job
  # each pod gets JOB_COMPLETION_INDEX instead of --shard), merged from logs
  for i in 0 1 2 3; do shakectl parking-probe --target http://router:8080 \
      --requests 40000 --seed 7 --shards 4 --shard $i \
      --start-at 2030-01-01T12:00:00Z -o json > shard-$i.log & done; wait
  cat shard-*.log | shakectl parking-probe merge -`,
	}, func(c *cobra.Command, _ []string) error {
		po, err := opts.probeOptions(c, f, po)
		if err != nil {
			return err
		}
		if runF != nil {
			return runF(po, opts)
		}
		return run(f, po, opts)
	})
	bindFlags(c.Flags(), po, opts)

	cmdutil.Must(c.RegisterFlagCompletionFunc("mode", cmdutil.FixedWithDesc([]string{"burst", "closed", "open"}, map[string]string{
		"burst":  "--requests released together",
		"closed": "--concurrency workers back to back for --duration",
		"open":   "--rate requests a second for --duration",
	})))
	cmdutil.Must(c.RegisterFlagCompletionFunc("transport", cmdutil.FixedWithDesc([]string{transport.Wire, transport.NetHTTP}, map[string]string{
		transport.Wire:    "the probe's own connections (plain http:// to one address)",
		transport.NetHTTP: "Go's net/http client (https://, actor-in-host URLs)",
	})))
	cmdutil.Must(c.RegisterFlagCompletionFunc("distribution", complete.Distribution))
	cmdutil.Must(c.MarkFlagFilename("out", "json"))
	cmdutil.Must(c.MarkFlagFilename("plot", "html"))
	cmdutil.Must(c.MarkFlagFilename("actors-file"))
	forms := make([]string, len(probe.AddressingForms))
	formDesc := map[string]string{}
	for i, f := range probe.AddressingForms {
		forms[i] = f.Name
		formDesc[f.Name] = f.Dataplanes
	}
	cmdutil.Must(c.RegisterFlagCompletionFunc("addressing", cmdutil.FixedWithDesc(forms, formDesc)))
	for _, name := range []string{"target", "metrics-url", "statusz-url", "host-template", "url-template", "start-at", "expect", "header", "actor"} {
		cmdutil.Must(c.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions))
	}

	c.AddCommand(newCmdMerge(f))
	c.AddCommand(newCmdJob(f))
	return c
}

// addressingHelp lists the named addressing forms: what each sends, and
// which dataplanes read it.
func addressingHelp() string {
	const indent, col = "    ", 17
	var b strings.Builder
	for _, f := range probe.AddressingForms {
		b.WriteString(indent)
		b.WriteString(f.Name)
		b.WriteString(textwrap.Blank(max(col-len(f.Name), 0) + 1))
		sep := ""
		if f.Host != "" {
			b.WriteString("Host: " + f.Host)
			sep = ", "
		}
		for _, h := range f.Headers {
			b.WriteString(sep + h[0] + ": " + h[1])
			sep = ", "
		}
		b.WriteByte('\n')
		for _, l := range textwrap.Lines(f.Dataplanes, "", "", 56, nil) {
			b.WriteString(indent)
			b.WriteString(textwrap.Blank(col + 1))
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// probeOptions turns the flags into probe options, refusing bad input as
// usage errors.
func (opts *Options) probeOptions(c *cobra.Command, f *cmdutil.Factory, po *probe.Options) (*probe.Options, error) {
	fl := c.Flags()
	po.Mode = probe.Mode(strings.ToLower(string(po.Mode)))
	po.Method = strings.ToUpper(po.Method)
	po.Checks.SlackSet = fl.Changed("slack")
	// The report's texts name options by the flags here.
	po.Checks.OptionName = FlagName
	if !fl.Changed("budget") {
		// probe owns the default: the router's statusz max_wait when
		// --statusz-url gives one, else report.DefaultBudget.
		po.Checks.Budget = 0
	}
	switch po.Mode {
	case probe.Burst, probe.Closed, probe.Open:
	default:
		return nil, cmdutil.UsageErrorf("unknown --mode %q: want burst, closed or open", fl.Lookup("mode").Value)
	}
	if fl.Changed("url-template") && fl.Changed("host-template") {
		return nil, cmdutil.UsageErrorf("--host-template and --url-template are exclusive: the actor goes in the Host header or in the URL")
	}
	for _, other := range []string{"host-template", "url-template"} {
		if fl.Changed("addressing") && fl.Changed(other) {
			return nil, cmdutil.UsageErrorf("--addressing and --%s are exclusive: --addressing %s says where the actor goes", other, po.Addressing)
		}
	}
	if !fl.Changed("host-template") {
		// probe owns the default: the Host form, unless --addressing or a
		// -H value carries the actor.
		po.HostTemplate = ""
	}
	// Flags of another load shape would be silently ignored: refuse them.
	for _, m := range []struct {
		flag  string
		modes []probe.Mode
	}{
		{"requests", []probe.Mode{probe.Burst}},
		{"concurrency", []probe.Mode{probe.Closed}},
		{"rate", []probe.Mode{probe.Open}},
		{"duration", []probe.Mode{probe.Closed, probe.Open}},
	} {
		if fl.Changed(m.flag) && !slices.Contains(m.modes, po.Mode) {
			return nil, cmdutil.UsageErrorf("--%s does not apply to --mode %s", m.flag, po.Mode)
		}
	}
	// Fail before any load, not after the run.
	if err := checkWritableDir("--out", opts.out); err != nil {
		return nil, err
	}
	// Each flag's range is in its declaration (flags.go): a flag given
	// as 0 where the probe reads a zero field as "the default" (--budget
	// 0 would silently become 5s) is refused there. What depends on more
	// than one field is probe.Options' to check (its errors name fields,
	// rendered here as flags).

	d, err := probe.ParseDistribution(opts.distribution)
	if err != nil {
		return nil, &cmdutil.UsageError{Msg: err.Error()}
	}
	po.Distribution = d
	if !fl.Changed("seed") {
		po.Seed = rand.Uint64N(1 << 31)
	}

	// Actors: named ones, then generated ones when --actors is given or
	// nothing else is.
	if opts.actorsFile != "" {
		names, err := readActorsFile(f, opts.actorsFile)
		if err != nil {
			return nil, err
		}
		po.Actors = append(po.Actors, names...)
	}
	if !fl.Changed("actors") && len(po.Actors) > 0 {
		// Generated actors (named on demand) only when --actors is
		// given or nothing else is.
		po.ActorCount = 0
	}

	if len(opts.headers) > 0 {
		po.Header = http.Header{}
		for _, h := range opts.headers {
			k, v, ok := strings.Cut(h, ":")
			k = strings.TrimSpace(k)
			if !ok || !isHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
				return nil, cmdutil.UsageErrorf("invalid --header %q: want \"Key: value\" (a name of letters, digits and !#$%%&'*+-.^_`|~, a value on one line)", h)
			}
			po.Header.Add(k, strings.TrimSpace(v))
		}
	}
	if strings.HasPrefix(opts.body, "@") {
		// @FILE, and @- for standard input, as api --body and -F read.
		b, err := userfile.Read(f.Context, f.IOStreams.In, opts.body[1:], userfile.Body("--body"))
		if err != nil {
			return nil, cmdutil.ReadFileError(err)
		}
		po.Body = b
	} else if opts.body != "" {
		po.Body = []byte(opts.body)
	}
	if opts.startAt != "" {
		t, err := time.Parse(time.RFC3339, opts.startAt)
		if err != nil {
			return nil, cmdutil.UsageErrorf("invalid --start-at %q: want an RFC 3339 time such as 2030-01-02T15:04:05Z", opts.startAt)
		}
		// A lone run with a start in the past is a mistake. A shard's is a
		// pod scheduled late (an Indexed Job does not start every pod on
		// time): it starts at once and its report says how late
		// (start_lateness_seconds), rather than losing the shard.
		if f.Now().Sub(t) > time.Second && opts.shards <= 1 {
			return nil, cmdutil.UsageErrorf("--start-at %s is in the past", opts.startAt)
		}
		po.StartAt = t
	}
	exps, err := report.ParseExpectations(opts.expect)
	if err != nil {
		return nil, &cmdutil.UsageError{Msg: fielderr.Render(err, FlagName)}
	}
	po.Checks.Expect = exps
	if err := checkPlotFile("--plot", opts.plot); err != nil {
		return nil, err
	}
	if opts.plot != "" {
		// The page's latency-over-time panel draws kept samples.
		po.KeepSamples = 200_000
	}
	if err := opts.shardOptions(c, f, po); err != nil {
		return nil, err
	}
	// The factory's network (a test's in-memory one), else the probe's
	// own TCP dialer.
	po.Dial = network.Dialer(f.Net)
	return po, nil
}

// shardOptions sets the shard of a --shards run: the index from --shard or
// JOB_COMPLETION_INDEX, and a seed every shard agrees on.
func (opts *Options) shardOptions(c *cobra.Command, f *cmdutil.Factory, po *probe.Options) error {
	fl := c.Flags()
	if !fl.Changed("shards") && !fl.Changed("shard") {
		return nil
	}
	index := opts.shard
	if !fl.Changed("shard") {
		i, ok, err := probe.ShardIndexFromEnv(f.Getenv)
		if err != nil {
			return &cmdutil.UsageError{Msg: err.Error()}
		}
		if !ok && opts.shards > 1 {
			return cmdutil.UsageErrorf("--shards %d needs this process's index: --shard I, or %s (set by a Kubernetes Indexed Job)", opts.shards, probe.JobCompletionIndexEnv)
		}
		index = i
	}
	sh, err := probe.NewShard(index, opts.shards)
	if err != nil {
		return probeError(err)
	}
	if sh.Count > 1 && !fl.Changed("seed") {
		if po.StartAt.IsZero() {
			return cmdutil.UsageErrorf("--shards %d needs --seed (or --start-at, from which the seed is derived): every shard must pick the same actors", sh.Count)
		}
		po.Seed = probe.SeedFromStartAt(po.StartAt)
	}
	po.Shard = sh
	return nil
}

// checkWritableDir checks an output flag's FILE before any load (a
// directory, a missing or closed directory fails now, not after the run),
// by the one rule of internal/outfile.
func checkWritableDir(flag, path string) error {
	_, err := checkOutput(flag, path)
	return err
}

// checkOutput is checkWritableDir's checked path, to write; "" is no
// output (nil).
func checkOutput(flag, path string) (*outfile.Path, error) {
	p, err := outfile.Check(flag, path, 0o644)
	if err != nil {
		return nil, &cmdutil.UsageError{Msg: err.Error()}
	}
	return p, nil
}

func readActorsFile(f *cmdutil.Factory, path string) ([]string, error) {
	raw, err := userfile.Read(f.Context, f.IOStreams.In, path, userfile.Actors("--actors-file"))
	if err != nil {
		return nil, cmdutil.ReadFileError(err)
	}
	names, err := probe.ReadActors(bytes.NewReader(raw))
	if err != nil {
		return nil, cmdutil.UsageErrorf("cannot read --actors-file %s: %s", path, err)
	}
	if len(names) == 0 {
		return nil, cmdutil.UsageErrorf("--actors-file %s names no actors", path)
	}
	return names, nil
}

func run(f *cmdutil.Factory, po *probe.Options, opts *Options) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	ios := f.IOStreams
	if err := checkOutFormat(cfg, opts.out); err != nil {
		return err
	}
	// Through the notifier: under -o json every stderr line stays a JSON
	// object, and the live counts are a status line on a terminal only.
	// The probe's warnings name options as fields: the flags are ours.
	n := ios.Notifier()
	po.Warn = func(w *probe.Warning) { n.Warn(w.Render(FlagName)) }
	if ios.IsStderrTTY() && !cfg.Quiet {
		po.Progress = func(p probe.Progress) { n.Status(progressText(p)) }
	}
	if po.Shard.Count > 1 {
		n.Note("shard", fmt.Sprintf("shard %d of %d, seed %d", po.Shard.Index, po.Shard.Count, po.Seed))
	}
	if !po.StartAt.IsZero() {
		if d := po.StartAt.Sub(f.Now()); d > 0 {
			n.Note("waiting", fmt.Sprintf("waiting until %s (%s from now) to start the load", po.StartAt.Format(time.RFC3339), d.Round(time.Second)))
			if d > StartAtFarNotice {
				n.Warn(fmt.Sprintf("--start-at is %s from now: nothing is sent until then (Ctrl-C stops the wait); shards meant to start together are usually seconds or minutes apart", d.Round(time.Minute)))
			}
		}
	}
	if opts.procs > 0 {
		// As vegeta's -cpus (tsenart/vegeta attack.go): the command, not
		// the library, sets the process's CPU count, and puts it back so
		// a caller that runs more than this command keeps its own.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(opts.procs))
	}
	report, runErr := probe.Run(f.Context, *po)
	n.EndStatus()
	if report == nil {
		return probeError(runErr)
	}
	if report.Interrupted && report.Requests == 0 {
		// Ctrl-C before the load (waiting for --start-at, say): nothing
		// was sent, so there is nothing to report and no check to fail
		// (a report here would be a full report of failed checks).
		n.Warn("interrupted before the load started: nothing sent, no report")
		return runErr
	}
	if err := writeReport(f, cfg, report, opts.out, opts.plot); err != nil {
		return err
	}
	if runErr != nil {
		if errors.Is(runErr, cmdutil.ErrInterrupted) || f.Context.Err() != nil {
			return fmt.Errorf("interrupted after %d requests: %w", report.Requests, runErr)
		}
		return probeError(runErr)
	}
	return checksError(report)
}

// probeError turns the probe's option errors into usage errors, and
// names the flags where any of its errors names an option.
func probeError(err error) error {
	var oe *probe.OptionError
	if errors.As(err, &oe) {
		return &cmdutil.UsageError{Msg: oe.Render(FlagName)}
	}
	var ee *report.ExpectError
	if errors.As(err, &ee) {
		return &cmdutil.UsageError{Msg: ee.Render(FlagName)}
	}
	if r, ok := err.(fielderr.Renderer); ok {
		// A run's error that names an option (NoAnswerError's {Timeout}).
		return fielderr.Rendered(r, FlagName)
	}
	return err
}

func checksError(r *report.Report) error {
	if failed := r.Failed(); len(failed) > 0 {
		return cmdutil.ChecksFailed(fmt.Errorf("%w: %s", report.ErrChecksFailed, strings.Join(failed, ", ")))
	}
	return nil
}

// StartAtFarNotice is how far ahead --start-at may be before the run warns
// that it will wait that long.
const StartAtFarNotice = time.Hour

// checkOutFormat refuses, before any load, an output format that cannot
// share stdout with --out -'s JSON.
func checkOutFormat(cfg *cmdutil.Config, out string) error {
	if out == outfile.Stdout && cfg.Output == output.FormatYAML {
		return &cmdutil.UsageError{Msg: "--out - writes the JSON report to stdout; -o yaml cannot share it: name a file for --out"}
	}
	return nil
}

// writeReport prints the report in the configured format and writes
// the --out and --plot files. With --out - standard output is the JSON
// report, once and alone, for a pipe to read: the text report then goes
// to stderr (unless --quiet), and -o json is not written a second time
// (otherwise the table and the JSON both go to stdout, and the JSON
// twice with -o json).
func writeReport(f *cmdutil.Factory, cfg *cmdutil.Config, r *report.Report, out, plot string) error {
	ios := f.IOStreams
	toStdout := out == outfile.Stdout
	switch {
	case cfg.Output == output.FormatJSON && toStdout:
		// --out - writes it below.
	case cfg.Output == output.FormatJSON:
		if err := r.WriteJSON(ios.Out); err != nil {
			return err
		}
	case cfg.Output == output.FormatYAML && toStdout:
		return checkOutFormat(cfg, out)
	case cfg.Output == output.FormatYAML:
		if err := writeYAML(ios.Out, r); err != nil {
			return err
		}
	case toStdout:
		cs := output.NewColourScheme(ios.ColourEnabled() && ios.IsStderrTTY())
		if err := ios.Notifier().Report(func(w io.Writer) error { return report.WriteText(w, r, cs) }); err != nil {
			return err
		}
	default:
		cs := output.NewColourScheme(ios.ColourEnabled())
		if err := report.WriteText(ios.Out, r, cs); err != nil {
			return err
		}
	}
	// The report is written after Ctrl-C too (it is the partial result);
	// a second Ctrl-C ends the process if a FIFO's reader never comes.
	ctx := context.WithoutCancel(f.Context)
	// "wrote --out FILE" is a note.
	note := ios.Notifier().Lines("wrote")
	if p, err := checkOutput("--out", out); err != nil {
		return err
	} else if p != nil {
		if err := p.Write(ctx, ios.Out, note, r.WriteJSON); err != nil {
			return err
		}
	}
	if plot != "" {
		return writePlot(ctx, plot, r, ios.Out, note)
	}
	return nil
}

// writeYAML writes the report's JSON form as YAML, so both formats carry the
// same field names.
func writeYAML(w io.Writer, r *report.Report) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}

// progressText is the probe's live counts, for the status line.
func progressText(pr probe.Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%5.1fs  sent %d  in flight %d", pr.Elapsed.Seconds(), pr.Sent, pr.InFlight)
	for _, o := range report.AllOutcomes() {
		if n := pr.Counts[o]; n > 0 {
			fmt.Fprintf(&b, "  %s %d", o, n)
		}
	}
	return b.String()
}
