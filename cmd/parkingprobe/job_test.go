package parkingprobe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

var jobClock = time.Date(2030, 1, 2, 15, 4, 5, 500_000_000, time.UTC)

// runJob runs `shakectl args...` with the clock pinned at jobClock.
func runJob(t *testing.T, args ...string) clitest.RunResult {
	t.Helper()
	ios, _, out, errOut := output.Test()
	dir := t.TempDir()
	f := &cmdutil.Factory{
		IOStreams: ios,
		Build:     cmdutil.BuildInfo{Version: "1.2.3-test"},
		Getenv:    func(string) (string, bool) { return "", false },
		HomeDir:   filepath.Join(dir, "home"),
		Now:       func() time.Time { return jobClock },
		Context:   context.Background(),
	}
	code := root.Run(f, args)
	return clitest.RunResult{Code: code, Stdout: out.String(), Stderr: errOut.String()}
}

func decodeJob(t *testing.T, format, doc string) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	if format == "json" {
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&job); err != nil {
			t.Fatalf("not a strict batch/v1 Job: %v\n%s", err, doc)
		}
		return &job
	}
	if err := yaml.UnmarshalStrict([]byte(doc), &job); err != nil {
		t.Fatalf("not a strict batch/v1 Job: %v\n%s", err, doc)
	}
	return &job
}

func argValue(args []string, flag string) (string, bool) {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return "", false
	}
	return args[i+1], true
}

func TestParkingProbeJobManifest(t *testing.T) {
	t.Parallel()
	const image = "ghcr.io/shakenfist/shakectl:1.2.3"
	for _, format := range []string{"yaml", "json"} {
		args := []string{"parking-probe", "job", "--shards", "4", "--image", image, "-n", "substrate"}
		if format == "json" {
			args = append(args, "-o", "json")
		}
		args = append(args, "--", "--target", "http://router:8080", "--mode", "burst", "--requests", "40000")
		r := runJob(t, args...)
		if r.Code != cmdutil.ExitOK {
			t.Fatalf("%s: %s", format, r)
		}
		if format == "json" && !json.Valid([]byte(r.Stdout)) {
			t.Fatalf("-o json printed more than JSON on stdout:\n%s", r.Stdout)
		}
		job := decodeJob(t, format, r.Stdout)
		if !regexp.MustCompile(`^parking-probe-[a-z0-9]{5}$`).MatchString(job.Name) || job.Namespace != "substrate" {
			t.Errorf("%s: job %s/%s", format, job.Namespace, job.Name)
		}
		if job.Spec.Parallelism == nil || *job.Spec.Parallelism != 4 || *job.Spec.Completions != 4 || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("%s: job spec %+v", format, job.Spec)
		}
		c := job.Spec.Template.Spec.Containers[0]
		if c.Image != image {
			t.Errorf("image %s", c.Image)
		}
		// One minute after the pinned clock, rounded up to a whole second.
		if at, _ := argValue(c.Args, "--start-at"); at != "2030-01-02T15:05:06Z" {
			t.Errorf("%s: --start-at %q, want 2030-01-02T15:05:06Z", format, at)
		}
		if n, _ := argValue(c.Args, "--shards"); n != "4" {
			t.Errorf("%s: --shards %q", format, n)
		}
		if o, _ := argValue(c.Args, "-o"); o != "json" {
			t.Errorf("%s: the pods do not print JSON: %q", format, c.Args)
		}
		if reqs, _ := argValue(c.Args, "--requests"); reqs != "40000" {
			t.Errorf("the probe flags did not reach the pods: %q", c.Args)
		}
		// No --seed given: one is chosen, once, for every shard.
		if seed, ok := argValue(c.Args, "--seed"); !ok || seed == "" || seed == "0" {
			t.Errorf("no shared seed in %q", c.Args)
		}
		// 40,000 over 4 shards: 10,000 in flight each, 64 MiB + 25 KiB each.
		if mem := c.Resources.Limits.Memory().Value(); mem != 309<<20 {
			t.Errorf("memory limit %d, want 309 MiB", mem)
		}
		if !strings.Contains(r.Stderr, "kubectl logs -n substrate -l job-name="+job.Name+" --tail=-1 --max-log-requests=4 | shakectl parking-probe merge -") {
			t.Errorf("no next steps on stderr:\n%s", r.Stderr)
		}
	}
}

