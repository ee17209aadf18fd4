package parkingprobe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
	"sigs.k8s.io/yaml"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output"
)

// The examples of README.md and of the manual (docs/*.md, where the
// probe's and the simulators' pages hold most of them) pass their own
// checks against their own simulators. Every ```sh block of those pages
// that runs parking-probe or sim router is run here the way sh runs it
// (mvdan.cc/sh parses and interprets it: continuation lines, quotes, the
// shard loop's $i, $at from $(date …), &, wait, > and |), with every
// command it runs played in-process: shakectl by root.Run, sim router on
// ports of its own (the pages' 127.0.0.1:8080, :9090, :4040 and
// router:8080 rewritten to them, nothing else), curl, date and cat by
// small stand-ins that refuse any form they do not know. Each block runs in
// a testing/synctest bubble of its own, on an in-memory network
// (internal/memnet, Factory.Net): the park budgets, the shards' --start-at
// and the open schedule run on the bubble's clock, so every check of every
// probe is judged, the ones that time the router included. A block without a
// sim router line is paired with `sim router` as documented (the reference
// target, at its default addresses). Any other command fails the test, so
// an example a page grows cannot pass by not being run.

// exampleBlock is one ```sh block of README.md or of a page of docs/.
type exampleBlock struct {
	file    string // README.md, docs/request-parking.md …
	heading string // the nearest heading above it
	line    int    // the page's line of its first line
	src     string
}

// where names the block for a person: "docs/simulators.md line 190".
func (b exampleBlock) where() string { return fmt.Sprintf("%s line %d", b.file, b.line) }

// exampleBlocks are the ```sh blocks of README.md and of every page of the
// manual, in that order.
func exampleBlocks(t *testing.T) []exampleBlock {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages under docs/: %v", err)
	}
	var blocks []exampleBlock
	for _, p := range append([]string{filepath.Join("..", "..", "README.md")}, pages...) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.ToSlash(strings.TrimPrefix(p, filepath.Join("..", "..")+string(filepath.Separator)))
		var cur *exampleBlock
		heading := ""
		for i, l := range strings.Split(string(raw), "\n") {
			switch {
			case cur == nil && strings.HasPrefix(l, "#"):
				heading = strings.TrimSpace(strings.TrimLeft(l, "#"))
			case cur == nil && l == "```sh":
				cur = &exampleBlock{file: file, heading: heading, line: i + 2}
			case cur != nil && l == "```":
				blocks = append(blocks, *cur)
				cur = nil
			case cur != nil:
				cur.src += l + "\n"
			}
		}
		if cur != nil {
			t.Fatalf("%s: the ```sh block is never closed", cur.where())
		}
	}
	return blocks
}

// shakectlCalls are the block's shakectl command lines, as parsed: their
// literal words (a word holding $i or $at is "$").
func shakectlCalls(f *syntax.File) [][]string {
	var calls [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 || c.Args[0].Lit() != "shakectl" {
			return true
		}
		var words []string
		for _, w := range c.Args {
			if lit := w.Lit(); lit != "" {
				words = append(words, lit)
			} else {
				words = append(words, "$")
			}
		}
		calls = append(calls, words)
		return true
	})
	return calls
}

