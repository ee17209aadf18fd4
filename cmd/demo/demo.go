package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/sim"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/outfile"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/sim/cluster"
	"github.com/shakenfist/shakectl/sim/router"
)

// Options shape the tour; tests shorten the waits.
type Options struct {
	// RetryAfter is the simulated cluster's Retry-After, in seconds.
	RetryAfter int
	// TeardownLag is how long a deleted instance keeps its capacity.
	TeardownLag time.Duration
	// ParkBudget is the simulated router's park budget.
	ParkBudget time.Duration
	// SkipRouter leaves out the second act.
	SkipRouter bool
	// Run runs one shakectl command line: the tree's own Run, handed in
	// by the root so this package need not import the tree it belongs to.
	Run func(f *cmdutil.Factory, args []string) int
}

// NewCmd builds `shakectl demo`: a narrated tour that runs real shakectl
// command lines against simulators started in this process.
func NewCmd(f *cmdutil.Factory, run func(*cmdutil.Factory, []string) int) *cobra.Command {
	opts := Options{Run: run, RetryAfter: 1, TeardownLag: 2 * time.Second, ParkBudget: 2 * time.Second}
	c := cmdutil.Local(&cobra.Command{
		Use:   "demo",
		Short: "Tour shakectl against embedded simulators (no cluster needed)",
		Long: `Start a tiny simulated Shakenfist cluster and a simulated atenet router in
this process, then run real shakectl commands against them while narrating:

  1. list the nodes, create instances until the cluster refuses with a
     transient 507 (exit 75), ask for more vCPUs than any node has (a
     structural 507, exit 69), then delete an instance and create again with
     --retry-transient-capacity, which rides out the refusals until the
     deleted instance's capacity comes back;
  2. a pipeline that tests an image: upload it as an artifact, make room
     and boot from it with --retry-transient-capacity, copy a file into the
     guest, run a command there (shakectl exits with its code), copy the
     file back out, and delete everything it made;
  3. fire a burst at the router with parking-probe: requests are parked,
     shed when the parking lot is full, or run out of park budget.

Everything listens on loopback and is gone when the demo ends. It takes
a few seconds.`,
	}, func(c *cobra.Command, _ []string) error {
		return runTour(f, opts)
	})
	c.Flags().BoolVar(&opts.SkipRouter, "skip-router", false, "only tour the cluster client")
	return c
}

// demoStep is one narrated command line and the exit code the tour expects.
type demoStep struct {
	say  string
	args []string
	want int
	// uuid, when set, receives the uuid field of the command's table
	// output, for the steps after it.
	uuid *string
}