func TestParkingProbeJobKeepsTheGivenSeedNameAndStart(t *testing.T) {
	t.Parallel()
	r := runJob(t, "parking-probe", "job", "--shards", "2", "--image", "img:1", "--name", "probe-a", "--start-in", "5m", "--ttl", "2h",
		"--", "--target", "http://r:8080", "--mode", "open", "--rate", "100", "--duration", "1m", "--seed", "42", "--timeout", "4s")
	if r.Code != cmdutil.ExitOK {
		t.Fatal(r)
	}
	job := decodeJob(t, "yaml", r.Stdout)
	c := job.Spec.Template.Spec.Containers[0]
	if job.Name != "probe-a" || *job.Spec.TTLSecondsAfterFinished != 7200 {
		t.Errorf("name %s ttl %d", job.Name, *job.Spec.TTLSecondsAfterFinished)
	}
	if strings.Count(strings.Join(c.Args, " "), "--seed") != 1 {
		t.Errorf("the seed is given twice: %q", c.Args)
	}
	if seed, _ := argValue(c.Args, "--seed"); seed != "42" {
		t.Errorf("seed %q, want 42", seed)
	}
	if at, _ := argValue(c.Args, "--start-at"); at != "2030-01-02T15:09:06Z" {
		t.Errorf("--start-at %s", at)
	}
	// Open mode: 50 req/s a shard, each held at most --timeout 4s: 200 in
	// flight, 64 MiB + 200 × 25 KiB = 69 MiB.
	if mem := c.Resources.Requests.Memory().Value(); mem != 69<<20 {
		t.Errorf("memory request %d MiB, want 69", mem>>20)
	}
}

func TestParkingProbeJobUsageErrors(t *testing.T) {
	t.Parallel()
	job := []string{"parking-probe", "job", "--shards", "4", "--image", "img:1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"parking-probe", "job", "--shards", "4", "--", "--target", "http://r"}, "--image is required"},
		{[]string{"parking-probe", "job", "--shards", "0", "--image", "img:1", "--", "--target", "http://r"}, `"--shards" flag: it is out of range: want a whole number from 1 to 100000`},
		{[]string{"parking-probe", "job", "--image", "img:1", "--", "--target", "http://r"}, "--shards must be at least 1"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--shard", "1"), "--shard cannot be passed to the shards"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--shards=2"), "--shards cannot be passed"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--start-at", "2030-01-01T00:00:00Z"), "use job --start-in"},
		{append(slices.Clone(job), "--", "--target", "http://r", "-o", "yaml"), "--output cannot be passed"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--out", "r.json"), "--out cannot be passed"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--body", "@req.json"), "names a file a pod does not have"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--no-such-flag"), "unknown flag: --no-such-flag"},
		{append(slices.Clone(job), "--", "--target", "http://r", "extra"), `unexpected argument "extra"`},
		{append(slices.Clone(job), "--target", "http://r"), "unknown flag: --target"},
		{append(slices.Clone(job), "--", "--mode", "trickle", "--target", "http://r"), `unknown --mode "trickle"`},
		{append(slices.Clone(job), "--", "--mode", "burst", "--rate", "5", "--target", "http://r"), "--rate does not apply to --mode burst"},
		{append(slices.Clone(job), "--", "--requests", "40"), "the shards need --target"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--requests", "3"), "every shard must send at least one request"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--actor", "a", "--actor", "b"), "more than the 2 actors"},
		{append(slices.Clone(job), "--", "--help"), "the flags after -- are parking-probe's"},
		// The probe's own checks run before any pod exists.
		{append(slices.Clone(job), "--", "--target", "http://r", "--requests", "99999999"), "--requests 99999999 is more than"},
		{append(slices.Clone(job), "--", "--target", "http://r", "--url-template", "/no-actor"), "must contain {actor}"},
		{[]string{"parking-probe", "job", "--shards", "2", "--image", "img:1", "--name", "Probe_A", "--", "--target", "http://r"}, "not a DNS label"},
		{[]string{"parking-probe", "job", "--shards", "2", "--image", "img:1", "--start-in", "0s", "--", "--target", "http://r"}, `"--start-in" flag: it is out of range: want a duration more than 0 and at most 24h`},
	} {
		r := runJob(t, tc.args...)
		if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Stderr, tc.want) || r.Stdout != "" {
			t.Errorf("shakectl %s: want exit %d and %q, nothing on stdout:\n%s", strings.Join(tc.args, " "), cmdutil.ExitUsage, tc.want, r)
		}
	}
}

// The job subcommand is wired under parking-probe and its -o json is
// honoured (parking-probe's outputs annotation allows it).
func TestParkingProbeJobHelp(t *testing.T) {
	t.Parallel()
	r := runJob(t, "parking-probe", "job", "--help")
	if r.Code != cmdutil.ExitOK || !strings.Contains(r.Stdout, "completionMode Indexed") || !bytes.Contains([]byte(r.Stdout), []byte("ghcr.io/shakenfist/shakectl")) {
		t.Errorf("help:\n%s", r)
	}
}