func TestManualExamplesPassTheirChecks(t *testing.T) {
	t.Parallel()
	// What the examples must include between them; each is ticked off by
	// a run, so pages that lose one (or a parser that finds none) fail
	// here rather than passing on nothing.
	shapes := map[string]bool{
		"burst": false, "open": false, "shards": false, "merge -": false,
		"sim router flags": false, "curl": false, "job": false,
	}
	var mu sync.Mutex
	saw := func(shape string) {
		mu.Lock()
		defer mu.Unlock()
		shapes[shape] = true
	}
	blocks := 0
	// The blocks run in parallel, each in a bubble of its own with
	// simulators of its own: sharing the CPUs changes no virtual time.
	t.Run("blocks", func(t *testing.T) {
		for _, b := range exampleBlocks(t) {
			f, err := syntax.NewParser().Parse(strings.NewReader(b.src), b.file)
			if err != nil {
				t.Fatalf("%s (%s): not sh: %v", b.where(), b.heading, err)
			}
			var probes, sims int
			job := false
			for _, c := range shakectlCalls(f) {
				switch {
				case slices.Equal(c[1:min(3, len(c))], []string{"parking-probe", "job"}):
					job = true
				case len(c) > 1 && c[1] == "parking-probe":
					probes++
				case slices.Equal(c[1:min(3, len(c))], []string{"sim", "router"}):
					sims++
				}
			}
			if probes+sims == 0 && !job {
				continue
			}
			blocks++
			t.Run(fmt.Sprintf("%s:%d", strings.TrimSuffix(filepath.Base(b.file), ".md"), b.line), func(t *testing.T) {
				t.Parallel()
				if job {
					runJobExample(t, b, f, saw)
					return
				}
				// In a bubble of its own: the simulators, the probes
				// and curl on an in-memory network, every wait (the
				// park budget, the shards' --start-at) on its clock.
				synctest.Test(t, func(t *testing.T) { runSimExample(t, b, f, sims > 0, probes, saw) })
			})
		}
	})
	if blocks < 5 {
		t.Errorf("found %d blocks with parking-probe or sim router examples in README.md and docs/; there have been at least 5", blocks)
	}
	for shape, ran := range shapes {
		if !ran {
			t.Errorf("no example of README.md or docs/ ran a %s", shape)
		}
	}
}

// exampleShell runs one example block against in-process simulators.
type exampleShell struct {
	t   *testing.T
	dir string
	saw func(string)
	// src is the block, whose end-of-line comments say what a curl
	// line's answer holds.
	src string

	mu sync.Mutex
	// addrs maps the examples' addresses to the in-process simulator's.
	addrs map[string]string
	ready chan struct{}
	// probes counts the parking-probe runs (merge included).
	probes int
	// sims are the block's running `sim router &`.
	sims sync.WaitGroup
	// net is the network the block's commands listen and dial on, and
	// web curl's client over it.
	net *memnet.Network
	web *http.Client
}

func runSimExample(t *testing.T, b exampleBlock, f *syntax.File, hasSim bool, probes int, saw func(string)) {
	sh := &exampleShell{t: t, dir: t.TempDir(), saw: saw, ready: make(chan struct{}), src: b.src, net: &memnet.Network{}}
	web := sh.net.Transport()
	defer web.CloseIdleConnections()
	sh.web = &http.Client{Transport: web}
	if !hasSim {
		// The examples' own addresses are sim router's defaults: it is
		// the target these examples name.
		urls, _, _, stop := clitest.StartSimRouterCmdOn(t, sh.net)
		defer stop()
		sh.setAddrs(urls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The shard loop's four probes write the block's streams at once.
	var out, errOut syncbuf.Buffer
	r, err := interp.New(
		interp.StdIO(strings.NewReader(""), &out, &errOut),
		interp.Dir(sh.dir),
		// The examples' own environment only: none of this process's
		// (a SHAKENFIST_* or JOB_COMPLETION_INDEX of the machine's would
		// change what they do).
		interp.Env(expand.ListEnviron("HOME="+sh.dir)),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return sh.exec }),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Bounded: a hung example fails here instead of running into go
	// test's own 10 minute timeout.
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, f) }()
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		// Cancelled as Ctrl-C would; the commands it runs end within
		// seconds, before the test returns and their t calls would panic.
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
		t.Fatalf("%s: still running after 3 minutes", b.where())
	}
	cancel()
	sh.sims.Wait() // the block's `sim router &`, stopped as its shell ends
	if err != nil {
		t.Errorf("%s (%s): the block ends with %v\nstdout:\n%s\nstderr:\n%s", b.where(), b.heading, err, out.String(), errOut.String())
	}
	// Every parking-probe line ran (a loop's once per pass).
	if sh.probes < probes {
		t.Errorf("%s: %d parking-probe runs for %d parking-probe lines", b.where(), sh.probes, probes)
	}
}

