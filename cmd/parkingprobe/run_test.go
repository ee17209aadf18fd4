package parkingprobe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/parkingprobe"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/probe"
)

func probeTestFactory(t *testing.T, ctx context.Context) (*cmdutil.Factory, *bytes.Buffer, *syncbuf.Buffer) {
	t.Helper()
	ios, _, out, _ := output.Test()
	errOut := &syncbuf.Buffer{}
	ios.ErrOut = errOut
	dir := t.TempDir()
	return &cmdutil.Factory{
		IOStreams:        ios,
		Build:            cmdutil.BuildInfo{Version: "test"},
		Getenv:           func(string) (string, bool) { return "", false },
		HomeDir:          dir,
		SystemConfigFile: filepath.Join(dir, "no-system-file"),
		Context:          ctx,
		Now:              time.Now,
	}, out, errOut
}

// probeTarget is a router stand-in: actor-0001 is served, every other actor
// is shed, as the router words it.
func probeTarget(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, _, _ := strings.Cut(r.Host, ".")
		if actor == "actor-0001" {
			fmt.Fprint(w, "hello")
			return
		}
		w.WriteHeader(503)
		fmt.Fprintf(w, "actor %q unavailable: router at capacity", "default/"+actor)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// captureOptions runs parking-probe's flag handling only.
func captureOptions(t *testing.T, args ...string) (*probe.Options, error) {
	t.Helper()
	return captureOptionsEnv(t, nil, args...)
}

func TestParkingProbeFlagsBecomeOptions(t *testing.T) {
	t.Parallel()
	o, err := captureOptions(t, "--target", "http://r:8080")
	if err != nil {
		t.Fatal(err)
	}
	// HostTemplate is left to the probe, whose default is the atespace
	// Host form unless --addressing or a -H value carries the actor.
	if o.Mode != probe.Burst || o.Requests != 100 || len(o.Actors) != 0 || o.ActorCount != 100 ||
		o.HostTemplate != "" || o.Method != "GET" || o.Timeout != 0 || o.Checks.Budget != 0 || o.Checks.SlackSet {
		t.Errorf("defaults: %+v", o)
	}
	// probe owns the budget's default (statusz max_wait, else 5s).
	if o.EffectiveTimeout() != 15*time.Second {
		t.Errorf("default per-request timeout %s, want budget + 10s", o.EffectiveTimeout())
	}

	dir := t.TempDir()
	actorsFile := filepath.Join(dir, "actors")
	os.WriteFile(actorsFile, []byte("# hot\nalpha\nbeta\n"), 0o644)
	bodyFile := filepath.Join(dir, "body")
	os.WriteFile(bodyFile, []byte(`{"x":1}`), 0o644)
	o, err = captureOptions(t, "--target", "http://r:8080", "--mode", "open", "--rate", "50", "--duration", "3s",
		"--actor", "gamma", "--actors-file", actorsFile, "--distribution", "zipf:1.5", "--seed", "9",
		"--method", "post", "-H", "X-A: 1", "--header", "x-b:two", "--body", "@"+bodyFile, "--timeout", "2s",
		"--expect", "served>=0.9,shed==0", "--expect", "p99(served)<1s", "--budget", "3s", "--slack", "0s")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.Actors, ",") != "gamma,alpha,beta" {
		t.Errorf("actors %v: named ones only when --actors is not given", o.Actors)
	}
	if o.Mode != probe.Open || o.Rate != 50 || o.Duration != 3*time.Second || o.Distribution.String() != "zipf:1.5" || o.Seed != 9 ||
		o.Method != "POST" || o.Header.Get("X-A") != "1" || o.Header.Get("X-B") != "two" || string(o.Body) != `{"x":1}` ||
		o.Timeout != 2*time.Second || len(o.Checks.Expect) != 3 || o.Checks.Budget != 3*time.Second || o.Checks.Slack != 0 || !o.Checks.SlackSet {
		t.Errorf("options %+v", o)
	}
	o, err = captureOptions(t, "--target", "http://r", "--actors", "3", "--actor", "x")
	if err != nil || strings.Join(o.Actors, ",") != "x" || o.ActorCount != 3 {
		t.Errorf("--actors with --actor: %v %v", o.Actors, err)
	}
	o, err = captureOptions(t, "--url-template", "http://r/{actor}")
	if err != nil || o.HostTemplate != "" || o.URLTemplate != "http://r/{actor}" {
		t.Errorf("--url-template: %+v %v", o, err)
	}
	// Without --seed a seed is picked, so the report can say how to repeat.
	a, _ := captureOptions(t, "--target", "http://r")
	b, _ := captureOptions(t, "--target", "http://r")
	c, _ := captureOptions(t, "--target", "http://r")
	if a.Seed == b.Seed && b.Seed == c.Seed {
		t.Errorf("three runs without --seed all used seed %d", a.Seed)
	}
}

