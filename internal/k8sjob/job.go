// Package k8sjob writes the Kubernetes Indexed Job that runs one
// parking-probe command line as N shards, one pod each, for a load one
// machine cannot send.
//
// It spells the few batch/v1 and core/v1 fields it needs in its own small
// structs rather than linking k8s.io/api into shakectl: that module and its
// dependencies would cost the binary size and start-up time for one
// manifest. The tests decode every manifest strictly into the official
// k8s.io/api/batch/v1 Job (a test-only dependency), so a misspelt field
// fails there.
package k8sjob

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/output/termtext"
)

// Spec is what the manifest is made from.
type Spec struct {
	// Name is the Job's name; its pods are Name-INDEX-xxxxx.
	Name      string
	Namespace string
	// Image must have shakectl as its entrypoint, as the release image
	// (ghcr.io/shakenfist/shakectl, built by ko) has.
	Image  string
	Shards int
	// StartAt is when every shard releases its load (--start-at).
	StartAt time.Time
	// ProbeArgs are parking-probe's flags, already checked; they must not
	// hold --shard, --shards, --start-at or -o (the Job sets those) and
	// must hold --seed, so every shard draws from the same actor choice.
	ProbeArgs []string
	// InFlight is the most requests one shard may hold at once; it sizes
	// the pod's memory (see MemoryFor).
	InFlight int64
	// TTLAfterFinished is how long the finished Job and its pods (and so
	// their logs) stay; 0 means DefaultTTL.
	TTLAfterFinished time.Duration
}

// DefaultTTL keeps a finished Job's pods, and so the logs merge reads, for
// an hour.
const DefaultTTL = time.Hour

// Memory sizing, from BENCHMARKS.md row 6: one probe process holding
// 10,000 requests in flight peaked at 242–243 MiB RSS, about 22 KiB a
// request over a ~20 MiB process. MemoryFor allows 64 MiB for the process
// (histograms, the report, the Go runtime) plus 25 KiB a request in flight,
// which is 308 MiB for 10,000: about a quarter above the measured peak.
const (
	memoryBaseMiB        = 64
	memoryPerInFlightKiB = 25
)

// MemoryFor is the memory request and limit, in MiB, of a shard that holds
// up to inFlight requests at once.
func MemoryFor(inFlight int64) int64 {
	kib := memoryBaseMiB*1024 + max(inFlight, 0)*memoryPerInFlightKiB
	return (kib + 1023) / 1024
}

// nonRootUID is the distroless "nonroot" user the release image's base
// (cgr.dev/chainguard/static) runs as. Naming it lets the kubelet check
// runAsNonRoot for any image, even one whose user is a name.
const nonRootUID = 65532

// Labels every pod carries; the topology spread selects on instanceLabel.
const (
	nameLabel     = "app.kubernetes.io/name"
	instanceLabel = "app.kubernetes.io/instance"
	appName       = "parking-probe"
)

// dnsLabel is compiled on first use, not at every shakectl start-up.
var dnsLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })

// SpecError is a Spec that cannot make a valid Job.
type SpecError struct{ Msg string }

func (e *SpecError) Error() string { return e.Msg }

func (s Spec) check() error {
	// The Job controller labels pods with the Job's name, and label values
	// hold at most 63 characters.
	if len(s.Name) > 63 || !dnsLabel().MatchString(s.Name) {
		return &SpecError{fmt.Sprintf("job name %q is not a DNS label (lower-case letters, digits and '-', at most 63)", s.Name)}
	}
	if s.Namespace != "" && (len(s.Namespace) > 63 || !dnsLabel().MatchString(s.Namespace)) {
		return &SpecError{fmt.Sprintf("namespace %q is not a DNS label", s.Namespace)}
	}
	if s.Image == "" {
		return &SpecError{"no image"}
	}
	if s.Shards < 1 {
		return &SpecError{fmt.Sprintf("shards must be at least 1, got %d", s.Shards)}
	}
	if s.StartAt.IsZero() {
		return &SpecError{"no start time"}
	}
	return nil
}

// Args are the container's arguments: parking-probe, the shard count, the
// common start and JSON output (one document per pod, for merge -),
// followed by the user's probe flags. The pod's index comes from
// JOB_COMPLETION_INDEX, which Kubernetes sets in an Indexed Job.
func (s Spec) Args() []string {
	args := []string{"parking-probe",
		"--shards", strconv.Itoa(s.Shards),
		"--start-at", s.StartAt.UTC().Format(time.RFC3339),
		"-o", "json",
	}
	return append(args, s.ProbeArgs...)
}

