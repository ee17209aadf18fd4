package parkingprobe

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/probe/report"
)

type MergeOptions struct {
	budget, slack, shedMax time.Duration
	expect                 []string
	out                    string
	plot                   string
	allowMixed             bool
}

func newCmdMerge(f *cmdutil.Factory) *cobra.Command {
	opts := &MergeOptions{}
	c := cmdutil.Local(&cobra.Command{
		Use:   "merge",
		Short: "Combine parking-probe JSON reports from several machines into one",
		Long: `Combine JSON reports (from -o json or --out) of probes that ran together,
e.g. on several machines with the same --start-at, into one report: counts
add, latency histograms merge exactly (each report carries them), the per-second
series align on the wall clock, and the router's metrics span from the
earliest scrape before to the latest scrape after. The checks run again on
the merged numbers, with the thresholds of the first report and the runs'
own --expect unless given here; failed checks exit 3 as they do for a run.
A run that failed its own checks fails the merge too (sources_passed). The
same report twice is refused, and so are runs of different targets or
modes unless --allow-mixed.

"merge -" reads the reports from stdin, as a log stream: JSON documents
(indented or on one line) among other lines, with or without the
"[pod/NAME/CONTAINER] " of kubectl logs --prefix and the times of
--timestamps, which is what
  kubectl logs -l job-name=JOB --tail=-1 --max-log-requests=N
gives for the pods of a sharded run (--shards). A report cut off in the
stream is named on stderr.

Reports of a sharded run must be exactly one run: the same run_id, every
shard 0..N-1 present once. Missing, duplicated and foreign shards are
refused and named. Their router-side figures (metrics deltas, statusz,
parking_active peak) come from the widest window, the earliest scrape
before and the latest after, never a sum over shards. A report whose
schema has a major version this shakectl does not know is refused; one
without a schema is read as parking-probe/v1.

--plot FILE.html writes the merged report as one self-contained HTML page,
as a run's --plot does, from what the reports carry: each outcome's latency
by percentile from the merged histograms, and answers and requests in
flight per second from the per-second series (a merge keeps no per-request
samples, so the latency-over-time panel is left out).`,
		Example: `  shakectl parking-probe merge a.json b.json c.json --expect 'served>=0.9'
  shakectl parking-probe merge run.json --plot run.html    # draw a saved report
  kubectl logs -l job-name=probe --tail=-1 --max-log-requests=16 --prefix | shakectl parking-probe merge -`,
	}, func(c *cobra.Command, args []string) error {
		return runMerge(f, c, opts, args)
	})
	fl := c.Flags()
	numflag.Var(fl, &opts.budget, "budget", report.DefaultBudget, numflag.Above(0, MaxDuration), "the router's park budget, for budget_bound (default: the first report's)")
	numflag.Var(fl, &opts.slack, "slack", report.DefaultSlack, numflag.Between(0, MaxDuration), "grace above --budget (default: the first report's)")
	numflag.Var(fl, &opts.shedMax, "shed-max", report.DefaultShedMax, numflag.Above(0, MaxDuration), "bound on shed p99 (default: the first report's)")
	fl.StringArrayVar(&opts.expect, "expect", nil, "expectation such as served>=0.95 (repeat, or separate with commas)")
	fl.StringVar(&opts.out, "out", "", "also write the merged JSON report to FILE (atomically)")
	fl.StringVar(&opts.plot, "plot", "", "write the merged report as one self-contained HTML page, FILE.html")
	fl.BoolVar(&opts.allowMixed, "allow-mixed", false, "merge runs of different targets or modes")
	cmdutil.Must(c.MarkFlagFilename("out", "json"))
	cmdutil.Must(c.MarkFlagFilename("plot", "html"))
	return builders.ArgsCheckedBy(c, "REPORT.json... | merge -", cobra.MinimumNArgs(1), complete.FilesEndingIn("json"))
}

