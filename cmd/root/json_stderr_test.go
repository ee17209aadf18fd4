package root_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/docs"
	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// The manual's promise for -o json (docs/output.md, once README's), "every
// stderr line is a JSON object", held for every command of the tree: each
// runs at least once with -o json against the simulators (in memory, on
// synctest's clock), through what it says on stderr (errors, warnings,
// retries, waits that run out, transfers' progress, prompts refused and
// asked at a terminal, the servers' request logs and summaries), and
// every line it writes to stderr must parse as a JSON object. A command of the tree that no case
// runs fails the test: a new command comes with its case.
func TestEveryCommandWritesOnlyJSONToStderrUnderOutputJSON(t *testing.T) {
	if !strings.Contains(strings.Join(strings.Fields(manualPage(t, "output.md")), " "), "every stderr line is a JSON object, on every command") {
		t.Error("docs/output.md no longer promises that every stderr line is a JSON object under -o json: this test holds that promise")
	}
	cov := &jsonCoverage{tree: newTree(t), ran: map[string]int{}}
	t.Run("cluster commands", func(t *testing.T) { synctest.Test(t, func(t *testing.T) { clusterCommandsJSON(t, cov) }) })
	t.Run("waits and retries", func(t *testing.T) { synctest.Test(t, func(t *testing.T) { waitsAndRetriesJSON(t, cov) }) })
	t.Run("local commands", func(t *testing.T) { localCommandsJSON(t, cov) })
	t.Run("serving commands", func(t *testing.T) { synctest.Test(t, func(t *testing.T) { servingCommandsJSON(t, cov) }) })
	t.Run("wrap", func(t *testing.T) { wrapJSON(t, cov) })

	var missing []string
	walk(cov.tree, func(c *cobra.Command) {
		if c.Runnable() && cov.ran[c.CommandPath()] == 0 {
			missing = append(missing, c.CommandPath())
		}
	})
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s never ran with -o json: give it a case", m)
	}
}

// jsonCoverage records which commands ran.
type jsonCoverage struct {
	tree *cobra.Command
	mu   sync.Mutex
	ran  map[string]int
}

// command is the command args run and how many of its words name it.
func (cov *jsonCoverage) command(args []string) (*cobra.Command, int) {
	c, n := cov.tree, 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		sub := findSub(c, a)
		if sub == nil {
			break
		}
		c, n = sub, n+1
	}
	return c, n
}

func findSub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || slices.Contains(s.Aliases, name) {
			return s
		}
	}
	return nil
}

// withJSON puts -o json after the words that name the command (before a
// "--" and the positional arguments after it), and records the command.
func (cov *jsonCoverage) withJSON(args []string) []string {
	c, n := cov.command(args)
	cov.mu.Lock()
	cov.ran[c.CommandPath()]++
	cov.mu.Unlock()
	return slices.Concat(args[:n], []string{"-o", "json"}, args[n:])
}

// jsonLines fails the test for each stderr line that is not a JSON
// object, and returns the objects.
func jsonLines(t *testing.T, what, stderr string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	if stderr == "" {
		return nil
	}
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Errorf("shakectl %s: a stderr line is not a JSON object: %q\n--- stderr\n%s", what, l, stderr)
			continue
		}
		objs = append(objs, obj)
	}
	return objs
}

// jsonStepper runs a command with -o json, checks its exit code and that
// every stderr line is JSON, and returns the result and its objects.
type jsonStepper struct {
	t   *testing.T
	cov *jsonCoverage
	r   clitest.CmdRun
}

func (s jsonStepper) run(want int, args ...string) (clitest.RunResult, []map[string]any) {
	s.t.Helper()
	full := s.cov.withJSON(args)
	res := s.r.Run(s.t, full...)
	if res.Code != want {
		s.t.Fatalf("shakectl %s: exit %d, want %d\n%s", strings.Join(full, " "), res.Code, want, res)
	}
	return res, jsonLines(s.t, strings.Join(full, " "), res.Stderr)
}