// Build makes the Job.
func Build(s Spec) (*Job, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	ttl := s.TTLAfterFinished
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	n := int32(s.Shards)
	labels := map[string]string{nameLabel: appName, instanceLabel: s.Name}
	mem := MemoryFor(s.InFlight)
	no, yes := false, true
	return &Job{
		APIVersion: "batch/v1",
		Kind:       "Job",
		Metadata:   ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: labels},
		Spec: JobSpec{
			CompletionMode: "Indexed",
			Completions:    n,
			Parallelism:    n,
			// One try per shard: a shard that ran again would send its load
			// twice, after the others, and merge would see two reports for
			// it. Per index (Kubernetes 1.29+, GA in 1.33), not the Job-wide
			// backoffLimit: 0 there fails the Job at the first failed pod
			// and kills the shards still running, and a shard exits 3
			// whenever its checks fail, which is a finding, not a reason to
			// lose the other shards' reports. backoffLimit is left unset
			// (it then defaults to 2147483647); the Job ends Failed once
			// every shard has run if any failed.
			BackoffLimitPerIndex:    0,
			TTLSecondsAfterFinished: int32(ttl / time.Second),
			Template: PodTemplateSpec{
				Metadata: ObjectMeta{Labels: labels},
				Spec: PodSpec{
					RestartPolicy: "Never",
					// The probe talks to the router, never to the API
					// server: no token in the pod, no ServiceAccount
					// rights needed.
					AutomountServiceAccountToken: &no,
					EnableServiceLinks:           &no,
					SecurityContext: &PodSecurityContext{
						RunAsNonRoot:   &yes,
						RunAsUser:      nonRootUID,
						RunAsGroup:     nonRootUID,
						SeccompProfile: &SeccompProfile{Type: "RuntimeDefault"},
					},
					// One shard a node where the nodes allow it: shards on one
					// node share its CPU and network, and the run measures the
					// node, not the router. DoNotSchedule rather than
					// ScheduleAnyway: a Pending shard is visible (kubectl wait
					// times out, merge names the missing shard), a doubled-up
					// one only skews the numbers. maxSkew 1 still fits N shards
					// on fewer nodes, evenly; nodeTaintsPolicy Honor keeps
					// nodes the pods cannot go to (a tainted control plane)
					// from counting as empty domains that would block it.
					TopologySpreadConstraints: []TopologySpreadConstraint{{
						MaxSkew:           1,
						TopologyKey:       "kubernetes.io/hostname",
						WhenUnsatisfiable: "DoNotSchedule",
						LabelSelector:     &LabelSelector{MatchLabels: map[string]string{instanceLabel: s.Name}},
						NodeTaintsPolicy:  "Honor",
					}},
					Containers: []Container{{
						Name:  "parking-probe",
						Image: s.Image,
						Args:  s.Args(),
						Env: []EnvVar{
							// The GC works harder near the limit rather than
							// the kernel killing the shard mid-run.
							{Name: "GOMEMLIMIT", Value: fmt.Sprintf("%dMiB", mem*9/10)},
						},
						// Memory: request = limit, sized for the shard's
						// in-flight requests. CPU: one core requested and no
						// limit, since CFS throttling would show up as router
						// latency in the probe's own measurements.
						Resources: ResourceRequirements{
							Requests: map[string]string{"cpu": "1", "memory": fmt.Sprintf("%dMi", mem)},
							Limits:   map[string]string{"memory": fmt.Sprintf("%dMi", mem)},
						},
						SecurityContext: &SecurityContext{
							AllowPrivilegeEscalation: &no,
							ReadOnlyRootFilesystem:   &yes,
							RunAsNonRoot:             &yes,
							Capabilities:             &Capabilities{Drop: []string{"ALL"}},
						},
					}},
				},
			},
		},
	}, nil
}

// WriteJSON writes the Job as one indented JSON document, C1 controls
// escaped (termtext.JSON) as in every JSON shakectl prints.
func (j *Job) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(j); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(b.Bytes()))
	return err
}

// WriteYAML writes the Job as YAML, in the field order of the structs
// (apiVersion, kind, metadata, spec, as kubectl users read them), through
// the same JSON-to-YAML rendering as every -o yaml of shakectl: the field
// names are the JSON tags, strings YAML 1.1 would read as booleans (yes,
// on, …, which kubectl's sigs.k8s.io/yaml does) stay quoted, and control
// characters are escaped.
func (j *Job) WriteYAML(w io.Writer) error {
	raw, err := json.Marshal(j)
	if err != nil {
		return err
	}
	y, err := output.JSONToYAML(raw)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}