// setAddrs makes the examples' addresses point at a started simulator.
func (sh *exampleShell) setAddrs(urls map[string]string) {
	hostport := func(u string) string {
		u = strings.TrimPrefix(u, "http://")
		hp, _, _ := strings.Cut(u, "/")
		return hp
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.addrs != nil {
		sh.t.Errorf("a second simulator in one example block")
		return
	}
	sh.addrs = map[string]string{
		"127.0.0.1:8080": hostport(urls["router"]),
		"router:8080":    hostport(urls["router"]),
		"127.0.0.1:9090": hostport(urls["metrics"]),
		"127.0.0.1:4040": hostport(urls["statusz"]),
		"router:4040":    hostport(urls["statusz"]),
	}
	close(sh.ready)
}

// rewrite points the examples' addresses in one argument at the simulator.
func (sh *exampleShell) rewrite(ctx context.Context, arg string) (string, error) {
	select {
	case <-sh.ready:
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("no simulator is running for %q", arg)
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for from, to := range sh.addrs {
		arg = strings.ReplaceAll(arg, "//"+from, "//"+to)
	}
	return arg, nil
}

// exec runs one command of the block.
func (sh *exampleShell) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	switch {
	case len(args) >= 3 && args[0] == "shakectl" && args[1] == "sim" && args[2] == "router":
		return sh.simRouter(ctx, args[3:])
	case args[0] == "shakectl":
		return sh.shakectl(ctx, args[1:])
	case args[0] == "curl":
		return sh.curl(ctx, args[1:])
	case args[0] == "date":
		return readmeDate(hc, args[1:])
	case args[0] == "cat":
		for _, name := range args[1:] {
			b, err := os.ReadFile(filepath.Join(hc.Dir, name))
			if err != nil {
				fmt.Fprintln(hc.Stderr, err)
				return interp.ExitStatus(1)
			}
			hc.Stdout.Write(b)
		}
		return nil
	}
	sh.t.Errorf("the example runs %q, which this test cannot run", args)
	return interp.ExitStatus(127)
}

// simRouter is `shakectl sim router FLAGS &`: it serves on in-memory ports
// of its own until the block ends.
func (sh *exampleShell) simRouter(ctx context.Context, flags []string) error {
	sh.saw("sim router flags")
	sh.sims.Add(1)
	defer sh.sims.Done()
	f, out, errOut := clitest.ServingFactory(sh.t, ctx, clitest.RouterURLsOut)
	f.Net = sh.net
	go func() {
		select {
		case <-out.Ready:
		case <-ctx.Done():
			return
		}
		urls := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if name, u, ok := strings.Cut(line, " "); ok {
				urls[name] = strings.TrimSpace(u)
			}
		}
		sh.setAddrs(urls)
	}()
	code := root.Run(f, append(append([]string{"sim", "router"}, clitest.Ephemeral...), flags...))
	if ctx.Err() == nil {
		sh.t.Errorf("shakectl sim router %s: exit %d before the block ended; stderr %s", strings.Join(flags, " "), code, errOut)
	}
	return nil
}