func TestParkingProbeUsageErrors(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{}, "--target is required"},
		{[]string{"--mode", "storm"}, `unknown --mode "storm"`},
		{[]string{"--requests", "0"}, `"--requests" flag: it is out of range: want a whole number from 1 to 100000000000`},
		{[]string{"--requests", "-5"}, `"--requests" flag: it is out of range`},
		{[]string{"--mode", "closed", "--concurrency", "0"}, `"--concurrency" flag: it is out of range: want a whole number from 1 to 1000000`},
		{[]string{"--mode", "closed", "--duration", "-1s"}, `"--duration" flag: it is out of range: want a duration more than 0 and at most 24h`},
		{[]string{"--mode", "open", "--rate", "0"}, `"--rate" flag: it is out of range: want a number more than 0 and at most 1000000`},
		{[]string{"--actors", "0"}, `"--actors" flag: it is out of range: want a whole number from 1 to 1000000000`},
		{[]string{"--distribution", "pareto"}, `unknown distribution "pareto"`},
		{[]string{"--distribution", "hot:2"}, "fraction between 0 and 1"},
		{[]string{"--host-template", "example.com"}, "must contain {actor}"},
		{[]string{"--url-template", "/{actor}", "--host-template", "{actor}.x"}, "exclusive"},
		{[]string{"--actors-file", "/nonexistent/actors"}, "cannot read --actors-file /nonexistent/actors: no such file or directory"},
		{[]string{"--expect", "served>=x"}, `invalid --expect "served>=x" at column 9`},
		{[]string{"--expect", "p99(served)<6"}, "duration with a unit"},
		{[]string{"--plot", "latency.jpg"}, "want a file name ending in .html"},
		{[]string{"--start-at", "tomorrow"}, "RFC 3339"},
		{[]string{"--start-at", "2001-01-01T00:00:00Z"}, "in the past"},
		{[]string{"--header", "nocolon"}, `invalid --header "nocolon"`},
		{[]string{"--header", "X,Y: v"}, `invalid --header "X,Y: v"`},
		{[]string{"--header", "X-Y: a\r\nHost: evil"}, `invalid --header`},
		{[]string{"--timeout", "0s"}, `"--timeout" flag: it is out of range: want a duration more than 0 and at most 24h`},
		{[]string{"--timeout", "soon"}, "invalid argument"},
		{[]string{"--budget", "0s"}, `"--budget" flag: it is out of range: want a duration more than 0 and at most 24h`},
		{[]string{"--metrics-url", "localhost:9090"}, "--metrics-url"},
		{[]string{"--body", "@/nonexistent/body"}, "cannot read --body /nonexistent/body: no such file or directory"},
		{[]string{"extra"}, "unknown command"},
		{[]string{"--actors", "2000000000000"}, `"--actors" flag: it is out of range: want a whole number from 1 to 1000000000`},
		{[]string{"--actors", "100000000", "--distribution", "zipf:1.1"}, "zipf over 100000000 actors is more than 1000000"},
		{[]string{"--requests", "100000000"}, "run several probes with --start-at and merge"},
		{[]string{"--mode", "closed", "--concurrency", "5000000"}, `"--concurrency" flag: it is out of range`},
		{[]string{"--mode", "open", "--rate", "1e9"}, `"--rate" flag: it is out of range`},
		{[]string{"--rate", "5"}, "--rate does not apply to --mode burst"},
		{[]string{"--duration", "5s"}, "--duration does not apply to --mode burst"},
		{[]string{"--mode", "open", "--requests", "5"}, "--requests does not apply to --mode open"},
		{[]string{"--mode", "closed", "--rate", "5"}, "--rate does not apply to --mode closed"},
		{[]string{"--mode", "open", "--concurrency", "5"}, "--concurrency does not apply to --mode open"},
		{[]string{"--out", "/nonexistent/dir/r.json"}, "cannot write --out /nonexistent/dir/r.json: no such file or directory"},
		{[]string{"--plot", "/nonexistent/dir/p.html"}, "cannot write --plot /nonexistent/dir/p.html"},
	}
	for _, tt := range tests {
		f, out, errOut := probeTestFactory(t, context.Background())
		args := append([]string{"parking-probe"}, tt.args...)
		if len(tt.args) > 0 && tt.msg != "--target is required" {
			args = append(args, "--target", srv.URL)
		}
		code := root.Run(f, args)
		if code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want 2; stderr %q", tt.args, code, errOut)
			continue
		}
		first := strings.SplitN(errOut.String(), "\n", 2)[0]
		if !strings.Contains(first, tt.msg) {
			t.Errorf("%v: first stderr line %q, want it to contain %q", tt.args, first, tt.msg)
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q on a usage error", tt.args, out)
		}
	}
}

