package parkingprobe

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/k8sjob"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/probe"
)

// ReleaseImage is the image goreleaser publishes with ko (.goreleaser.yaml,
// kos); its entrypoint is shakectl.
const ReleaseImage = "ghcr.io/shakenfist/shakectl"

type JobOptions struct {
	shards    int
	image     string
	name      string
	namespace string
	startIn   time.Duration
	ttl       time.Duration
}

const jobLong = `Print a Kubernetes Job that runs one parking-probe command line as N shards,
one pod each, which together send exactly the load the command line asks
for. Pipe it to kubectl apply; each pod prints its JSON report to its log,
and "parking-probe merge -" reads them all back from kubectl logs.

The probe's flags go after --, as for a local run; --shard, --shards,
--start-at and -o are the Job's to set, and --out, --plot and --actors-file
name files a pod does not have. Without --seed one is chosen here, so every
shard draws from the same actor choice.

The Job (batch/v1):
  completionMode Indexed   each pod's shard is its JOB_COMPLETION_INDEX;
                           parallelism = completions = --shards
  backoffLimitPerIndex 0   with restartPolicy Never, a shard runs once (a
                           retry would send its load again, late), and one
                           that fails its checks (exit 3) does not stop the
                           others; the Job ends Failed then, after all have
                           run. Needs Kubernetes 1.29 or later
  --start-at               --start-in from now (default 1m), the same for
                           every shard, so they fire together
  resources                memory request = limit = 64 MiB + 25 KiB per
                           request a shard may hold in flight (burst: its
                           requests; closed: its workers; open: its rate x
                           the per-request timeout), from the 10,000
                           in-flight benchmark (243 MiB); GOMEMLIMIT at 90%;
                           CPU request 1 and no CPU limit (throttling would
                           read as router latency)
  topology spread          at most one shard more on any node
                           (kubernetes.io/hostname, maxSkew 1,
                           DoNotSchedule: better a Pending shard, which merge
                           reports missing, than two measuring one node)
  no privileges            no ServiceAccount token, runAsNonRoot (65532),
                           read-only root, no privilege escalation, all
                           capabilities dropped, seccomp RuntimeDefault
  ttlSecondsAfterFinished  --ttl (default 1h): the logs stay readable that
                           long after the Job ends

The image must run shakectl as its entrypoint, as the release image
` + ReleaseImage + `:VERSION does.`

func newCmdJob(f *cmdutil.Factory) *cobra.Command {
	opts := &JobOptions{}
	c := cmdutil.Local(&cobra.Command{
		Use:   "job",
		Short: "Print a Kubernetes Indexed Job that runs the probe as N shards on N pods",
		Long:  jobLong,
		Example: `  shakectl parking-probe job --shards 4 --image ` + ReleaseImage + `:1.2.3 -- \
      --target http://router:8080 --mode burst --requests 40000 --seed 7 | kubectl apply -f -
  kubectl wait --for=condition=complete job/NAME --timeout=10m
  kubectl logs -l job-name=NAME --tail=-1 --max-log-requests=4 | shakectl parking-probe merge -`,
	}, func(c *cobra.Command, args []string) error {
		return runJob(f, c, opts, args)
	})
	builders.Args(c, "--shards N --image IMAGE [flags] -- PROBE-FLAGS...")
	fl := c.Flags()
	numflag.Var(fl, &opts.shards, "shards", 0, numflag.Between(1, MaxShards), "number of shards, one pod each (required)")
	fl.StringVar(&opts.image, "image", "", "container image whose entrypoint is shakectl, e.g. "+ReleaseImage+":1.2.3 (required)")
	fl.StringVar(&opts.name, "name", "", "the Job's name (default parking-probe-<random>)")
	// Shadows the global --namespace (the Shakenfist API's), as kubectl's -n.
	fl.StringVarP(&opts.namespace, "namespace", "n", "", "Kubernetes namespace of the Job (default: kubectl's current one)")
	numflag.Var(fl, &opts.startIn, "start-in", time.Minute, numflag.Above(0, MaxDuration), "how long from now the shards start together: time enough to pull the image and schedule every pod")
	numflag.Var(fl, &opts.ttl, "ttl", k8sjob.DefaultTTL, numflag.Between(time.Second, MaxJobTTL), "how long the finished Job and its pods (and logs) stay")
	for _, name := range []string{"image", "name", "namespace"} {
		cmdutil.Must(c.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions))
	}
	return c
}

// MaxJobTTL bounds --ttl: a month of keeping a finished Job's pods
// (Kubernetes counts it in int32 seconds).
const MaxJobTTL = 30 * 24 * time.Hour

// jobOwnedFlags are probe flags the Job sets or that name a pod's files.
var jobOwnedFlags = map[string]string{
	"shard":       "the Job gives each pod its shard (JOB_COMPLETION_INDEX)",
	"shards":      "give it to job itself: job --shards N",
	"start-at":    "the Job sets it; use job --start-in",
	"output":      "the Job sets -o json, one report per pod log",
	"jq":          "merge reads the pods' JSON reports whole",
	"out":         "a pod's report goes to its log; merge reads it from there",
	"plot":        "a pod's files are lost with it; draw the merged report with \"parking-probe merge - --plot FILE.html\"",
	"actors-file": "a pod has no file of yours; pass the actors with --actor or --actors",
}