// out runs a command that succeeds and returns its stdout, trimmed.
func (s jsonStepper) out(args ...string) string {
	s.t.Helper()
	res, _ := s.run(0, args...)
	return strings.TrimSpace(res.Stdout)
}

// events are the "event" (or "warning", "error", "progress") keys of the
// objects, in order.
func events(objs []map[string]any) string {
	var ks []string
	for _, o := range objs {
		for _, k := range []string{"event", "progress"} {
			if v, ok := o[k].(string); ok {
				ks = append(ks, v)
			}
		}
		for _, k := range []string{"warning", "error"} {
			if _, ok := o[k]; ok {
				ks = append(ks, k)
			}
		}
	}
	return strings.Join(ks, ",")
}

func wantEvents(t *testing.T, what string, objs []map[string]any, want ...string) {
	t.Helper()
	if got := events(objs); got != strings.Join(want, ",") {
		t.Errorf("%s: stderr objects %s, want %s\n%v", what, got, strings.Join(want, ","), objs)
	}
}

// clusterCommandsJSON runs every API command against the 2026 cluster
// simulator as the system namespace, in one session.
func clusterCommandsJSON(t *testing.T, cov *jsonCoverage) {
	r, _ := clitest.SimClusterInMemory(t, cluster.Generation2026, func(c *cluster.Config) {
		c.CreateTime, c.NetworkDeployTime, c.TeardownLag = 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
		c.AgentBoot = 300 * time.Millisecond
		c.CPUHogs = map[string]map[string]float64{"node1": {"sf_net": 0.61}}
	})
	r.Env["SHAKECTL_VDI_VIEWER"] = "true"
	s := jsonStepper{t, cov, r}
	dir := t.TempDir()

	// The nodes.
	node := strings.Trim(s.out("node", "list", "--jq", ".[0].name"), `"`)
	s.run(0, "node", "show", node)
	s.run(0, "node", "events", node, "--limit", "1")
	s.run(0, "node", "resources")
	s.run(cmdutil.ExitChecksFailed, "node", "cpuhogs")
	s.run(cmdutil.ExitNotFound, "node", "show", "node99")
	s.run(0, "admin", "lock", "list")
	_, objs := s.run(0, "api", "GET", "/instances")
	wantEvents(t, "api", objs)

	// Artifacts, blobs and labels, and a backup of them (before an
	// instance's disk is a blob too).
	id := strings.Trim(s.out("artifact", "cache", "https://images.example/debian-12.qcow2", "--async", "block", "--jq", ".uuid"), `"`)
	s.run(0, "artifact", "list")
	s.run(0, "artifact", "show", id)
	s.run(0, "artifact", "versions", id)
	s.run(0, "artifact", "events", id)
	s.run(0, "artifact", "max-versions", id, "5")
	s.run(0, "artifact", "set-metadata", id, "owner", "ci")
	s.run(0, "artifact", "get-metadata", id)
	s.run(0, "artifact", "delete-metadata", id, "owner")
	s.run(0, "artifact", "share", id)
	s.run(0, "artifact", "unshare", id)
	_, objs = s.run(0, "artifact", "download", id, filepath.Join(dir, "disk.img"))
	if !strings.Contains(events(objs), "download") {
		t.Errorf("artifact download: no progress objects in %v", objs)
	}
	src := filepath.Join(dir, "tests.sh")
	clitest.WriteFile(t, src, "#!/bin/sh\necho all tests passed\n")
	s.run(0, "artifact", "upload", "ci-image", src)
	blob := strings.Trim(s.out("artifact", "show", id, "--jq", ".blob_uuid"), `"`)
	s.run(0, "blob", "list")
	s.run(0, "blob", "show", blob)
	s.run(0, "blob", "events", blob)
	s.run(0, "blob", "set-metadata", blob, "owner", "ci")
	s.run(0, "blob", "delete-metadata", blob, "owner")
	uploaded := strings.Trim(s.out("artifact", "show", "ci-image", "--jq", ".blob_uuid"), `"`)
	sum := strings.Trim(s.out("blob", "show", uploaded, "--jq", ".sha512"), `"`)
	s.run(0, "blob", "sha512", sum)
	s.run(0, "label", "update", "prod", blob)
	s.run(0, "label", "list")
	s.run(0, "label", "show", "prod")
	s.run(0, "label", "delete", "prod")
	s.run(0, "backup", "create", filepath.Join(dir, "backup"))
	s.run(0, "artifact", "delete-version", id, "1")
	s.run(0, "artifact", "delete", "ci-image")

	// A network, and what can be asked of it.
	s.run(0, "network", "create", "net1", "10.0.0.0/24")
	s.run(0, "network", "list")
	s.run(0, "network", "show", "net1")
	s.run(0, "network", "events", "net1")
	s.run(0, "network", "set-metadata", "net1", "owner", "ops")
	s.run(0, "network", "get-metadata", "net1")
	s.run(0, "network", "delete-metadata", "net1", "owner")
	addr := strings.Trim(s.out("network", "add-routed", "net1", "--jq", ".address"), `"`)
	s.run(0, "network", "delete-routed", "net1", addr)
	s.run(0, "network", "ping", "net1", "10.0.0.1")

	// An instance, with an agent, and what can be asked of it.
	s.run(0, "instance", "create", "web1", "1", "512", "-d", "8", "-n", "net1", "--async", "block")
	s.run(0, "instance", "await", "web1", "--timeout", "30s")
	s.run(0, "instance", "list")
	s.run(0, "instance", "show", "web1")
	s.run(0, "instance", "events", "web1", "--limit", "2")
	s.run(0, "network", "instances", "net1")
	s.run(0, "network", "addresses", "net1")
	s.run(0, "instance", "set-metadata", "web1", "tags", `["ops"]`)
	s.run(0, "instance", "get-metadata", "web1")
	s.run(0, "instance", "delete-metadata", "web1", "tags")
	s.run(0, "instance", "snapshot", "web1")
	s.run(0, "instance", "consoledata", "web1", "--length", "64")
	s.run(0, "instance", "consoledelete", "web1")
	s.run(0, "instance", "pause", "web1")
	s.run(0, "instance", "unpause", "web1")
	s.run(0, "instance", "poweroff", "web1")
	s.run(cmdutil.ExitFailure, "instance", "reboot", "web1")
	s.run(0, "instance", "poweron", "web1")
	s.run(0, "instance", "reboot", "web1")
	s.run(0, "network", "create", "net2", "10.8.0.0/24")
	s.run(0, "instance", "add-interface", "web1", "-n", "net2")
	s.run(cmdutil.ExitNotFound, "instance", "show", "nosuch")
	s.run(0, "instance", "execute", "web1", "--", "echo", "hi")
	_, objs = s.run(0, "instance", "upload", "web1", src, "/opt/tests.sh")
	if !strings.Contains(events(objs), "uploaded") {
		t.Errorf("instance upload: no uploaded note in %v", objs)
	}
	s.run(0, "instance", "download", "web1", "/opt/tests.sh", filepath.Join(dir, "back.sh"))
	s.run(0, "instance", "screenshot", "web1", filepath.Join(dir, "web1.png"))
	_, objs = s.run(0, "instance", "vdiconsolefile", "web1", dir)
	wantEvents(t, "vdiconsolefile", objs, "wrote")
	s.run(0, "instance", "vdiconsole", "web1")

	// Its interface.
	ifc := strings.Trim(s.out("instance", "show", "web1", "--jq", ".interfaces[0].uuid"), `"`)
	s.run(0, "interface", "show", ifc)
	s.run(0, "interface", "float", ifc)
	s.run(0, "interface", "defloat", ifc)
	s.run(0, "interface", "set-metadata", ifc, "role", "frontend")
	s.run(0, "interface", "get-metadata", ifc)
	s.run(0, "interface", "delete-metadata", ifc, "role")

	// Namespaces, keys, trust and claims.
	s.run(0, "namespace", "create", "ci")
	s.run(0, "namespace", "list")
	s.run(0, "namespace", "show", "ci")
	add := s
	add.r.Stdin = "d3ploy-key-of-namespace-ci-41c7\n"
	add.run(0, "namespace", "add-key", "ci", "deploy")
	add.r.Stdin = "d3ploy-key-of-namespace-ci-41c7-rotated\n"
	add.run(0, "namespace", "update-key", "ci", "deploy")
	s.run(0, "namespace", "delete-key", "ci", "deploy")
	s.run(0, "namespace", "set-metadata", "ci", "owner", "team-a")
	s.run(0, "namespace", "get-metadata", "ci")
	s.run(0, "namespace", "delete-metadata", "ci", "owner")
	s.run(0, "namespace", "create", "ops")
	s.run(0, "namespace", "add-trust", "ci", "ops")
	s.run(0, "namespace", "remove-trust", "ci", "ops")
	claim := strings.Trim(s.out("namespace", "claim", "create", "ci", "--cpus", "2", "--memory", "1024", "--disk", "10", "--expiry", "1h", "--jq", ".uuid"), `"`)
	s.run(0, "namespace", "claim", "list", "ci")
	s.run(0, "namespace", "claim", "show", "ci", claim)
	s.run(0, "namespace", "claim", "update", "ci", claim, "--cpus", "4")
	s.run(0, "namespace", "claim", "delete", "ci", claim)
	// A prompt refused (not a terminal: --yes is required), then one
	// asked at a terminal and not answered.
	s.run(cmdutil.ExitUsage, "namespace", "clean", "ci")
	tty := s
	tty.r.Tty = true
	_, objs = tty.run(cmdutil.ExitUsage, "namespace", "clean", "ci")
	wantEvents(t, "namespace clean at a terminal", objs, "prompt", "error")
	s.run(0, "namespace", "clean", "ci", "--yes")
	s.run(0, "namespace", "delete", "ci")

	// Deletes: a cluster operation followed, one already gone, all.
	op := strings.Trim(s.out("network", "delete", "net2", "--async", "continue", "--jq", `.op_type + "/" + .op_uuid`), `"`)
	s.run(0, "cluster-operation", "show", op, "--wait")
	s.run(0, "instance", "delete", "web1")
	s.run(cmdutil.ExitUsage, "instance", "delete-all")
	_, objs = tty.run(cmdutil.ExitUsage, "instance", "delete-all", "--all-namespaces")
	wantEvents(t, "instance delete-all at a terminal", objs, "prompt", "error")
	s.run(0, "instance", "delete-all", "--all-namespaces", "--yes")
	s.run(0, "network", "delete", "net1")
	s.run(0, "network", "delete-all", "--all-namespaces", "--yes")
	s.run(0, "node", "delete", node, "--yes")

	// A warning of the configuration, and an error of the request.
	_, objs = s.run(0, "instance", "list", "--insecure")
	wantEvents(t, "--insecure", objs, "warning")
}

