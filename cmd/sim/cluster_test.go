package sim_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/cmd/sim"
	"github.com/shakenfist/shakectl/internal/fielderr/fieldertest"
	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// Bad flags are usage errors (exit 2) that say what is wrong, and nothing
// is started.
func TestSimClusterFlagErrors(t *testing.T) {
	dir := t.TempDir()
	badScript := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badScript, []byte("- refuse: sufficient_idle_gpu\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"negative nodes", []string{"--nodes", "-1"}, `"--nodes" flag: it is out of range: want a whole number from 0 to 1000`},
		{"zero cpus", []string{"--node-cpus", "0"}, `"--node-cpus" flag: it is out of range: want a whole number from 1 to 1048576`},
		{"negative memory", []string{"--node-memory", "-1"}, "memory"},
		{"negative retry-after", []string{"--retry-after", "-5"}, "retry-after"},
		{"negative teardown lag", []string{"--teardown-lag", "-1s"}, `"--teardown-lag" flag: it is out of range: want a duration from 0 to 168h`},
		{"duration without unit", []string{"--teardown-lag", "5"}, "teardown-lag"},
		{"not a number", []string{"--nodes", "three"}, "nodes"},
		{"listen without port", []string{"--listen", "localhost"}, "HOST:PORT"},
		{"zero token ttl", []string{"--token-ttl", "0s"}, `"--token-ttl" flag: it is out of range: want a duration more than 0 and at most 8784h`},
		{"zero cpu overcommit", []string{"--cpu-overcommit", "0"}, "overcommit"},
		{"negative ram reservation", []string{"--ram-reservation", "-1"}, `"--ram-reservation" flag: it is out of range: want a number from 0 to 1073741824`},
		{"negative network deploy time", []string{"--network-deploy-time", "-1s"}, `"--network-deploy-time" flag: it is out of range: want a duration from 0 to 168h`},
		{"negative delete time", []string{"--delete-time", "-1s"}, `"--delete-time" flag: it is out of range: want a duration from 0 to 168h`},
		{"no floating network on 2026", []string{"--no-floating-network"}, "choose the 2024 server (--server 2024)"},
		{"malformed node tags", []string{"--node-tags", "node1"}, "NODE=TAG"},
		{"tags for an unknown node", []string{"--node-tags", "node9=ssd"}, `unknown node "node9"`},
		{"missing script", []string{"--script", filepath.Join(dir, "nope.yaml")}, "--script"},
		{"bad script", []string{"--script", badScript}, "unknown refusal stage"},
		{"stray argument", []string{"extra"}, "unknown command"},
		{"unknown flag", []string{"--nodez", "2"}, "unknown flag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, out, errOut := clitest.ServingFactory(t, t.Context(), clitest.FirstLineOut)
			code := root.Run(f, append([]string{"sim", "cluster", "--listen", "127.0.0.1:0"}, c.args...))
			if code != cmdutil.ExitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, cmdutil.ExitUsage, errOut)
			}
			if !strings.Contains(errOut.String(), c.msg) {
				t.Errorf("stderr %q does not mention %q", errOut, c.msg)
			}
			if out.String() != "" {
				t.Errorf("stdout %q, want nothing: the simulator must not have started", out)
			}
		})
	}
}