func runTour(f *cmdutil.Factory, opts Options) error {
	ctx := f.Context
	out := f.IOStreams.Out
	cs := output.NewColourScheme(f.IOStreams.ColourEnabled())
	started := f.Now()

	ccfg := cluster.DefaultConfig()
	ccfg.Listen = "127.0.0.1:0"
	ccfg.Nodes = 2
	ccfg.NodeCPUs = 4
	// Real schedulers overcommit vCPUs 16× (the simulator's default, as
	// Shakenfist da448b1a does); the demo turns that off so two instances
	// visibly fill its two nodes.
	ccfg.CPUOvercommit = 1
	ccfg.NodeMemoryMiB = 8192
	ccfg.NodeDiskGiB = 100
	ccfg.RetryAfter = opts.RetryAfter
	ccfg.TeardownLag = opts.TeardownLag
	ccfg.CreateTime = 200 * time.Millisecond
	// Not the default key "demo": shakectl masks the key wherever it
	// appears in output, and it would mask the instances' names too.
	ccfg.AuthKey = "sim-demo-key"
	var err error
	if ccfg.Listener, err = network.Listener(ctx, f.Net, ccfg.Listen); err != nil {
		return fmt.Errorf("starting the simulated cluster: %w", err)
	}
	sim, err := cluster.Start(ctx, ccfg)
	if err != nil {
		return fmt.Errorf("starting the simulated cluster: %w", err)
	}
	defer sim.Close()

	fmt.Fprintln(out, cs.Bold("shakectl demo: a tour against embedded simulators (nothing leaves this machine)"))
	fmt.Fprintln(out)
	fmt.Fprintln(out, cs.Bold("Act 1: a Shakenfist cluster that fills up"))
	fmt.Fprintf(out, "A simulated cluster is listening at %s: %d hypervisors with %d vCPUs each and no overcommit,\n", sim.URL(), ccfg.Nodes, ccfg.NodeCPUs)
	fmt.Fprintf(out, "Retry-After shortened from 15s to %ds and a teardown lag of %s.\n", opts.RetryAfter, opts.TeardownLag)

	env := map[string]string{
		"SHAKENFIST_API_URL":   sim.URL(),
		"SHAKENFIST_NAMESPACE": ccfg.AuthNamespace,
		"SHAKENFIST_KEY":       ccfg.AuthKey,
	}
	run := func(s demoStep) error {
		fmt.Fprintln(out)
		if s.say != "" {
			fmt.Fprintln(out, cs.Cyan("# "+s.say))
		}
		child := demoChild(f, env)
		var captured strings.Builder
		if s.uuid != nil {
			child.IOStreams.Out = io.MultiWriter(out, &captured)
		}
		fmt.Fprintln(out, cs.Bold("$ shakectl "+shellQuote(s.args)))
		code := opts.Run(child, s.args)
		if s.uuid != nil {
			for _, line := range strings.Split(captured.String(), "\n") {
				if v, ok := strings.CutPrefix(line, "uuid\t"); ok {
					*s.uuid = strings.TrimSpace(v)
				}
			}
			if code == s.want && *s.uuid == "" {
				return fmt.Errorf("the demo found no uuid in the output of `shakectl %s`", shellQuote(s.args))
			}
		}
		fmt.Fprintln(out, cs.Gray(fmt.Sprintf("(exit %d)", code)))
		if code != s.want {
			return fmt.Errorf("the demo expected `shakectl %s` to exit %d, it exited %d", shellQuote(s.args), s.want, code)
		}
		return nil
	}

	steps := []demoStep{
		{say: "The cluster's nodes and their roles (the API shows no capacity; the scheduler keeps it):", args: []string{"node", "list"}},
		{say: "Fill it up: each instance takes all 4 vCPUs of a node.", args: []string{"instance", "create", "demo-1", "4", "1024", "-d", "8@debian:12", "--async", "continue"}},
		{args: []string{"instance", "create", "demo-2", "4", "1024", "-d", "8@debian:12", "--async", "continue"}},
		{say: "The cluster is full now. The refusal is transient (exit 75): waiting can fix it.",
			args: []string{"instance", "create", "demo-3", "4", "1024", "-d", "8@debian:12", "--async", "continue"}, want: cmdutil.ExitCapacityTransient},
		{say: "More vCPUs than any node hosts is a structural refusal (exit 69): waiting will not fix it.",
			args: []string{"instance", "create", "huge", "64", "1024", "-d", "8", "--async", "continue"}, want: cmdutil.ExitCapacityPermanent},
		{say: fmt.Sprintf("Delete demo-1; its capacity comes back after the %s teardown lag.", opts.TeardownLag),
			args: []string{"instance", "delete", "demo-1", "--async", "continue"}},
		{say: "Create again, this time riding out the transient refusals as the server's Retry-After says:",
			args: []string{"--retry-transient-capacity", "--timeout", "30s", "instance", "create", "demo-3", "4", "1024", "-d", "8@debian:12"}},
		{say: "Where everything ended up (the error record is a refused create's, which the cluster deletes shortly, as Shakenfist does):", args: []string{"instance", "list"}},
	}
	for _, s := range steps {
		if err := run(s); err != nil {
			return err
		}
	}
	if err := demoPipeline(out, cs, opts, run); err != nil {
		return err
	}

	if !opts.SkipRouter {
		if err := demoRouter(ctx, f, opts, out, cs); err != nil {
			return err
		}
	}

	fmt.Fprintln(out)
	fmt.Fprintln(out, cs.Bold("Summary"))
	fmt.Fprintln(out, "  - a transient 507 exits 75 and a structural one 69, so scripts can tell them apart;")
	fmt.Fprintln(out, "  - --retry-transient-capacity waited as the server asked, at most 5 attempts, within the deadline;")
	fmt.Fprintln(out, "  - the pipeline's upload was checked against the server's sha512, and execute exited with the guest command's code;")
	if !opts.SkipRouter {
		fmt.Fprintln(out, "  - parking-probe classified every answer of the router and checked its parking behaviour;")
	}
	fmt.Fprintf(out, "  - try `shakectl sim cluster` and `shakectl sim router` to rehearse by hand. (%s)\n", cmdutil.RoundDuration(f.Now().Sub(started)))
	return nil
}

