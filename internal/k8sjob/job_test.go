package k8sjob

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var start = time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)

func testSpec() Spec {
	return Spec{
		Name: "parking-probe-x7k2p", Namespace: "substrate", Image: "ghcr.io/shakenfist/shakectl:1.2.3",
		Shards: 4, StartAt: start, InFlight: 10_000,
		ProbeArgs: []string{"--target", "http://router:8080", "--mode", "burst", "--requests", "40000", "--seed", "7"},
	}
}

// decodeStrict reads a manifest into the official Job type, refusing any
// field the type does not know: a misspelt or misplaced field fails here
// rather than being dropped (or refused) by the API server.
func decodeStrict(t *testing.T, format string, doc []byte) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	switch format {
	case "yaml":
		if err := yaml.UnmarshalStrict(doc, &job); err != nil {
			t.Fatalf("the YAML manifest does not decode strictly into batch/v1 Job: %v\n%s", err, doc)
		}
	case "json":
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&job); err != nil {
			t.Fatalf("the JSON manifest does not decode strictly into batch/v1 Job: %v\n%s", err, doc)
		}
		if dec.More() {
			t.Fatal("more than one JSON document")
		}
	}
	return &job
}

func TestManifestDecodesIntoTheOfficialJob(t *testing.T) {
	j, err := Build(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	var y, js bytes.Buffer
	if err := j.WriteYAML(&y); err != nil {
		t.Fatal(err)
	}
	if err := j.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	golden(t, "job.golden.yaml", y.Bytes())
	fromYAML, fromJSON := decodeStrict(t, "yaml", y.Bytes()), decodeStrict(t, "json", js.Bytes())
	if a, b := must(json.Marshal(fromYAML)), must(json.Marshal(fromJSON)); !bytes.Equal(a, b) {
		t.Errorf("YAML and JSON manifests differ:\n%s\n%s", a, b)
	}
	checkJob(t, fromYAML, testSpec())
}

// checkJob asserts every property issue 16 asks of the Job.
func checkJob(t *testing.T, job *batchv1.Job, s Spec) {
	t.Helper()
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name != s.Name || job.Namespace != s.Namespace {
		t.Errorf("type/name: %s %s %s/%s", job.APIVersion, job.Kind, job.Namespace, job.Name)
	}
	js := job.Spec
	n := int32(s.Shards)
	if js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", js.CompletionMode)
	}
	if js.Completions == nil || *js.Completions != n || js.Parallelism == nil || *js.Parallelism != n {
		t.Errorf("completions %v parallelism %v, want %d", js.Completions, js.Parallelism, n)
	}
	// No retry of a shard, and one shard's failure (exit 3: its checks
	// failed) must not stop the others: backoffLimitPerIndex 0 and no
	// Job-wide backoffLimit.
	if js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != 0 || js.BackoffLimit != nil || js.MaxFailedIndexes != nil {
		t.Errorf("backoffLimitPerIndex %v backoffLimit %v maxFailedIndexes %v, want 0, unset, unset", js.BackoffLimitPerIndex, js.BackoffLimit, js.MaxFailedIndexes)
	}
	if js.TTLSecondsAfterFinished == nil || *js.TTLSecondsAfterFinished != 3600 {
		t.Errorf("ttlSecondsAfterFinished %v, want 3600", js.TTLSecondsAfterFinished)
	}
	ps := js.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %s", ps.RestartPolicy)
	}
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken {
		t.Error("the service account token is mounted")
	}
	if sc := ps.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 ||
		sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v", sc)
	}
	if len(ps.TopologySpreadConstraints) != 1 {
		t.Fatalf("topologySpreadConstraints %+v", ps.TopologySpreadConstraints)
	}
	tsc := ps.TopologySpreadConstraints[0]
	if tsc.MaxSkew != 1 || tsc.TopologyKey != "kubernetes.io/hostname" || tsc.WhenUnsatisfiable != corev1.DoNotSchedule {
		t.Errorf("topology spread %+v", tsc)
	}
	// The spread must select this Job's pods, by a label they carry.
	sel := tsc.LabelSelector
	if sel == nil || len(sel.MatchLabels) == 0 {
		t.Fatalf("topology spread selects nothing: %+v", sel)
	}
	for k, v := range sel.MatchLabels {
		if job.Spec.Template.Labels[k] != v {
			t.Errorf("spread selects %s=%s, which the pods do not carry (%v)", k, v, job.Spec.Template.Labels)
		}
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("containers %+v", ps.Containers)
	}
	c := ps.Containers[0]
	if c.Image != s.Image {
		t.Errorf("image %s", c.Image)
	}
	csc := c.SecurityContext
	if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem ||
		csc.Capabilities == nil || !slices.Equal(csc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(csc.Capabilities.Add) > 0 || csc.Privileged != nil && *csc.Privileged {
		t.Errorf("container securityContext %+v", csc)
	}
	// Resources: memory request = limit, sized for the in-flight count.
	if req, lim := c.Resources.Requests.Memory(), c.Resources.Limits.Memory(); req.IsZero() || req.Cmp(*lim) != 0 {
		t.Errorf("memory request %s, limit %s: want equal", req, lim)
	}
	if got, want := c.Resources.Limits.Memory().Value(), MemoryFor(s.InFlight)<<20; got != want {
		t.Errorf("memory limit %d bytes, want %d", got, want)
	}
	if cpu := c.Resources.Requests.Cpu(); cpu.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("cpu request %s, want 1", cpu)
	}
	// Args: the shard count, the common start, JSON output, then the
	// user's flags, the seed among them.
	args := strings.Join(c.Args, " ")
	for _, want := range []string{
		"parking-probe --shards 4 --start-at " + s.StartAt.Format(time.RFC3339) + " -o json",
		strings.Join(s.ProbeArgs, " "),
	} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	if c.Args[0] != "parking-probe" || len(c.Command) > 0 {
		t.Errorf("the image's entrypoint must run: command %v args %v", c.Command, c.Args)
	}
}