// shakectl runs a shakectl command line in-process, with the examples'
// addresses rewritten and its relative files in the block's directory, and
// judges a parking-probe run by its own verdict.
func (sh *exampleShell) shakectl(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	args = slices.Clone(args)
	var outFile string
	for i, a := range args {
		var err error
		if args[i], err = sh.rewrite(ctx, a); err != nil {
			sh.t.Error(err)
			return interp.ExitStatus(1)
		}
		if i > 0 && args[i-1] == "--out" {
			outFile = filepath.Join(hc.Dir, a)
			args[i] = outFile
		}
		// A smaller run of the same shape: the example's 30 s schedule
		// runs for readmeMaxDuration, which is enough to judge every
		// count check and keeps the suite short.
		if d, err := time.ParseDuration(a); err == nil && i > 0 && args[i-1] == "--duration" && d > readmeMaxDuration {
			sh.t.Logf("--duration %s of the example runs as %s here", a, readmeMaxDuration)
			args[i] = readmeMaxDuration.String()
		}
	}
	if len(args) == 0 || args[0] != "parking-probe" {
		sh.t.Errorf("the example runs shakectl %q, which this test cannot judge", args)
		return interp.ExitStatus(127)
	}
	switch {
	case len(args) > 1 && args[1] == "merge":
		sh.saw("merge -")
	case slices.Contains(args, "--shards"):
		sh.saw("shards")
	case slices.Contains(args, "open"):
		sh.saw("open")
	default:
		sh.saw("burst")
	}
	dir := sh.t.TempDir()
	var out, errOut syncbuf.Buffer
	in := hc.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	f := &cmdutil.Factory{
		IOStreams:        &output.IOStreams{In: in, Out: io.MultiWriter(hc.Stdout, &out), ErrOut: io.MultiWriter(hc.Stderr, &errOut)},
		Build:            cmdutil.BuildInfo{Version: "test"},
		Getenv:           func(k string) (string, bool) { v := hc.Env.Get(k); return v.String(), v.IsSet() },
		HomeDir:          dir,
		SystemConfigFile: filepath.Join(dir, "no-system-file"),
		Context:          ctx,
		Now:              time.Now,
		Net:              sh.net,
	}
	code := root.Run(f, args)
	sh.mu.Lock()
	sh.probes++
	sh.mu.Unlock()
	line := "shakectl " + strings.Join(args, " ")
	sh.t.Logf("%s: exit %d", line, code)
	if code != cmdutil.ExitOK {
		sh.t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", line, code, out.String(), errOut.String())
		return interp.ExitStatus(uint8(code))
	}
	sh.judge(line, out.String())
	if outFile != "" {
		b, err := os.ReadFile(outFile)
		if err != nil {
			sh.t.Errorf("%s: %v", line, err)
		}
		sh.judge(line+" (its --out file)", string(b))
	}
	return nil
}

// readmeMaxDuration bounds an example's --duration in this test.
const readmeMaxDuration = 2 * time.Second

// judge checks a report's verdict, JSON or text: every check passed or
// was skipped, at least one was judged, and (issue 28, item 12) no answer
// was a not_found, which would mean the example's actors or Host form do
// not fit its simulator. The checks that time the router (shed_fast,
// budget_bound, parked, no_envoy_overflow, a --expect's p99) are judged
// like the count checks: in the block's bubble they measure the
// simulator on the virtual clock, not the machine's speed.
func (sh *exampleShell) judge(line, report string) {
	t := sh.t
	if strings.HasPrefix(report, "{") {
		var rep struct {
			Outcomes map[string]struct {
				Count int `json:"count"`
			} `json:"outcomes"`
			Checks []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
				Detail string `json:"detail"`
			} `json:"checks"`
		}
		if err := json.Unmarshal([]byte(report), &rep); err != nil {
			t.Errorf("%s: not one JSON report: %v", line, err)
			return
		}
		judged := 0
		for _, c := range rep.Checks {
			switch c.Status {
			case "ok":
				judged++
			case "skipped":
			default:
				t.Errorf("%s: check %s %s: %s", line, c.Name, c.Status, c.Detail)
			}
		}
		if judged == 0 {
			t.Errorf("%s: no check was judged", line)
		}
		if n := rep.Outcomes["not_found"].Count; n > 0 {
			t.Errorf("%s: %d not_found answers", line, n)
		}
		return
	}
	if !regexp.MustCompile(`(?m)^all checks passed$`).MatchString(report) {
		t.Errorf("%s: not \"all checks passed\":\n%s", line, report)
	}
	if !regexp.MustCompile(`(?m)^ *✓ `).MatchString(report) {
		t.Errorf("%s: no check passed:\n%s", line, report)
	}
	if regexp.MustCompile(`(?m)^not_found `).MatchString(report) {
		t.Errorf("%s: not_found answers:\n%s", line, report)
	}
}