// demoPipeline is the second act: what a CI job does with an image. The
// files live in a temporary folder removed at the end; the simulated
// agent holds only what is put into the guest (sim/cluster/agent.go), so
// the file copied out is one copied in.
func demoPipeline(out io.Writer, cs output.ColourScheme, opts Options, run func(demoStep) error) error {
	scratch, err := outfile.NewScratch("shakectl-demo-")
	if err != nil {
		return fmt.Errorf("making the demo's temporary folder: %w", err)
	}
	defer scratch.Remove()
	dir := scratch.Dir
	back := filepath.Join(dir, "run-tests.back")
	// A small stand-in image: the simulator never boots it, it only
	// stores, checksums and serves it.
	image, err := scratch.WriteFile("ci-image.qcow2", []byte(strings.Repeat("QFI\xfb shakectl demo image\n", 4096)), 0o600)
	if err != nil {
		return err
	}
	script, err := scratch.WriteFile("run-tests.sh", []byte("#!/bin/sh\necho all tests passed\n"), 0o700)
	if err != nil {
		return err
	}

	fmt.Fprintln(out)
	fmt.Fprintln(out, cs.Bold("Act 2: a pipeline that tests an image"))
	fmt.Fprintf(out, "Files under %s, removed when the demo ends.\n", dir)
	// The refused creates the retry rode out leave error records named
	// ci1 for a while (as Shakenfist does), so a name would be ambiguous:
	// the pipeline goes on with the UUID, as a script should.
	var id string
	steps := []func() demoStep{
		func() demoStep {
			return demoStep{say: "Upload the image under test (chunked, verified against the sha512 the server computes):",
				args: []string{"artifact", "upload", "ci-image", image}}
		},
		func() demoStep {
			return demoStep{say: "Make room: delete the first act's instances (the server deletes them in the background).",
				args: []string{"instance", "delete-all", "--all-namespaces", "--yes"}}
		},
		func() demoStep {
			return demoStep{say: fmt.Sprintf("Boot from the image; the freed capacity comes back after the %s teardown lag, and the retry waits for it:", opts.TeardownLag),
				args: []string{"--retry-transient-capacity", "--timeout", "30s", "instance", "create", "ci1", "2", "1024", "-d", "8@ci-image", "--async", "block"},
				uuid: &id}
		},
		func() demoStep {
			return demoStep{say: "Copy the test script into the guest through its agent:",
				args: []string{"instance", "upload", id, script, "/opt/run-tests.sh"}}
		},
		func() demoStep {
			return demoStep{say: "Run a command in the guest: its output is shakectl's, and so is its exit code.",
				args: []string{"instance", "execute", id, "--", "cat", "/opt/run-tests.sh"}}
		},
		func() demoStep {
			return demoStep{say: "A failing command fails the step (the simulated agent runs echo, cat, sleep, exit N):",
				args: []string{"instance", "execute", id, "--", "sh", "-c", "exit 3"}, want: 3}
		},
		func() demoStep {
			return demoStep{say: "Copy a file out of the guest (renamed into place only when complete and verified):",
				args: []string{"instance", "download", id, "/opt/run-tests.sh", back}}
		},
		func() demoStep {
			return demoStep{say: "Delete everything the pipeline made: the instance, the image, and the blob's carrier artifact.",
				args: []string{"instance", "delete", id}}
		},
		func() demoStep { return demoStep{args: []string{"artifact", "delete", "ci-image"}} },
		func() demoStep { return demoStep{args: []string{"artifact", "delete", "upload-to-" + id}} },
	}
	for _, step := range steps {
		if err := run(step()); err != nil {
			return err
		}
	}
	got, err := os.ReadFile(back)
	if err != nil {
		return fmt.Errorf("the file copied out of the guest is missing: %w", err)
	}
	want, _ := os.ReadFile(script)
	if string(got) != string(want) {
		return fmt.Errorf("the file copied out of the guest differs from the one copied in")
	}
	return nil
}