func TestParkingProbeTextReport(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	f, out, errOut := probeTestFactory(t, context.Background())
	code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "30", "--actors", "2", "--seed", "1"})
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	s := out.String()
	for _, want := range []string{"parking-probe burst of 30", "OUTCOME", "served", "shed", "✓ all_accounted", "all checks passed"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "\x1b[") || errOut.String() != "" {
		t.Errorf("escape codes or stderr when not on a terminal: stderr %q", errOut)
	}
}

func TestParkingProbeJSONAndOut(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	f, out, errOut := probeTestFactory(t, context.Background())
	file := filepath.Join(t.TempDir(), "report.json")
	code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "20", "--actors", "2", "-o", "json", "--out", file})
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("stdout is not exactly one JSON object (%v):\n%s", err, out)
	}
	for _, k := range []string{"target", "mode", "started_at", "duration_seconds", "requests", "outcomes", "checks", "series", "load", "in_flight_peak"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON report lacks %q", k)
		}
	}
	if doc["requests"].(float64) != 20 {
		t.Errorf("requests %v", doc["requests"])
	}
	written, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(written, out.Bytes()) {
		t.Errorf("--out file (%v) differs from stdout", err)
	}

	// YAML carries the same field names.
	f, out, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "5", "-o", "yaml"}); code != cmdutil.ExitOK {
		t.Fatalf("yaml: exit %d, %s", code, errOut)
	}
	var y map[string]any
	if err := yaml.Unmarshal(out.Bytes(), &y); err != nil || y["requests"] != 5 || y["outcomes"] == nil {
		t.Errorf("yaml report %v: %v", err, y["requests"])
	}
}

func TestParkingProbeFailedChecksExit3(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	f, out, errOut := probeTestFactory(t, context.Background())
	code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "20", "--actors", "4", "--expect", "served>=0.9", "--expect", "requests==20"})
	if code != cmdutil.ExitChecksFailed {
		t.Fatalf("exit %d, want 3; stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), "✗ expect served>=0.9") || !strings.Contains(out.String(), "✓ expect requests==20") {
		t.Errorf("report:\n%s", out)
	}
	if !strings.Contains(errOut.String(), "checks failed: expect served>=0.9") {
		t.Errorf("stderr %q does not name the failed check", errOut)
	}
}

