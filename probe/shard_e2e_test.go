package probe_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// shardRouter is a small saturated router: two workers, a lot of 8, so a
// burst parks some requests, sheds others and serves the rest.
func shardRouter() router.Config {
	cfg := router.DefaultConfig()
	cfg.Workers = 2
	cfg.Actors = 20
	cfg.ActorIdle = 0
	cfg.ParkedRequestMax = 8
	cfg.ExtprocMaxRequests = 64
	cfg.Seed = 1
	return cfg
}

// runSharded runs the command line o as n shards in-process (index i as
// JOB_COMPLETION_INDEX would give it, one --start-at), or unsharded when n
// is 0, against a fresh simulated router, on the virtual clock.
func runSharded(t *testing.T, o probe.Options, n int) []*report.Report {
	t.Helper()
	var out []*report.Report
	synctest.Test(t, func(t *testing.T) {
		s, tr := startMem(t, shardRouter())
		defer s.Close()
		defer tr.CloseIdleConnections()
		o.Target, o.RoundTripper, o.ScrapeTransport = "http://router.test", tr, tr
		o.MetricsURL, o.StatuszURL = "http://metrics.test/metrics", "http://status.test/statusz"
		o.StartAt = time.Now().Add(3 * time.Second)
		if n == 0 {
			r, err := probe.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
			return
		}
		out = make([]*report.Report, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				so := o
				so.Shard = probe.Shard{Index: i, Count: n}
				r, err := probe.Run(context.Background(), so)
				if err != nil {
					t.Errorf("shard %d: %v", i, err)
				}
				out[i] = r
			})
		}
		wg.Wait()
	})
	return out
}

// logStream prints the shards' reports as kubectl logs would show them:
// with and without --prefix, among other lines.
func logStream(t *testing.T, reports []*report.Report) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	for i, r := range reports {
		var doc bytes.Buffer
		if err := r.WriteJSON(&doc); err != nil {
			t.Fatal(err)
		}
		prefix := ""
		if i%2 == 1 {
			prefix = fmt.Sprintf("[pod/probe-%d-x7k2q/probe] ", i)
		}
		fmt.Fprintf(&b, "%swaiting until 2030-01-01T00:00:00Z (3s from now) to start the load\n", prefix)
		fmt.Fprintf(&b, "%s{\"level\":\"info\",\"msg\":\"sidecar\"}\n", prefix)
		for _, l := range strings.SplitAfter(doc.String(), "\n") {
			if l != "" {
				b.WriteString(prefix + l)
			}
		}
		fmt.Fprintf(&b, "%swarning: junk } after the report {\n", prefix)
	}
	return &b
}

// readStream extracts, reads and checks the reports of a stream as
// "parking-probe merge -" does.
func readStream(t *testing.T, stream *bytes.Buffer) ([]*report.Report, []string, error) {
	t.Helper()
	docs, problems, err := report.ExtractReports(stream)
	if err != nil || len(problems) > 0 {
		t.Fatalf("extract: %v %v", err, problems)
	}
	var reports []*report.Report
	var names []string
	for _, d := range docs {
		r, err := report.ReadReport(bytes.NewReader(d.Raw))
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		if err := report.CheckSchema(r); err != nil {
			t.Fatal(err)
		}
		reports, names = append(reports, r), append(names, d.Name())
	}
	return reports, names, report.CheckRun(reports, names)
}

