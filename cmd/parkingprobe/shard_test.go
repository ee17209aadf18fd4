package parkingprobe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/parkingprobe"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/probe"
)

// captureOptionsEnv runs parking-probe's flag handling only, with env as
// the environment.
func captureOptionsEnv(t *testing.T, env map[string]string, args ...string) (*probe.Options, error) {
	t.Helper()
	f, _, _ := probeTestFactory(t, context.Background())
	f.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	root := root.NewCmdRoot(f)
	for _, c := range root.Commands() {
		if c.Name() == "parking-probe" {
			root.RemoveCommand(c)
		}
	}
	var got *probe.Options
	root.AddCommand(parkingprobe.NewCmdWith(f, func(o *probe.Options, _ *parkingprobe.Options) error {
		got = o
		return nil
	}))
	root.SetArgs(append([]string{"parking-probe"}, args...))
	return got, root.ExecuteContext(context.Background())
}

// captureShardOptions is captureOptionsEnv with a --target.
func captureShardOptions(t *testing.T, env map[string]string, args ...string) (*probe.Options, error) {
	t.Helper()
	return captureOptionsEnv(t, env, append([]string{"--target", "http://r:8080"}, args...)...)
}

func TestParkingProbeShardFlags(t *testing.T) {
	t.Parallel()
	o, err := captureShardOptions(t, nil, "--shards", "3", "--shard", "1", "--seed", "5")
	if err != nil || o.Shard != (probe.Shard{Index: 1, Count: 3}) || o.Seed != 5 {
		t.Fatalf("--shard 1: %+v %v", o, err)
	}
	o, err = captureShardOptions(t, map[string]string{"JOB_COMPLETION_INDEX": "2"}, "--shards", "3", "--seed", "5")
	if err != nil || o.Shard != (probe.Shard{Index: 2, Count: 3}) {
		t.Fatalf("JOB_COMPLETION_INDEX=2: %+v %v", o, err)
	}
	// Without --seed, every shard derives the same one from --start-at.
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	a, errA := captureShardOptions(t, nil, "--shards", "2", "--shard", "0", "--start-at", at)
	b, errB := captureShardOptions(t, nil, "--shards", "2", "--shard", "1", "--start-at", at)
	if errA != nil || errB != nil || a.Seed != b.Seed {
		t.Errorf("seeds derived from one --start-at: %d %d (%v %v)", a.Seed, b.Seed, errA, errB)
	}
	// A pod scheduled after --start-at runs at once (its report says how
	// late); a lone run with a past --start-at is still refused.
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	if o, err := captureShardOptions(t, nil, "--shards", "2", "--shard", "1", "--start-at", past); err != nil || o.StartAt.IsZero() {
		t.Errorf("a late shard was refused: %v", err)
	}
	if _, err := captureShardOptions(t, nil, "--start-at", past); err == nil || !strings.Contains(err.Error(), "in the past") {
		t.Errorf("a lone run with a past --start-at: %v", err)
	}
	if o, _ := captureShardOptions(t, map[string]string{"JOB_COMPLETION_INDEX": "4"}); o == nil || o.Shard.Count != 0 {
		t.Errorf("JOB_COMPLETION_INDEX without --shards made a shard: %+v", o)
	}

	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"--shards", "3", "--shard", "1"}, "needs --seed (or --start-at"},
		{nil, []string{"--shards", "3", "--seed", "1"}, "--shard I, or JOB_COMPLETION_INDEX"},
		{nil, []string{"--shards", "3", "--shard", "3", "--seed", "1"}, "--shard 3 is out of range"},
		{nil, []string{"--shards", "0", "--seed", "1"}, `"--shards" flag: it is out of range: want a whole number from 1 to 100000`},
		{map[string]string{"JOB_COMPLETION_INDEX": "x"}, []string{"--shards", "3", "--seed", "1"}, `JOB_COMPLETION_INDEX="x" is not a shard index`},
	} {
		_, err := captureShardOptions(t, c.env, c.args...)
		var ue *cmdutil.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
}