// waitsAndRetriesJSON runs the waits that run out and the retries that
// wait, against a simulator whose creates take two hours and refuse the
// first two: the retry lines, a still_waiting note, a deadline's 124 and
// a refusal's 75, each line JSON.
func waitsAndRetriesJSON(t *testing.T, cov *jsonCoverage) {
	r, _ := clitest.SimClusterInMemory(t, cluster.Generation2026, func(c *cluster.Config) {
		c.CreateTime = 2 * time.Hour
		c.Script = []cluster.ScriptedAnswer{{Refuse: "sufficient_idle_cpu", Repeat: 3}}
	})
	s := jsonStepper{t, cov, r}
	_, objs := s.run(cmdutil.ExitCapacityTransient, "instance", "create", "r0", "1", "512", "-d", "8")
	wantEvents(t, "a refusal", objs, "error")
	_, objs = s.run(0, "instance", "create", "r1", "1", "512", "-d", "8", "--retry-transient-capacity", "--timeout", "60s", "--async", "continue")
	wantEvents(t, "a create retried", objs, "retry", "retry")
	tty := s
	tty.r.Tty = true
	_, objs = tty.run(0, "instance", "create", "slow", "1", "512", "-d", "8")
	if e := events(objs); !strings.HasSuffix(e, "still_waiting") {
		t.Errorf("a create that --async pause stops waiting for: %s", e)
	}
	_, objs = s.run(cmdutil.ExitTimeout, "instance", "await", "slow", "--timeout", "5s")
	wantEvents(t, "await past --timeout", objs, "error")
}