// Three shards of one burst command line, released together, merged from a
// concatenated log stream: every count is the sum of the shards', the load
// is the unsharded command line's, the router's figures come from the
// widest window, and the checks hold.
func TestShardedBurstMergesExactly(t *testing.T) {
	base := probe.Options{Mode: probe.Burst, Requests: 30, ActorCount: 6, Seed: 11}
	shards := runSharded(t, base, 3)
	whole := runSharded(t, base, 0)[0]

	reports, names, err := readStream(t, logStream(t, shards))
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 3 {
		t.Fatalf("%d reports in the stream (%v)", len(reports), names)
	}
	m, err := report.Merge(reports, report.CheckConfigOf(reports[0]))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	sums := map[string]int64{}
	for i, r := range shards {
		if r.Schema != report.SchemaVersion || r.Shards != 3 || r.Shard == nil || *r.Shard != i || r.RunID != shards[0].RunID {
			t.Errorf("shard %d names itself %+v", i, r.RunInfo)
		}
		if r.StartLatenessSeconds == nil || *r.StartLatenessSeconds < 0 || *r.StartLatenessSeconds > 1 {
			t.Errorf("shard %d start lateness %v", i, r.StartLatenessSeconds)
		}
		total += r.Requests
		for name, s := range r.Outcomes {
			sums[name] += s.Count
		}
	}
	if m.Requests != total || m.Requests != 30 {
		t.Errorf("merged %d requests, shards sent %d, want 30", m.Requests, total)
	}
	for name, s := range m.Outcomes {
		if s.Count != sums[name] {
			t.Errorf("%s: merged %d, shards %d", name, s.Count, sums[name])
		}
	}
	if m.Load != whole.Load {
		t.Errorf("merged load %+v\nunsharded command line %+v", m.Load, whole.Load)
	}
	if m.RunID != shards[0].RunID || m.Shards != 3 || m.Shard != nil || m.StartSpreadSeconds == nil {
		t.Errorf("merged run info %+v", m.RunInfo)
	}
	shed := count(m, report.Shed)
	if shed == 0 || count(m, report.BudgetExhausted)+count(m, report.Served) == 0 {
		t.Fatalf("outcomes %v: the test wants shed and parked requests", summary(m))
	}
	// Each shard's scrapes saw the whole run's rejections; the merge takes
	// the widest window once, never the sum.
	if d := m.Metrics.RejectedDelta; d == nil || *d != float64(shed) {
		t.Errorf("merged parking_rejected delta %v, want the %d shed of all shards", d, shed)
	}
	if p := m.Metrics.ActivePeak; p == nil || *p > 8 {
		t.Errorf("merged parking_active peak %v, want at most the lot of 8 (not a sum)", p)
	}
	for _, c := range m.Checks {
		if c.Status == report.CheckFailed {
			t.Errorf("merged check %s failed: %s", c.Name, c.Detail)
		}
	}
	if c := checks(m)[report.CheckRejectedMatchesShed]; c.Status != report.CheckOK {
		t.Errorf("merged rejected_matches_shed %+v, want ok", c)
	}
	if c := checks(shards[0])[report.CheckRejectedMatchesShed]; c.Status != report.CheckSkipped {
		t.Errorf("a shard judged the router-wide rejected_matches_shed: %+v", c)
	}
}

// Missing, duplicated and foreign shards are refused, naming them.
func TestShardedMergeRefusesIncompleteRuns(t *testing.T) {
	base := probe.Options{Mode: probe.Burst, Requests: 12, ActorCount: 6, Seed: 5}
	shards := runSharded(t, base, 3)
	other := base
	other.Seed = 6
	foreign := runSharded(t, other, 3)

	for _, c := range []struct {
		name    string
		reports []*report.Report
		want    []string
	}{
		{"missing", []*report.Report{shards[0], shards[2]}, []string{"shard 1 of 3 missing"}},
		{"duplicate", []*report.Report{shards[0], shards[1], shards[1], shards[2]}, []string{"shard 1 appears 2 times", "pod/probe-1-x7k2q/probe (line", "document at line"}},
		{"foreign", []*report.Report{shards[0], shards[1], foreign[2], shards[2]}, []string{"belongs to run \"" + foreign[2].RunID + "\", not \"" + shards[0].RunID + "\""}},
		{"missing twice", []*report.Report{foreign[1]}, []string{"shard 0, 2 of 3 missing"}},
	} {
		_, _, err := readStream(t, logStream(t, c.reports))
		if err == nil {
			t.Errorf("%s: merged", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to say %q", c.name, err, w)
			}
		}
	}
}

// Open and closed command lines: the merged load is the unsharded one, and
// open mode's shards together send the unsharded schedule's requests.
func TestShardedOpenAndClosedLoadIsTheCommandLine(t *testing.T) {
	for _, base := range []probe.Options{
		{Mode: probe.Open, Rate: 20, Duration: 2 * time.Second, ActorCount: 6, Seed: 2},
		{Mode: probe.Closed, Concurrency: 5, Duration: time.Second, ActorCount: 6, Seed: 2},
	} {
		shards := runSharded(t, base, 3)
		whole := runSharded(t, base, 0)[0]
		reports, names, err := readStream(t, logStream(t, shards))
		if err != nil || len(reports) != 3 {
			t.Fatalf("%s: %v %v", base.Mode, names, err)
		}
		m, err := report.Merge(reports, report.CheckConfigOf(reports[0]))
		if err != nil {
			t.Fatal(err)
		}
		if m.Load != whole.Load {
			t.Errorf("%s: merged load %+v\nunsharded %+v", base.Mode, m.Load, whole.Load)
		}
		if base.Mode == probe.Open && (m.Requests != 40 || whole.Requests != 40) {
			t.Errorf("open: merged %d requests, unsharded %d, want 40", m.Requests, whole.Requests)
		}
	}
}
