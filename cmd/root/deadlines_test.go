package root_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// Issue 40, item 7 and "every wait ends the same way": whatever a command
// waits for (a state, an operation, an agent, a Kerbside fetch, one
// answer), a deadline that runs out exits 124 with one line that names
// what was waited for and the bound that ran out, and a hint to give it
// more time. Each waiting command meets a server that never gets there,
// on the virtual clock: the simulator with its timings stretched to an
// hour, or canned answers that never come.
func TestEveryWaitEndsAtItsDeadlineWith124(t *testing.T) {
	const (
		waitHint    = "hint: give the wait more time with --timeout (or --async block, up to 1h)\n"
		timeoutHint = "hint: give a longer --timeout, or check that the server is responding\n"
		requestHint = "hint: give a longer --request-timeout, or check that the server is responding\n"
	)
	// slow is a simulator where nothing finishes within the hour.
	slow := func(t *testing.T, gen string) clitest.CmdRun {
		r, _ := clitest.SimClusterInMemory(t, gen, func(c *cluster.Config) {
			c.CreateTime, c.NetworkDeployTime, c.AgentBoot, c.ArtifactFetchTime = time.Hour, time.Hour, time.Hour, time.Hour
			c.AgentTransferStall = true
		})
		return r
	}
	// setup runs what a case needs first, each step succeeding.
	setup := func(t *testing.T, r clitest.CmdRun, steps ...[]string) {
		t.Helper()
		for _, s := range steps {
			if res := r.Run(t, s...); res.Code != 0 {
				t.Fatalf("setup %v: %s", s, res)
			}
		}
	}
	agentReady := func(t *testing.T) clitest.CmdRun {
		r, _ := clitest.SimClusterInMemory(t, "2026", func(c *cluster.Config) { c.AgentTransferStall = true })
		setup(t, r, []string{"instance", "create", "web1", "1", "512", "-d", "8", "--async", "block"},
			[]string{"instance", "await", "web1"})
		return r
	}
	kerbside := func(t *testing.T) clitest.CmdRun {
		r := clitest.StubsInMemory(kerbsideNeverAnswers(t))
		r.Env = map[string]string{"SHAKECTL_VDI_VIEWER": "true"}
		return r
	}
	kerbsideGet := "error: GET http://kerbside.test/sf-console.vv?token=[redacted]: "
	// deleting is an instance or a network that never leaves its state.
	deleting := func(t *testing.T) clitest.CmdRun {
		s := clitest.NewStubs(t)
		web1 := clitest.CreatedInstance("web1", "deleting")
		s.Offer("DELETE", "/instances/web1", 200, web1)
		s.Offer("GET", "/instances/"+clitest.NewInstanceUUID, 200, web1)
		net := string(clitest.FixtureNetworks[1])
		s.Offer("DELETE", "/networks/isolated", 200, net)
		s.Offer("GET", "/networks/2f1e0d9c-1111-4222-8333-444455556602", 200, net)
		return clitest.StubsInMemory(s)
	}
	// busyNetwork is a 2026 network whose delete waits for an interface.
	busyNetwork := func(t *testing.T) clitest.CmdRun {
		r, _ := clitest.SimClusterInMemory(t, "2026", nil)
		setup(t, r, []string{"network", "create", "net1", "10.1.0.0/24"},
			[]string{"instance", "create", "web1", "1", "512", "-d", "8", "-n", "net1"})
		return r
	}
	dir := t.TempDir()
	clitest.WriteFile(t, filepath.Join(dir, "up.txt"), "data")

	for _, tc := range []struct {
		name   string
		runner func(t *testing.T) clitest.CmdRun
		args   []string
		stderr string
	}{
		{"instance create", func(t *testing.T) clitest.CmdRun { return slow(t, "2026") },
			[]string{"instance", "create", "web1", "1", "512", "-d", "8", "--timeout", "5s"},
			"error: instance web1 did not reach state created within 5s (last state: initial)\n" + waitHint},
		{"instance await", func(t *testing.T) clitest.CmdRun {
			r := slow(t, "2026")
			setup(t, r, []string{"instance", "create", "web1", "1", "512", "-d", "8", "--async", "continue"})
			return r
		}, []string{"instance", "await", "web1", "--timeout", "5s"},
			"error: instance web1 did not reach state agent ready within 5s (last state: initial)\n" + waitHint},
		{"instance delete", deleting, []string{"instance", "delete", "web1", "--async", "block", "--timeout", "5s"},
			"error: instance web1 did not reach state deleted within 5s (last state: deleting)\n" + waitHint},
		{"network create", func(t *testing.T) clitest.CmdRun { return slow(t, "2026") },
			[]string{"network", "create", "net1", "10.0.0.0/24", "--timeout", "5s"},
			"error: network net1 did not reach state created within 5s (last state: initial)\n" + waitHint},
		{"network delete (2024)", deleting, []string{"network", "delete", "isolated", "--async", "block", "--timeout", "5s"},
			"error: network isolated did not reach state deleted within 5s (last state: delete-wait)\n" + waitHint},
		{"network delete (2026)", busyNetwork, []string{"network", "delete", "net1", "--timeout", "5s"},
			"error: cluster operation net_op/UUID (deleting network net1) did not complete within 5s (last state: executing)\n" + waitHint},
		{"network delete-all", func(t *testing.T) clitest.CmdRun {
			// A network takes the hour to deploy, and as long to delete.
			r := slow(t, "2026")
			setup(t, r, []string{"network", "create", "net1", "10.1.0.0/24", "--timeout", "2h"})
			return r
		}, []string{"network", "delete-all", "--all-namespaces", "--yes", "--timeout", "5s"},
			"deleting ALL networks of EVERY namespace (namespace \"system\" with the system key means all of them)\n" +
				"error: cluster operation net_op/UUID (deleting network UUID) did not complete within 5s (last state: queued)\n" + waitHint},
		{"cluster-operation show --wait", func(t *testing.T) clitest.CmdRun {
			r := busyNetwork(t)
			res := r.Run(t, "network", "delete", "net1", "--async", "continue", "-o", "json")
			var h map[string]string
			if json.Unmarshal([]byte(res.Stdout), &h) != nil || h["op_uuid"] == "" {
				t.Fatalf("no handle: %s", res)
			}
			r.Env = map[string]string{"SHAKENFIST_NAMESPACE": "system", "OP": h["op_type"] + "/" + h["op_uuid"]}
			return r
		}, []string{"cluster-operation", "show", "--wait", "$OP", "--timeout", "5s"},
			"error: cluster operation net_op/UUID (as asked) did not complete within 5s (last state: executing)\n" + waitHint},
		{"namespace clean", func(t *testing.T) clitest.CmdRun {
			s := clitest.NewFixtureStubs(t)
			s.Reply("DELETE", "/instances", 200, `["6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01"]`)
			s.Reply("DELETE", "/networks", 200, `[]`)
			return clitest.StubsInMemory(s)
		}, []string{"namespace", "clean", "ns1", "--yes", "--timeout", "5s"},
			"deleting ALL instances and networks of namespace \"ns1\"\n" +
				"error: namespace ns1 was not emptied within 5s (3 instances and 2 networks left)\n" + waitHint},
		{"artifact cache", func(t *testing.T) clitest.CmdRun { return slow(t, "2026") },
			[]string{"artifact", "cache", "https://images.example.com/debian.qcow2", "--timeout", "5s"},
			"error: artifact debian.qcow2 was not fetched within 5s (last state: initial)\n" + waitHint},
		{"instance execute", agentReady, []string{"instance", "execute", "web1", "--timeout", "5s", "--", "sleep", "3600"},
			"error: agent operation UUID did not end within 5s (last state: executing)\n" + waitHint},
		// The capacity retry keeps its own budget, so the command's
		// context has no --timeout under it: the agent wait, which read
		// only that context, waited out the operation.
		{"instance execute, --retry-transient-capacity", agentReady, []string{"instance", "execute", "web1", "--timeout", "5s", "--retry-transient-capacity", "--", "sleep", "3600"},
			"error: agent operation UUID did not end within 5s (last state: executing)\n" + waitHint},
		{"instance upload", agentReady, []string{"instance", "upload", "web1", filepath.Join(dir, "up.txt"), "/tmp/up.txt", "--timeout", "5s"},
			"error: agent operation UUID did not end within 5s (last state: executing)\n" + waitHint},
		{"instance download", agentReady, []string{"instance", "download", "web1", "/etc/hostname", filepath.Join(dir, "down.txt"), "--timeout", "5s"},
			"error: agent operation UUID did not end within 5s (last state: executing)\n" + waitHint},
		// Item 7: the Kerbside fetch ended with Go's raw text, the "check
		// the API URL" hint and exit 1.
		{"instance vdiconsolefile, --timeout", kerbside, []string{"instance", "vdiconsolefile", "web1", "-", "--timeout", "5s"},
			kerbsideGet + "no answer within 5s (--timeout)\n" + timeoutHint},
		{"instance vdiconsolefile, --request-timeout", kerbside, []string{"instance", "vdiconsolefile", "web1", "-", "--request-timeout", "3s"},
			kerbsideGet + "no answer within 3s (--request-timeout, the bound on each request)\n" + requestHint},
		{"instance vdiconsole", kerbside, []string{"instance", "vdiconsole", "web1", "--timeout", "5s"},
			kerbsideGet + "no answer within 5s (--timeout)\n" + timeoutHint},
		// A download whose data stops coming: --request-timeout bounds
		// the wait for each next byte.
		{"artifact download, stalled", func(t *testing.T) clitest.CmdRun {
			r, _ := clitest.SimClusterInMemory(t, "2026", nil)
			setup(t, r, []string{"artifact", "upload", "img", filepath.Join(dir, "up.txt")})
			r.Transport = stallingData{r.Transport}
			return r
		}, []string{"artifact", "download", "img", filepath.Join(dir, "img.qcow2"), "--request-timeout", "3s"},
			"error: writing DEST DIR/img.qcow2: GET http://sf.test/blobs/UUID/data?offset=0: no data within 3s (--request-timeout, the bound on each request)\n" + requestHint},
		{"one request, --timeout", func(t *testing.T) clitest.CmdRun {
			s := clitest.NewStubs(t)
			s.Register(clitest.Route("GET", "/instances"), httpstub.Delay(time.Hour, httpstub.String(200, "[]"))).Always()
			return clitest.StubsInMemory(s)
		}, []string{"instance", "list", "--timeout", "5s"},
			"error: GET http://sf.test/instances: no answer within 5s (--timeout)\n" + timeoutHint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := tc.runner(t)
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					args[i] = strings.ReplaceAll(a, "$OP", r.Env["OP"])
				}
				start := time.Now()
				res := r.Run(t, args...)
				stderr := strings.ReplaceAll(uuids.ReplaceAllString(res.Stderr, "UUID"), dir, "DIR")
				if res.Code != cmdutil.ExitTimeout || stderr != tc.stderr {
					t.Errorf("shakectl %s: exit %d, want 124\nstderr %q\nwant   %q", strings.Join(tc.args, " "), res.Code, stderr, tc.stderr)
				}
				if took := time.Since(start); took > 10*time.Second {
					t.Errorf("it ended %s after it started, past its deadline", took)
				}
				// What the command stopped waiting for runs on to its
				// own end; on the bubble's clock, let it.
				time.Sleep(2 * time.Hour)
			})
		})
	}
}

// kerbsideNeverAnswers is a 2026 server that offers the Kerbside proxy
// (its recorded root page and mint, for instance web1) and a Kerbside,
// kerbside.test, that never answers.
func kerbsideNeverAnswers(t *testing.T) *clitest.Stubs {
	api := clitest.NewStubs(t)
	api.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	minted := strings.Replace(clitest.ReadGolden(t, "sf2026/vdiconsoleproxy.json"), "https://kerbside.example.com", "http://kerbside.test", 1)
	api.Offer("GET", "/instances/web1/vdiconsoleproxy", 200, minted)
	api.Register(httpstub.REST("GET", "/sf-console.vv"), httpstub.Delay(time.Hour, httpstub.String(200, "never"))).Always().Optional()
	return api
}

// uuids are the names the simulator makes up, replaced for comparison.
var uuids = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// stallingData answers every GET of a blob's data with its headers and
// then nothing, until the request is given up.
type stallingData struct{ next http.RoundTripper }

func (s stallingData) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/data") {
		return s.next.RoundTrip(r)
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: stalledBody{r.Context()}, Request: r}, nil
}

type stalledBody struct{ ctx context.Context }

func (b stalledBody) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (stalledBody) Close() error { return nil }