// localCommandsJSON runs the commands that need no server.
func localCommandsJSON(t *testing.T, cov *jsonCoverage) {
	r := clitest.CmdRun{Url: "http://127.0.0.1:1"}
	s := jsonStepper{t, cov, r}
	s.run(0, "version")
	s.run(0, "completion", "bash")
	s.run(0, "help", "instance")
	for _, topic := range docs.Topics() {
		s.run(0, topic.Name)
	}
	s.run(0, "config", "view")
	s.run(cmdutil.ExitUsage, "demo")
	// Every group, and the root, refuse an unknown command in JSON.
	walk(cov.tree, func(c *cobra.Command) {
		if c.HasSubCommands() && c.Runnable() {
			args := append(strings.Fields(c.CommandPath())[1:], "no-such-command")
			s.run(cmdutil.ExitUsage, args...)
		}
	})

	// Contexts, in a configuration of their own.
	cfgDir := t.TempDir()
	ctxRun := r
	ctxRun.Env = map[string]string{"SHAKECTL_CONFIG": filepath.Join(cfgDir, "config.yaml")}
	cs := jsonStepper{t, cov, ctxRun}
	keyed := cs
	keyed.r.Stdin = "k3y-0f-the-test-namespace-7f3a91\n"
	_, objs := keyed.run(0, "context", "create", "a", "--api-url", "http://127.0.0.1:1", "--namespace", "ns1", "--key-stdin")
	wantEvents(t, "context create", objs, "context_saved")
	cs.run(0, "context", "list")
	cs.run(0, "context", "show", "a")
	_, objs = cs.run(0, "context", "use", "a")
	wantEvents(t, "context use", objs, "context_used")
	_, objs = cs.run(0, "context", "delete", "a")
	wantEvents(t, "context delete", objs, "context_deleted")
	cs.run(cmdutil.ExitUsage, "context", "use", "nosuch")

	// parking-probe's Job, and a merge of nothing whole.
	_, objs = s.run(0, "parking-probe", "job", "--shards", "2", "--image", "example.com/shakectl:1.2.3", "--", "--target", "http://router.test:8080", "--requests", "100")
	wantEvents(t, "parking-probe job", objs, "next_steps")
	merge := s
	merge.r.Stdin = `{"cut off`
	merge.run(cmdutil.ExitUsage, "parking-probe", "merge", "-")
}