func TestMemoryFor(t *testing.T) {
	for inFlight, want := range map[int64]int64{0: 64, 1: 65, 10_000: 309, 2_500: 126, -5: 64} {
		if got := MemoryFor(inFlight); got != want {
			t.Errorf("MemoryFor(%d) = %d MiB, want %d", inFlight, got, want)
		}
	}
	// Above the 243 MiB the 10,000-in-flight benchmark peaked at.
	if MemoryFor(10_000) <= 243 {
		t.Error("no headroom over the benchmark")
	}
}

func TestBuildRefusesBadSpecs(t *testing.T) {
	for name, edit := range map[string]func(*Spec){
		"upper-case name":  func(s *Spec) { s.Name = "Probe" },
		"long name":        func(s *Spec) { s.Name = strings.Repeat("a", 64) },
		"bad namespace":    func(s *Spec) { s.Namespace = "a_b" },
		"no image":         func(s *Spec) { s.Image = "" },
		"no shards":        func(s *Spec) { s.Shards = 0 },
		"no start":         func(s *Spec) { s.StartAt = time.Time{} },
		"name ends in '-'": func(s *Spec) { s.Name = "probe-" },
	} {
		s := testSpec()
		edit(&s)
		if _, err := Build(s); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestYAMLQuotesWhatWouldChangeType: args that read as a time, a number or
// a boolean stay strings (a strict decode of args []string would catch
// them too, but this names the cause).
func TestYAMLQuotesWhatWouldChangeType(t *testing.T) {
	s := testSpec()
	s.ProbeArgs = []string{"--requests", "40000", "--header", "X-Flag: true", "--seed", "7", "--atespace", "yes", "--body", "null", "--actor", "On", "--actor", "n", "--actor", "~", "--actor", "1e3", "--actor", "0x1F"}
	if got := argsThroughYAML(t, s); !slices.Equal(got, s.Args()) {
		t.Errorf("args through YAML %q, want %q", got, s.Args())
	}
}

// argsThroughYAML is the container's args as kubectl reads them from the
// YAML manifest of s.
func argsThroughYAML(t *testing.T, s Spec) []string {
	t.Helper()
	j, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	var y bytes.Buffer
	if err := j.WriteYAML(&y); err != nil {
		t.Fatal(err)
	}
	return decodeStrict(t, "yaml", y.Bytes()).Spec.Template.Spec.Containers[0].Args
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