// The command prints the URL on stdout and how to log in on stderr, serves
// the API, logs requests, and exits 0 when interrupted.
func TestSimClusterServesUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	out, errOut, done := startSimClusterCmd(t, ctx, "--listen", "127.0.0.1:0", "--nodes", "1", "--node-cpus", "2", "--retry-after", "3")
	url := strings.TrimSpace(out.String())
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.Contains(url, "\n") {
		t.Fatalf("stdout %q, want only the URL", out)
	}
	banner := errOut.String()
	for _, want := range []string{"SHAKENFIST_API_URL=" + url, "SHAKENFIST_NAMESPACE=system", "SHAKENFIST_KEY=demo", "Retry-After 3s"} {
		if !strings.Contains(banner, want) {
			t.Errorf("stderr does not say %q:\n%s", want, banner)
		}
	}
	if strings.Contains(banner, "warning") {
		t.Errorf("a loopback listener got a warning:\n%s", banner)
	}

	hc := &http.Client{Timeout: 10 * time.Second}
	token := simLogin(t, hc, url)
	req, _ := http.NewRequest("POST", url+"/instances", strings.NewReader(`{"name": "big", "cpus": 1, "memory": 99999, "disk": [{"size": 1}]}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 507 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("create beyond the node's memory: %d Retry-After %q, want 507 with 3", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	hc.CloseIdleConnections()

	cancel(cmdutil.ErrInterrupted)
	select {
	case code := <-done:
		if code != cmdutil.ExitOK {
			t.Errorf("exit %d after the interrupt, want 0 (a clean shutdown); stderr: %s", code, errOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not shut down within 10s of the interrupt")
	}
	logs := errOut.String()
	for _, want := range []string{"POST /instances 507", "shutting down"} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr does not say %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, token) {
		t.Error("the bearer token was printed")
	}
	if _, err := hc.Get(url + "/"); err == nil {
		t.Error("still serving after shutdown")
	}
}

func TestSimClusterJSONAndQuiet(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	out, errOut, done := startSimClusterCmd(t, ctx, "--listen", "127.0.0.1:0", "-o", "json", "--quiet", "--auth-key", "s3cret")
	var got map[string]string
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil || !strings.HasPrefix(got["api_url"], "http://127.0.0.1:") || got["namespace"] != "system" {
		t.Errorf("stdout %q, want a JSON object with api_url and namespace (%v)", out, err)
	}
	cancel(cmdutil.ErrInterrupted)
	if code := <-done; code != cmdutil.ExitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if strings.Contains(out.String()+errOut.String(), "s3cret") {
		t.Error("a custom --auth-key was printed")
	}
	if errOut.String() != "" {
		t.Errorf("--quiet still wrote to stderr: %q", errOut)
	}
}

// A port already taken is a plain failure (exit 1) that names the address.
func TestSimClusterListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, _, errOut := clitest.ServingFactory(t, t.Context(), clitest.FirstLineOut)
	if code := root.Run(f, []string{"sim", "cluster", "--listen", ln.Addr().String()}); code != cmdutil.ExitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), ln.Addr().String()) {
		t.Errorf("stderr %q does not name the address", errOut)
	}
}

func TestClusterAddrIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:13000": true,
		"[::1]:13000":     true,
		"0.0.0.0:13000":   false,
		"[::]:13000":      false,
		"10.1.2.3:13000":  false,
		"nonsense":        false,
	} {
		if got := sim.ClusterAddrIsLoopback(addr); got != want {
			t.Errorf("clusterAddrIsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// --legacy-refusals and the scheduler arithmetic flags reach the
// simulator: with no reservation and no overcommit a 1024 MiB node takes
// exactly one 1024 MiB instance, and the next create is refused with the
// 2024 server's plain {"error", "status"}, no stage and no Retry-After.
func TestSimClusterLegacyRefusalsAndSchedulerFlags(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	out, _, done := startSimClusterCmd(t, ctx, "--listen", "127.0.0.1:0", "--quiet", "--nodes", "1", "--node-memory", "1024",
		"--ram-reservation", "0", "--ram-overcommit", "1", "--legacy-refusals", "--server", "2024")
	url := strings.TrimSpace(out.String())
	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	token := simLogin(t, hc, url)
	create := func(name string) (int, http.Header, map[string]any) {
		req, _ := http.NewRequest("POST", url+"/instances", strings.NewReader(`{"name": "`+name+`", "cpus": 1, "memory": 1024, "disk": [{"size": 1}]}`))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, resp.Header, body
	}
	if code, _, body := create("fits"); code != 200 {
		t.Fatalf("first create: %d %v, want 200 (no reservation)", code, body)
	}
	code, hdr, body := create("full")
	if code != 507 || hdr.Get("Retry-After") != "" || len(body) != 2 || body["error"] != "No nodes with enough idle RAM" {
		t.Errorf("second create: %d Retry-After %q %v, want a plain 507 {error, status}", code, hdr.Get("Retry-After"), body)
	}
	cancel(cmdutil.ErrInterrupted)
	<-done
}

// --no-floating-network and --delete-time reach the 2024 simulator: the
// first float is that server's 500, the second works; a deleted instance
// keeps its state until its node deletes it.
func TestSimClusterNoFloatingNetworkAndDeleteTime(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	out, _, done := startSimClusterCmd(t, ctx, "--listen", "127.0.0.1:0", "--quiet", "--server", "2024",
		"--no-floating-network", "--delete-time", "24h", "--network-deploy-time", "0s")
	url := strings.TrimSpace(out.String())
	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	token := simLogin(t, hc, url)
	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, m := call("POST", "/networks", `{"name": "net1", "netblock": "10.0.0.0/24"}`); code != 200 {
		t.Fatalf("network: %d %v", code, m)
	}
	code, inst := call("POST", "/instances", `{"name": "a", "cpus": 1, "memory": 1024, "disk": [{"size": 1}], "network": [{"network_uuid": "net1"}]}`)
	if code != 200 {
		t.Fatalf("create: %d %v", code, inst)
	}
	ifc := inst["interfaces"].([]any)[0].(map[string]any)["uuid"].(string)
	if code, m := call("POST", "/interfaces/"+ifc+"/float", ""); code != 500 || m["error"] != `server error: AttributeError("'NoneType' object has no attribute 'ipam'")` {
		t.Errorf("first float: %d %v", code, m)
	}
	if code, m := call("POST", "/interfaces/"+ifc+"/float", ""); code != 200 {
		t.Errorf("second float: %d %v", code, m)
	}
	call("DELETE", "/instances/a", "")
	if code, m := call("GET", "/instances/a", ""); code != 200 || m["state"] != "initial" {
		t.Errorf("after a delete its node has not carried out: %d %v", code, m["state"])
	}
	cancel(cmdutil.ErrInterrupted)
	<-done
}

// simLogin logs in to a simulator started with its default credentials and
// returns the bearer token.
func simLogin(t *testing.T, hc *http.Client, url string) string {
	t.Helper()
	resp, err := hc.Post(url+"/auth", "application/json", strings.NewReader(`{"namespace": "system", "key": "demo"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	if resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("POST /auth: %d", resp.StatusCode)
	}
	return tok.AccessToken
}

// startSimClusterCmd runs "shakectl sim cluster ARGS" with ctx as its signal
// context (cancel it with ErrInterrupted for SIGINT) and returns once its
// first line (the URL, or the JSON object with -o json) is on stdout.
func startSimClusterCmd(t *testing.T, ctx context.Context, args ...string) (out *clitest.ReadyWriter, errOut *syncbuf.Buffer, done <-chan int) {
	t.Helper()
	f, out, errOut := clitest.ServingFactory(t, ctx, clitest.FirstLineOut)
	exited := make(chan int, 1)
	go func() { exited <- root.Run(f, append([]string{"sim", "cluster"}, args...)) }()
	select {
	case <-out.Ready:
	case code := <-exited:
		t.Fatalf("exited %d before serving: %s", code, errOut)
	case <-time.After(10 * time.Second):
		t.Fatal("no first line on stdout within 10s")
	}
	return out, errOut, exited
}

// Every {Field} placeholder the cluster's errors use has a flag in sim
// cluster's table.
func TestEveryClusterFieldHasAFlag(t *testing.T) {
	t.Parallel()
	fieldertest.EveryFieldNamed(t, sim.ClusterFlagName, 2, "../../sim/cluster")
}