func runJob(f *cmdutil.Factory, c *cobra.Command, opts *JobOptions, args []string) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if dash := c.ArgsLenAtDash(); len(args) > 0 && dash != 0 {
		return cmdutil.UsageErrorf("unexpected argument %q: parking-probe's flags go after --", args[0])
	}
	if opts.image == "" {
		return cmdutil.UsageErrorf("--image is required: an image whose entrypoint is shakectl, e.g. %s:1.2.3", ReleaseImage)
	}
	if opts.shards < 1 {
		return cmdutil.UsageErrorf("--shards must be at least 1, got %d", opts.shards)
	}
	po, probeArgs, err := checkProbeFlags(f, args, opts.shards)
	if err != nil {
		return err
	}
	if per := po.InFlightPerShard(opts.shards); per > probe.InFlightPerProcess {
		f.IOStreams.Notifier().Warn(fmt.Sprintf("each shard may hold %d requests in flight, more than one probe process holds well (about %d): use more --shards (at least %d)",
			per, probe.InFlightPerProcess, (per*int64(opts.shards)+probe.InFlightPerProcess-1)/probe.InFlightPerProcess))
	}
	name := opts.name
	if name == "" {
		name = "parking-probe-" + randomSuffix()
	}
	now := f.Now()
	startAt := now.Add(opts.startIn).Truncate(time.Second)
	if startAt.Before(now.Add(opts.startIn)) {
		startAt = startAt.Add(time.Second)
	}
	job, err := k8sjob.Build(k8sjob.Spec{
		Name: name, Namespace: opts.namespace, Image: opts.image, Shards: opts.shards,
		StartAt: startAt, ProbeArgs: probeArgs, InFlight: po.InFlightPerShard(opts.shards),
		TTLAfterFinished: opts.ttl,
	})
	if err != nil {
		var se *k8sjob.SpecError
		if errors.As(err, &se) {
			return &cmdutil.UsageError{Msg: se.Msg}
		}
		return err
	}
	switch cfg.Output {
	case output.FormatJSON:
		err = job.WriteJSON(f.IOStreams.Out)
	default:
		// YAML is what kubectl apply -f - is usually fed; "table" is the
		// global default and means it too.
		err = job.WriteYAML(f.IOStreams.Out)
	}
	if err != nil {
		return err
	}
	ns := ""
	if opts.namespace != "" {
		ns = " -n " + opts.namespace
	}
	f.IOStreams.Notifier().Block("next_steps", fmt.Sprintf("# job %s: %d shards starting together at %s (in %s); then\n#   kubectl wait%s --for=condition=complete job/%s --timeout=%s\n#   kubectl logs%s -l job-name=%s --tail=-1 --max-log-requests=%d | shakectl parking-probe merge -\n",
		name, opts.shards, startAt.UTC().Format(time.RFC3339), opts.startIn, ns, name, po.JobWaitTimeout(opts.startIn), ns, name, opts.shards))
	return nil
}

// checkProbeFlags parses the probe's flags with parking-probe's own flag
// set and option checks, so a mistake is refused here, not in N pods a
// minute later. It returns the options and the flags for the pods, with
// --seed added when none was given.
func checkProbeFlags(f *cmdutil.Factory, args []string, shards int) (*probe.Options, []string, error) {
	var po *probe.Options
	pc := NewCmdWith(f, func(o *probe.Options, _ *Options) error { po = o; return nil })
	pfl := pc.Flags()
	// Flags the Job owns that this flag set may not define (-o and --jq are
	// the root's), so that they are refused by name, not as unknown.
	for name := range jobOwnedFlags {
		if pfl.Lookup(name) == nil {
			pfl.StringP(name, map[string]string{"output": "o"}[name], "", "")
		}
	}
	if err := pfl.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil, cmdutil.UsageErrorf("the flags after -- are parking-probe's: see shakectl parking-probe --help")
		}
		return nil, nil, cmdutil.UsageErrorf("parking-probe flag after --: %s", err)
	}
	if rest := pfl.Args(); len(rest) > 0 {
		return nil, nil, cmdutil.UsageErrorf("unexpected argument %q after --: parking-probe takes flags only", rest[0])
	}
	var refused error
	pfl.Visit(func(fl *pflag.Flag) {
		if why, ok := jobOwnedFlags[fl.Name]; ok && refused == nil {
			refused = cmdutil.UsageErrorf("--%s cannot be passed to the shards: %s", fl.Name, why)
		}
	})
	if refused != nil {
		return nil, nil, refused
	}
	if body := pfl.Lookup("body"); body != nil && strings.HasPrefix(body.Value.String(), "@") {
		return nil, nil, cmdutil.UsageErrorf("--body %s names a file a pod does not have: pass the body itself", body.Value)
	}
	if err := pc.RunE(pc, nil); err != nil {
		return nil, nil, err
	}
	if po.Target == "" && !strings.Contains(po.URLTemplate, "://") {
		return nil, nil, cmdutil.UsageErrorf("the shards need --target (after --), the router's URL as the pods reach it, e.g. http://router.substrate:8080")
	}
	// Every check the pods' probes would make, here, before any pod exists.
	if err := po.Validate(); err != nil {
		return nil, nil, probeError(err)
	}
	flag, n := po.ShardedLoad()
	if err := (probe.Shard{Index: 0, Count: shards}).SplitLoad(flag, n, len(po.Actors)+po.ActorCount); err != nil {
		return nil, nil, probeError(err)
	}
	probeArgs := append([]string(nil), args...)
	if !pfl.Changed("seed") {
		probeArgs = append(probeArgs, "--seed", strconv.FormatUint(po.Seed, 10))
	}
	return po, probeArgs, nil
}

// randomSuffix is five characters in the style of Kubernetes' generated
// names (no vowels, so no words).
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
}