func TestParkingProbeUnreachableTarget(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	f, out, errOut := probeTestFactory(t, context.Background())
	code := root.Run(f, []string{"parking-probe", "--target", "http://" + addr})
	if code != cmdutil.ExitFailure {
		t.Fatalf("exit %d, want 1", code)
	}
	if lines := strings.Split(strings.TrimSpace(errOut.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "cannot reach target") || !strings.Contains(lines[0], "connection refused") {
		t.Errorf("stderr %q: want one line saying why", errOut)
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out)
	}
}

// Ctrl-C: the in-flight requests are cancelled and counted, the partial
// report is printed and written, and the exit status is 130.
func TestParkingProbeInterrupted(t *testing.T) {
	t.Parallel()
	var arrived atomic.Int64
	all := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == 10 {
			close(all)
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-all
		cancel(cmdutil.ErrInterrupted)
	}()
	f, out, errOut := probeTestFactory(t, ctx)
	file := filepath.Join(t.TempDir(), "partial.json")
	code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "10", "-o", "json", "--out", file})
	if code != cmdutil.ExitInterrupted {
		t.Fatalf("exit %d, want 130; stderr %q", code, errOut)
	}
	var r struct {
		Requests    int64 `json:"requests"`
		Interrupted bool  `json:"interrupted"`
		Outcomes    map[string]struct {
			Count   int64            `json:"count"`
			Details map[string]int64 `json:"details"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("partial report is not JSON: %v\n%s", err, out)
	}
	if r.Requests != 10 || !r.Interrupted || r.Outcomes["transport_error"].Details["canceled"] != 10 {
		t.Errorf("partial report %+v", r)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("--out not written on interrupt: %v", err)
	}
	if !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestParkingProbeMerge(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	dir := t.TempDir()
	var files []string
	for i, n := range []string{"12", "8"} {
		f, _, errOut := probeTestFactory(t, context.Background())
		file := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", n, "--actors", "2", "--seed", "3", "-o", "json", "--out", file}); code != cmdutil.ExitOK {
			t.Fatalf("run %d: exit %d, %s", i, code, errOut)
		}
		files = append(files, file)
	}
	f, out, errOut := probeTestFactory(t, context.Background())
	merged := filepath.Join(dir, "merged.json")
	code := root.Run(f, append([]string{"parking-probe", "merge", "-o", "json", "--out", merged, "--expect", "requests==20"}, files...))
	if code != cmdutil.ExitOK {
		t.Fatalf("merge: exit %d, %s", code, errOut)
	}
	var r struct {
		Requests int64    `json:"requests"`
		Sources  []string `json:"sources"`
		Outcomes map[string]struct {
			Count int64 `json:"count"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Requests != 20 || r.Outcomes["served"].Count+r.Outcomes["shed"].Count != 20 || len(r.Sources) != 2 {
		t.Errorf("merged %+v", r)
	}
	// Text, and a failing expectation exits 3 as for a run.
	f, out, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, append([]string{"parking-probe", "merge", "--expect", "requests==21"}, files...)); code != cmdutil.ExitChecksFailed {
		t.Errorf("merge with a failing expectation: exit %d, %s", code, errOut)
	}
	if !strings.Contains(out.String(), "merged from") {
		t.Errorf("text merge report:\n%s", out)
	}
	// A file that is not a report is a usage error.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{}"), 0o644)
	f, _, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "merge", bad}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "bad.json") {
		t.Errorf("bad report: exit %d, %s", code, errOut)
	}
	f, _, _ = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "merge"}); code != cmdutil.ExitUsage {
		t.Errorf("merge without files: exit %d", code)
	}
}