// servingCommandsJSON runs the servers (sim cluster, sim router, proxy)
// with a request through each, and the probe against the router: their
// banners, request logs and summaries are JSON too.
func servingCommandsJSON(t *testing.T, cov *jsonCoverage) {
	net := &memnet.Network{}
	client := &http.Client{Transport: net.Transport()}

	clusterURL, stopCluster := serve(t, cov, net, "sim", "cluster", "--listen", "sim.test:13000")
	if res, err := client.Get(clusterURL + "/"); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	proxyURL, stopProxy := serve(t, cov, net, "proxy", "--api-url", clusterURL, "--listen", "127.0.0.1:8080")
	if res, err := client.Get(proxyURL + "/"); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	wantEvents(t, "proxy", stopProxy(130), "summary", "error")
	if objs := stopCluster(0); !strings.Contains(events(objs), "banner,log") {
		t.Errorf("sim cluster: %s", events(objs))
	}

	routerURL, stopRouter := serve(t, cov, net, append([]string{"sim", "router", "--workers", "2", "--actors", "30", "--parked-request-max", "20"}, clitest.Ephemeral...)...)
	probe := func(want int, args ...string) []map[string]any {
		t.Helper()
		full := cov.withJSON(args)
		ios, _, _, errOut := output.Test()
		f := &cmdutil.Factory{IOStreams: ios, Build: cmdutil.BuildInfo{Version: "test"}, Now: time.Now, Context: context.Background(),
			Getenv: func(string) (string, bool) { return "", false }, HomeDir: t.TempDir(), Net: net}
		if code := root.Run(f, full); code != want {
			t.Fatalf("shakectl %s: exit %d, want %d\n%s", strings.Join(full, " "), code, want, errOut)
		}
		return jsonLines(t, strings.Join(full, " "), errOut.String())
	}
	objs := probe(cmdutil.ExitOK, "parking-probe", "--target", routerURL, "--requests", "120", "--actors", "30", "--shards", "2", "--shard", "1", "--seed", "7")
	wantEvents(t, "parking-probe", objs, "shard")
	probe(cmdutil.ExitUsage, "parking-probe", "--target", routerURL, "--requests", "0")
	wantEvents(t, "sim router", stopRouter(0), "banner", "shutting_down")
}