func demoRouter(ctx context.Context, f *cmdutil.Factory, opts Options, out io.Writer, cs output.ColourScheme) error {
	rcfg := router.DefaultConfig()
	rcfg.Listen, rcfg.MetricsListen, rcfg.StatusListen = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	rcfg.Workers = 2
	rcfg.Actors = 30
	rcfg.ParkedRequestMax = 20
	// The breaker holds the whole burst of 60: below it, a machine too
	// busy to answer as fast as the burst arrives overflows it (Envoy's
	// empty 500s, no_envoy_overflow failed in a loaded test run), which
	// would make the tour's verdict depend on the machine's speed.
	rcfg.ExtprocMaxRequests = 60
	rcfg.ParkedRequestBudget = opts.ParkBudget
	rcfg.ServiceTime = 20 * time.Millisecond
	// Actors stay up longer than the budget lets a parked flight wait for
	// a later turn, so some flights run out of budget: the pool is the
	// bottleneck, which is what budget_exhausted reports.
	rcfg.ActorIdle = 600 * time.Millisecond
	if err := sim.RouterListeners(ctx, f, &rcfg); err != nil {
		return fmt.Errorf("starting the simulated router: %w", err)
	}
	srv, err := router.Start(ctx, rcfg)
	if err != nil {
		return fmt.Errorf("starting the simulated router: %w", err)
	}
	defer srv.Close()

	fmt.Fprintln(out)
	fmt.Fprintln(out, cs.Bold("Act 3: an atenet router that parks requests"))
	fmt.Fprintf(out, "A simulated router is listening at %s: %d workers for %d suspended actors,\n", srv.URL(), rcfg.Workers, rcfg.Actors)
	fmt.Fprintf(out, "a parking lot of %d and a park budget of %s.\n", rcfg.ParkedRequestMax, rcfg.ParkedRequestBudget)
	args := []string{"parking-probe", "--target", srv.URL(), "--mode", "burst", "--requests", "60", "--actors", "30",
		"--budget", rcfg.ParkedRequestBudget.String(), "--metrics-url", srv.MetricsURL(), "--statusz-url", srv.StatusURL()}
	fmt.Fprintln(out)
	fmt.Fprintln(out, cs.Cyan("# A burst of 60 requests at once: more than the lot holds, more actors than workers."))
	fmt.Fprintln(out, cs.Bold("$ shakectl "+strings.Join(args, " ")))
	code := opts.Run(demoChild(f, nil), args)
	fmt.Fprintln(out, cs.Gray(fmt.Sprintf("(exit %d)", code)))
	if code != cmdutil.ExitOK {
		return fmt.Errorf("the demo expected parking-probe to pass its checks against the simulator, it exited %d", code)
	}
	return nil
}

// demoChild is a factory for one narrated command: the demo's streams,
// context and clock, but an environment that points at the simulator and
// no config files, so the user's own configuration cannot interfere.
func demoChild(f *cmdutil.Factory, env map[string]string) *cmdutil.Factory {
	return &cmdutil.Factory{
		// Streams of its own: a notifier in the child's mode.
		IOStreams:        f.IOStreams.Child(),
		Build:            f.Build,
		Now:              f.Now,
		Context:          f.Context,
		Transport:        f.Transport,
		Net:              f.Net,
		SystemConfigFile: filepath.Join(os.DevNull, "none"),
		Getenv: func(k string) (string, bool) {
			if k == "NO_COLOR" || k == "CLICOLOR_FORCE" {
				return f.Getenv(k)
			}
			v, ok := env[k]
			return v, ok
		},
	}
}

// shellQuote shows a command line as one would type it: words that need
// it in single quotes.
func shellQuote(words []string) string {
	out := make([]string, len(words))
	for k, w := range words {
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`|&;<>()*?[]#~!{}") {
			out[k] = w
			continue
		}
		out[k] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