func TestParkingProbeProgressAndPlot(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	f, out, errOut := probeTestFactory(t, context.Background())
	f.IOStreams.SetTTY(false, true)
	plot := filepath.Join(t.TempDir(), "latency.html")
	code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--mode", "closed", "--concurrency", "2", "--duration", "600ms", "--actors", "2", "--plot", plot})
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	// The progress line is cleared before the one line saying the plot
	// was written.
	if s := errOut.String(); !strings.Contains(s, "\r\x1b[K") || !strings.Contains(s, "sent ") ||
		!strings.Contains(s, "\r\x1b[Kwrote --plot "+plot+", ") || !strings.HasSuffix(s, " bytes\n") {
		t.Errorf("progress line on a terminal's stderr: %q", s)
	}
	if d := readPage(t, plot); d.Figure.Mode != "closed" {
		t.Errorf("plot of mode %q", d.Figure.Mode)
	}
	if !strings.Contains(out.String(), "closed, 2 workers") {
		t.Errorf("report:\n%s", out)
	}
	// --quiet silences the progress line.
	f, _, errOut = probeTestFactory(t, context.Background())
	f.IOStreams.SetTTY(false, true)
	if code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--quiet", "--target", srv.URL, "--mode", "closed", "--concurrency", "1", "--duration", "300ms"}); code != cmdutil.ExitOK || errOut.String() != "" {
		t.Errorf("--quiet: exit %d, stderr %q", code, errOut)
	}
}

// The local --timeout (per request) shadows the global one, and the global
// configuration still resolves.
func TestParkingProbeTimeoutShadowsGlobal(t *testing.T) {
	t.Parallel()
	var seen *probe.Options
	f, _, _ := probeTestFactory(t, context.Background())
	root := root.NewCmdRoot(f)
	for _, c := range root.Commands() {
		if c.Name() == "parking-probe" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(parkingprobe.NewCmdWith(f, func(o *probe.Options, _ *parkingprobe.Options) error {
		seen = o
		_, err := f.Config()
		return err
	}))
	root.SetArgs([]string{"parking-probe", "--target", "http://r", "--timeout", "750ms", "-o", "json"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	if seen.Timeout != 750*time.Millisecond || cfg.Timeout != 0 || cfg.Output != "json" {
		t.Errorf("probe timeout %s, global timeout %s, output %q", seen.Timeout, cfg.Timeout, cfg.Output)
	}
}

// TestParkingProbeMergeKeepsVerdicts: a failed run does not merge into a
// pass, the same report twice is refused, and so are runs of different
// modes unless --allow-mixed.
func TestParkingProbeMergeKeepsVerdicts(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		f, _, errOut := probeTestFactory(t, context.Background())
		file := filepath.Join(dir, name)
		root.Run(f, append([]string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--actors", "2", "-o", "json", "--out", file}, args...))
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("%s not written: %s", name, errOut)
		}
		return file
	}
	good := run("good.json", "--requests", "6", "--seed", "1")
	failing := run("failing.json", "--requests", "6", "--seed", "2", "--expect", "requests==7")
	closed := run("closed.json", "--mode", "closed", "--concurrency", "1", "--duration", "100ms", "--seed", "3")

	f, out, errOut := probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "merge", good, failing}); code != cmdutil.ExitChecksFailed {
		t.Errorf("merging a failed run: exit %d, want 3; %s", code, errOut)
	}
	if s := out.String(); !strings.Contains(s, "sources_passed") || !strings.Contains(s, "expect requests==7") {
		t.Errorf("merged report lost the run's verdict or its --expect:\n%s", s)
	}
	f, _, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "merge", good, good}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "same run") {
		t.Errorf("same report twice: exit %d, %s", code, errOut)
	}
	f, _, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "merge", good, closed}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "--allow-mixed") {
		t.Errorf("mixed modes: exit %d, %s", code, errOut)
	}
	f, _, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "merge", "--allow-mixed", good, closed}); code == cmdutil.ExitUsage {
		t.Errorf("--allow-mixed still refused: %s", errOut)
	}
}