// serve runs a serving command with -o json on net until stop, which
// returns its stderr's objects; url is the first URL it prints.
func serve(t *testing.T, cov *jsonCoverage, net *memnet.Network, args ...string) (url string, stop func(want int) []map[string]any) {
	t.Helper()
	full := cov.withJSON(args)
	ctx, cancel := context.WithCancelCause(context.Background())
	ios, _, _, _ := output.Test()
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	ios.Out, ios.ErrOut = out, errOut
	f := &cmdutil.Factory{IOStreams: ios, Build: cmdutil.BuildInfo{Version: "test"}, Now: time.Now, Context: ctx,
		Getenv: func(string) (string, bool) { return "", false }, HomeDir: t.TempDir(), Net: net}
	done := make(chan int, 1)
	go func() { done <- root.Run(f, full) }()
	t.Cleanup(func() {
		cancel(nil)
		<-done
	})
	synctest.Wait()
	var first map[string]string
	if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &first); err != nil {
		t.Fatalf("shakectl %s: stdout %q (%v); stderr %q", strings.Join(full, " "), out, err, errOut)
	}
	for _, k := range []string{"api_url", "router_url"} {
		if first[k] != "" {
			url = first[k]
		}
	}
	return url, func(want int) []map[string]any {
		t.Helper()
		cancel(cmdutil.ErrInterrupted)
		code := <-done
		done <- code // for the cleanup
		if code != want {
			t.Errorf("shakectl %s: exit %d after Ctrl-C", strings.Join(full, " "), code)
		}
		return jsonLines(t, strings.Join(full, " "), errOut.String())
	}
}

// wrapJSON runs wrap around a command that makes no request (wrap's
// proxy listens on the machine's loopback and the command is a process):
// its warning and summary are JSON.
func wrapJSON(t *testing.T, cov *jsonCoverage) {
	tru, err := exec.LookPath("true")
	if err != nil {
		t.Fatal("no true command to wrap:", err)
	}
	s := jsonStepper{t, cov, clitest.CmdRun{Url: "http://127.0.0.1:1", Env: map[string]string{"PATH": os.Getenv("PATH")}}}
	_, objs := s.run(0, "wrap", "--", tru)
	wantEvents(t, "wrap", objs, "summary", "warning")
}