// curl is the examples' `curl [-H 'Host: …'] URL`: a GET of the simulator,
// whose answer must be a 200 holding what the line's comment says.
func (sh *exampleShell) curl(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	sh.saw("curl")
	var host, target string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-H" && i+1 < len(args) && strings.HasPrefix(args[i+1], "Host: "):
			host = strings.TrimPrefix(args[i+1], "Host: ")
			i++
		case strings.HasPrefix(args[i], "http://") && target == "":
			target = args[i]
		default:
			sh.t.Errorf("curl %q: this test knows -H 'Host: …' and one URL only", args)
			return interp.ExitStatus(2)
		}
	}
	readme := target
	target, err := sh.rewrite(ctx, target)
	if err != nil {
		sh.t.Error(err)
		return interp.ExitStatus(7)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		sh.t.Error(err)
		return interp.ExitStatus(3)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := sh.web.Do(req)
	if err != nil {
		sh.t.Errorf("curl %s: %v", readme, err)
		return interp.ExitStatus(7)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	hc.Stdout.Write(body)
	if resp.StatusCode != http.StatusOK {
		sh.t.Errorf("curl %s: %s %s", readme, resp.Status, body)
		return nil
	}
	switch {
	case strings.Contains(readme, "/statusz"):
		// `# {"parking": {"enabled", "active", …}, ...}`: the keys named.
		promise := sh.commentOf(readme)
		var page struct {
			Parking map[string]json.RawMessage `json:"parking"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			sh.t.Errorf("curl %s: not JSON: %v", readme, err)
		}
		keys := regexp.MustCompile(`"(\w+)"`).FindAllStringSubmatch(promise, -1)
		if len(keys) < 2 || keys[0][1] != "parking" {
			sh.t.Errorf("curl %s: its comment %q no longer names the parking card's fields", readme, promise)
		}
		for _, k := range keys[min(1, len(keys)):] {
			if _, ok := page.Parking[k[1]]; !ok {
				sh.t.Errorf("curl %s: no parking.%s in %s", readme, k[1], body)
			}
		}
	case strings.Contains(readme, "/metrics"):
		// `# atenet_router_parking_{active,wait_duration_seconds,…}`.
		promise := sh.commentOf(readme)
		m := regexp.MustCompile(`(\w+)\{([\w,]+)\}`).FindStringSubmatch(promise)
		if m == nil {
			sh.t.Errorf("curl %s: its comment %q no longer names the series", readme, promise)
			break
		}
		for _, s := range strings.Split(m[2], ",") {
			if !regexp.MustCompile(`(?m)^` + m[1] + s + `(_bucket|_count|_sum)?[{ ]`).Match(body) {
				sh.t.Errorf("curl %s: no %s%s series in:\n%s", readme, m[1], s, body)
			}
		}
	default:
		// sim router --help: "200 actor <atespace>/<id> served by worker-NN".
		if !regexp.MustCompile(`^actor \S+/actor-\d+ served by worker-\d+`).Match(body) {
			sh.t.Errorf("curl %s (Host %s): %q is not an actor's worker answering", readme, host, body)
		}
	}
	return nil
}

// commentOf is the comment on the block's line that holds s.
func (sh *exampleShell) commentOf(s string) string {
	for _, l := range strings.Split(sh.src, "\n") {
		if strings.Contains(l, s) {
			if _, c, ok := strings.Cut(l, " #"); ok {
				return c
			}
		}
	}
	return ""
}

// readmeDate is GNU date's `date -u -d '+N seconds' +FORMAT`, the form the
// shard example uses for --start-at; any other form is refused.
func readmeDate(hc interp.HandlerContext, args []string) error {
	if len(args) != 4 || args[0] != "-u" || args[1] != "-d" || !strings.HasPrefix(args[3], "+") {
		fmt.Fprintf(hc.Stderr, "date %q: only -u -d '+N seconds' +FORMAT is known here\n", args)
		return interp.ExitStatus(1)
	}
	n, unit, _ := strings.Cut(strings.TrimPrefix(args[2], "+"), " ")
	secs, err := strconv.Atoi(n)
	if err != nil || unit != "seconds" {
		fmt.Fprintf(hc.Stderr, "date -d %q: only '+N seconds' is known here\n", args[2])
		return interp.ExitStatus(1)
	}
	layout := strings.NewReplacer("%Y", "2006", "%m", "01", "%d", "02", "%H", "15", "%M", "04", "%S", "05").Replace(args[3][1:])
	if strings.Contains(layout, "%") {
		fmt.Fprintf(hc.Stderr, "date %q: a format this test does not know\n", args[3])
		return interp.ExitStatus(1)
	}
	fmt.Fprintln(hc.Stdout, time.Now().UTC().Add(time.Duration(secs)*time.Second).Format(layout))
	return nil
}

// runJobExample runs the Job example's first step, `shakectl parking-probe
// job … | kubectl apply -f -`, with kubectl apply checking the Job it is
// given. The later steps (kubectl wait, kubectl logs | merge -) need a
// Kubernetes cluster; merge - of a shard stream is run by the sharded
// example.
func runJobExample(t *testing.T, b exampleBlock, f *syntax.File, saw func(string)) {
	if len(f.Stmts) == 0 {
		t.Fatalf("%s: an empty block", b.where())
	}
	first := f.Stmts[0]
	var jobArgs []string
	applied := false
	exec := func(ctx context.Context, args []string) error {
		hc := interp.HandlerCtx(ctx)
		switch {
		case len(args) > 2 && args[0] == "shakectl" && args[1] == "parking-probe" && args[2] == "job":
			saw("job")
			jobArgs = args[1:]
			fac, out, errOut := probeTestFactory(t, ctx)
			code := root.Run(fac, jobArgs)
			hc.Stdout.Write(out.Bytes())
			if code != cmdutil.ExitOK {
				t.Errorf("shakectl %s: exit %d; stderr %s", strings.Join(jobArgs, " "), code, errOut)
				return interp.ExitStatus(uint8(code))
			}
			return nil
		case slices.Equal(args, []string{"kubectl", "apply", "-f", "-"}):
			doc, _ := io.ReadAll(hc.Stdin)
			var job batchv1.Job
			if err := yaml.UnmarshalStrict(doc, &job); err != nil {
				t.Errorf("kubectl apply: not a strict batch/v1 Job: %v\n%s", err, doc)
				return interp.ExitStatus(1)
			}
			applied = true
			checkJobExample(t, jobArgs, &job)
			fmt.Fprintf(hc.Stdout, "job.batch/%s created\n", job.Name)
			return nil
		}
		t.Errorf("the Job example runs %q in its first step, which this test cannot run", args)
		return interp.ExitStatus(127)
	}
	var out, errOut bytes.Buffer
	r, err := interp.New(interp.StdIO(strings.NewReader(""), &out, &errOut), interp.Dir(t.TempDir()), interp.Env(expand.ListEnviron()),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return exec }))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), first); err != nil {
		t.Errorf("%s: %v\nstderr %s", b.where(), err, errOut.String())
	}
	if !applied {
		t.Errorf("%s: the first step applied no Job", b.where())
	}
}

// checkJobExample: the Job runs the command line after -- as --shards
// shards, one pod each, with the image asked for.
func checkJobExample(t *testing.T, jobArgs []string, job *batchv1.Job) {
	shards, _ := argValue(jobArgs, "--shards")
	n, err := strconv.Atoi(shards)
	if err != nil {
		t.Errorf("the Job example's --shards %q", shards)
		return
	}
	spec := job.Spec
	if spec.Completions == nil || *spec.Completions != int32(n) || spec.Parallelism == nil || *spec.Parallelism != int32(n) ||
		spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("the Job is not %d indexed completions in parallel: %+v", n, spec)
	}
	cs := spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("the Job has %d containers", len(cs))
	}
	image, _ := argValue(jobArgs, "--image")
	if cs[0].Image != image {
		t.Errorf("the Job's image is %q, not --image %q", cs[0].Image, image)
	}
	sep := slices.Index(jobArgs, "--")
	for _, a := range jobArgs[sep+1:] {
		if !slices.Contains(cs[0].Args, a) {
			t.Errorf("the Job's pods do not get the probe's %q: %q", a, cs[0].Args)
		}
	}
}