// Three shard processes' -o json, among other log lines, merged from stdin.
func TestParkingProbeMergeStdin(t *testing.T) {
	t.Parallel()
	srv := probeTarget(t)
	var stream bytes.Buffer
	var runID string
	for i := range 3 {
		f, out, errOut := probeTestFactory(t, context.Background())
		f.Getenv = func(k string) (string, bool) {
			if k == "JOB_COMPLETION_INDEX" {
				return fmt.Sprint(i), true
			}
			return "", false
		}
		args := []string{"parking-probe", "--shed-max", "30s", "--target", srv.URL, "--requests", "20", "--actors", "4",
			"--distribution", "hot:0.5", "--seed", "3", "--shards", "3", "-o", "json"}
		if code := root.Run(f, args); code != cmdutil.ExitOK {
			t.Fatalf("shard %d: exit %d, %s", i, code, errOut)
		}
		var head struct {
			RunID string `json:"run_id"`
			Shard int    `json:"shard"`
		}
		if err := json.Unmarshal(out.Bytes(), &head); err != nil || head.Shard != i {
			t.Fatalf("shard %d report: %+v %v", i, head, err)
		}
		runID = head.RunID
		fmt.Fprintf(&stream, "[pod/probe-%d-abcde/probe] shard %d of 3, seed 3\n", i, i)
		for _, l := range strings.SplitAfter(out.String(), "\n") {
			if l != "" {
				fmt.Fprintf(&stream, "[pod/probe-%d-abcde/probe] %s", i, l)
			}
		}
	}
	f, out, errOut := probeTestFactory(t, context.Background())
	f.IOStreams.In = bytes.NewReader(stream.Bytes())
	if code := root.Run(f, []string{"parking-probe", "merge", "-", "-o", "json", "--expect", "requests==20"}); code != cmdutil.ExitOK {
		t.Fatalf("merge -: exit %d, %s", code, errOut)
	}
	var m struct {
		Schema   string   `json:"schema"`
		RunID    string   `json:"run_id"`
		Shards   int      `json:"shards"`
		Requests int64    `json:"requests"`
		Sources  []string `json:"sources"`
		Load     struct {
			Requests int `json:"requests"`
		} `json:"load"`
	}
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.Schema != "parking-probe/v1" || m.RunID != runID || m.Shards != 3 || m.Requests != 20 || m.Load.Requests != 20 ||
		len(m.Sources) != 3 || !strings.HasPrefix(m.Sources[2], "pod/probe-2-abcde/probe") {
		t.Errorf("merged %+v", m)
	}

	// The stream without shard 1's report, and with a cut copy of it.
	var partial bytes.Buffer
	for _, l := range strings.SplitAfter(stream.String(), "\n") {
		if !strings.HasPrefix(l, "[pod/probe-1-") {
			partial.WriteString(l)
		}
	}
	partial.WriteString("[pod/probe-1-abcde/probe] {\n[pod/probe-1-abcde/probe]   \"schema\": \"parking-probe/v1\",\n")
	f, _, errOut = probeTestFactory(t, context.Background())
	f.IOStreams.In = bytes.NewReader(partial.Bytes())
	if code := root.Run(f, []string{"parking-probe", "merge", "-"}); code != cmdutil.ExitUsage ||
		!strings.Contains(errOut.String(), "shard 1 of 3 missing") || !strings.Contains(errOut.String(), "pod/probe-1-abcde/probe (line") {
		t.Errorf("missing shard: exit %d, %s", code, errOut)
	}

	// Under -o json the same failure's stderr is JSON, one object a line:
	// the warning about the cut-off report, then the error.
	f, _, errOut = probeTestFactory(t, context.Background())
	f.IOStreams.In = bytes.NewReader(partial.Bytes())
	root.Run(f, []string{"parking-probe", "merge", "-", "-o", "json"})
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) < 2 || !strings.Contains(lines[0], `"warning"`) {
		t.Errorf("-o json stderr: want a warning object, then the error:\n%s", errOut)
	}
	for _, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Errorf("-o json stderr line is not JSON: %q", l)
		}
	}

	// An unknown major schema is refused.
	f, _, errOut = probeTestFactory(t, context.Background())
	f.IOStreams.In = strings.NewReader(strings.ReplaceAll(stream.String(), "parking-probe/v1", "parking-probe/v2"))
	if code := root.Run(f, []string{"parking-probe", "merge", "-"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "unknown major version 2") {
		t.Errorf("v2 report: exit %d, %s", code, errOut)
	}
	f, _, errOut = probeTestFactory(t, context.Background())
	f.IOStreams.In = strings.NewReader("no reports here\n")
	if code := root.Run(f, []string{"parking-probe", "merge", "-"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "no whole parking-probe report") {
		t.Errorf("empty stream: exit %d, %s", code, errOut)
	}
}