func runMerge(f *cmdutil.Factory, c *cobra.Command, opts *MergeOptions, paths []string) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	exps, err := report.ParseExpectations(opts.expect)
	if err != nil {
		return &cmdutil.UsageError{Msg: fielderr.Render(err, FlagName)}
	}
	if err := checkPlotFile("--plot", opts.plot); err != nil {
		return err
	}
	if _, err := checkOutput("--out", opts.out); err != nil {
		return err
	}
	var reports []*report.Report
	if slices.Contains(paths, "-") {
		if len(paths) > 1 {
			return cmdutil.UsageErrorf("merge - reads every report from stdin; give no files with it")
		}
		reports, paths, err = readReportStream(f)
		if err != nil {
			return err
		}
	} else {
		for _, p := range paths {
			raw, err := userfile.Read(f.Context, nil, p, userfile.Bound{Flag: "report", Max: maxReport})
			if err != nil {
				return cmdutil.ReadFileError(err)
			}
			r, err := report.ReadReport(bytes.NewReader(raw))
			if err != nil {
				return cmdutil.UsageErrorf("report %s: %s", p, err)
			}
			reports = append(reports, r)
		}
	}
	for i, r := range reports {
		if err := report.CheckSchema(r); err != nil {
			return cmdutil.UsageErrorf("report %s: %s", paths[i], err)
		}
	}
	if err := report.CheckRun(reports, paths); err != nil {
		return &cmdutil.UsageError{Msg: err.Error()}
	}
	if err := report.CheckMergeable(reports, paths, opts.allowMixed); err != nil {
		return &cmdutil.UsageError{Msg: strings.Replace(err.Error(), "the mixed flag", "--allow-mixed", 1)}
	}
	cc := report.CheckConfigOf(reports[0])
	fl := c.Flags()
	if fl.Changed("budget") || cc.Budget <= 0 {
		cc.Budget, cc.BudgetSource = opts.budget, report.BudgetGiven
	}
	if fl.Changed("slack") {
		cc.Slack, cc.SlackSet = opts.slack, true
	}
	if fl.Changed("shed-max") || cc.ShedMax <= 0 {
		cc.ShedMax = opts.shedMax
	}
	cc.Expect = exps
	// The merged checks advise on the run's flags (--rate, --shards).
	cc.OptionName = FlagName
	merged, err := report.Merge(reports, cc)
	if err != nil {
		return err
	}
	merged.Sources = paths
	if err := writeReport(f, cfg, merged, opts.out, opts.plot); err != nil {
		return err
	}
	return checksError(merged)
}

// readReportStream reads the reports of a log stream on stdin (merge -),
// naming each by its kubectl prefix or line. Reports cut off in the stream
// are said on stderr; if no report is whole, that is the error.
func readReportStream(f *cmdutil.Factory) ([]*report.Report, []string, error) {
	// Ctrl-C stops an endless stream (merge - < /dev/zero once spun deaf
	// to SIGINT and SIGTERM) between reads.
	docs, problems, err := report.ExtractReports(userfile.Stream(f.Context, f.IOStreams.In))
	if f.Context.Err() != nil {
		return nil, nil, context.Cause(f.Context)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading stdin: %w", err)
	}
	if _, err := f.Config(); err != nil {
		return nil, nil, err
	}
	for _, p := range problems {
		f.IOStreams.Notifier().Warn(p.Error())
	}
	if len(docs) == 0 {
		return nil, nil, cmdutil.UsageErrorf("no whole parking-probe report on stdin (%d cut off): pipe in the probes' -o json output or kubectl logs of their pods", len(problems))
	}
	var reports []*report.Report
	var names []string
	for _, d := range docs {
		r, err := report.ReadReport(bytes.NewReader(d.Raw))
		if err != nil {
			return nil, nil, cmdutil.UsageErrorf("report %s: %s", d.Name(), err)
		}
		reports, names = append(reports, r), append(names, d.Name())
	}
	return reports, names, nil
}

// isHeaderName reports whether k is an HTTP header name (RFC 9110's token):
// net/http's transport refuses any other per request, and the probe's own
// sender would send it, so it is refused here, once, for both.
func isHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

// maxReport bounds one report file merge reads: a report of the longest
// run with every per-second point is a few MiB, and report.Read refuses
// more than MaxReportBytes anyway. It was 256 MiB, so "merge /dev/zero"
// read 256 MiB (1 GB resident) and a 200 MB file 729 MB before that
// refusal, where no command should need more than a few hundred MiB;
// now a larger
// regular file is refused by its size, unread.
const maxReport = report.MaxReportBytes