// TestParkingProbeStartAtSaysUntilWhen: a future --start-at says on stderr
// until when it waits. The factory's clock is an hour early, so the run
// itself does not wait.
func TestParkingProbeStartAtSaysUntilWhen(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	f, _, errOut := probeTestFactory(t, context.Background())
	f.Now = func() time.Time { return time.Now().Add(-time.Hour) }
	at := time.Now().Add(-time.Second).UTC().Format(time.RFC3339)
	root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "2", "--actors", "1", "--start-at", at})
	if !strings.Contains(errOut.String(), "waiting until "+at) {
		t.Errorf("stderr %q does not say until when it waits", errOut)
	}
}

// TestParkingProbeBodyFromStdin: --body @- sends standard input as every
// request's body, as api --body @- and -F k=@- read it (it used to open a
// file named "-"); a body over the bound is refused before any load.
func TestParkingProbeBodyFromStdin(t *testing.T) {
	t.Parallel()
	var bodies atomic.Int32
	var wrong atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) != `{"from":"stdin"}` {
			wrong.Store(string(b))
		}
		bodies.Add(1)
		shedLikeARouter(w, r)
	}))
	defer srv.Close()
	f, _, errOut := probeTestFactory(t, context.Background())
	f.IOStreams.In = strings.NewReader(`{"from":"stdin"}`)
	code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "3", "--actors", "1",
		"--method", "POST", "--body", "@-"})
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := bodies.Load(); n != 3 {
		t.Errorf("%d requests arrived, want 3", n)
	}
	if w := wrong.Load(); w != nil {
		t.Errorf("a request's body was %q, not standard input", w)
	}

	f, _, errOut = probeTestFactory(t, context.Background())
	f.IOStreams.In = bytes.NewReader(make([]byte, 16<<20+1))
	code = root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "3", "--body", "@-"})
	if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "--body from standard input is larger than 16 MiB, the most --body reads") {
		t.Errorf("an oversized body: exit %d, %s", code, errOut)
	}
	if n := bodies.Load(); n != 3 {
		t.Errorf("the refused run sent %d requests", n-3)
	}
}

// --transport picks the HTTP client, the report says which one ran, and an
// unknown one is a usage error naming the flag before any load is sent.
func TestParkingProbeTransportFlag(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		shedLikeARouter(w, r)
	}))
	defer srv.Close()
	for _, kind := range []string{"wire", "net/http"} {
		f, out, errOut := probeTestFactory(t, context.Background())
		code := root.Run(f, []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "2", "--actors", "1",
			"--transport", kind, "-o", "json"})
		if code != cmdutil.ExitOK {
			t.Fatalf("--transport %s: exit %d: %s", kind, code, errOut)
		}
		var rep struct {
			Transport string `json:"transport"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Transport != kind {
			t.Errorf("--transport %s: report transport %q (%v)", kind, rep.Transport, err)
		}
	}
	before := hits.Load()
	f, _, errOut := probeTestFactory(t, context.Background())
	code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "2", "--transport", "curl"})
	if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "--transport") {
		t.Errorf("--transport curl: exit %d, %s", code, errOut)
	}
	if hits.Load() != before {
		t.Errorf("the refused run sent %d requests", hits.Load()-before)
	}
}

// --procs N runs the load with GOMAXPROCS N, set by the command and put
// back when the run ends; a negative count is refused before any load.
// (Not parallel: it changes the test process's GOMAXPROCS for the run.)
func TestParkingProbeProcs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var during atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		during.Store(int64(runtime.GOMAXPROCS(0)))
		shedLikeARouter(w, r)
	}))
	t.Cleanup(srv.Close)
	want := 1
	if before == 1 {
		want = 2
	}
	f, _, errOut := probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h", "--procs", strconv.Itoa(want)}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	if got := during.Load(); got != int64(want) {
		t.Errorf("GOMAXPROCS %d during the run, want --procs %d", got, want)
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after the run, want the %d it was before", got, before)
	}

	during.Store(0)
	f, _, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h", "--procs", "-1"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), `"--procs" flag: it is out of range: want a whole number from 0 to 1024`) {
		t.Errorf("--procs -1: exit %d, %s", code, errOut)
	}
	if during.Load() != 0 {
		t.Error("a request was sent although --procs was refused")
	}
}
