package sim_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/cmd/sim"
	"github.com/shakenfist/shakectl/internal/fielderr/fieldertest"
	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/sim/router"
)

// Invalid flags and flag combinations are usage errors (exit 2) that name
// the rule, and nothing is started.
func TestSimRouterFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--parked-request-retry-factor", "0.99"}, `"--parked-request-retry-factor" flag: it is out of range: want a number from 1 to 100`},
		{[]string{"--parked-request-retry-jitter", "1"}, `"--parked-request-retry-jitter" flag: it is out of range: want a number from 0 to less than 1`},
		{[]string{"--parked-request-retry-jitter=-0.5"}, `"--parked-request-retry-jitter" flag: it is out of range`},
		{[]string{"--extproc-max-requests", "100"}, "--extproc-max-requests (100) must be >= --parked-request-max (1024)"},
		{[]string{"--parked-request-max", "50", "--extproc-max-requests", "49"}, "--extproc-max-requests (49) must be >= --parked-request-max (50)"},
		{[]string{"--parked-request-budget=-1s"}, `"--parked-request-budget" flag: it is out of range: want a duration from 0 to 24h`},
		{[]string{"--resume-latency=-5ms"}, `"--resume-latency" flag: it is out of range`},
		{[]string{"--actor-idle=-1s"}, `"--actor-idle" flag: it is out of range`},
		{[]string{"--workers", "0"}, `"--workers" flag: it is out of range: want a whole number from 1 to 100000`},
		{[]string{"--control-plane-unavailable", "2s"}, "--control-plane-unavailable: invalid window \"2s\": want START+DURATION"},
		{[]string{"--control-plane-unavailable", "2s+0s"}, "duration must be positive"},
		{[]string{"--abort", "actor-0001=zero"}, `--abort "actor-0001=zero": want ACTOR or ACTOR=N`},
		{[]string{"--deny", "Bad_Name"}, `--deny: actor "Bad_Name"`},
		{[]string{"--workers", "many"}, `invalid argument "many" for "--workers"`},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"--model", "envoy"}, `--model "envoy": want seed, main, pr221, main-2026-08, after-1229 or agentgateway`},
		{[]string{"--route-timeout", "5s"}, "--route-timeout is the flag of the routers from main-2026-08 on and needs --model main-2026-08 or after-1229"},
		{[]string{"--model", "main-2026-08", "--extproc-max-requests", "-1"}, `"--extproc-max-requests" flag: it is out of range: want a whole number from 0 to 1000000`},
		{[]string{"--model", "main-2026-08", "--parked-request-max", "10", "--extproc-max-requests", "5"}, "--extproc-max-requests (5) must be >= --parked-request-max (10): a circuit breaker below the parking lot silently truncates it with Envoy-generated 503s"},
		{[]string{"--model", "main-2026-08", "--parked-request-budget", "5s", "--drain-timeout", "3s"}, "--drain-timeout (3s) must be >= --parked-request-budget (5s)"},
		{[]string{"--pool-full-code", "Internal"}, "--pool-full-code"},
		{[]string{"--rate-limit", "Bad_Name"}, `--rate-limit: actor "Bad_Name"`},
		{[]string{"extra"}, `unknown command "extra"`},
		{[]string{"--workers", "100001"}, "--workers"},
		{[]string{"--parking-enabled=false"}, "--parking-enabled"},
		{[]string{"--hold", "actor-0001=soon"}, "--hold"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, out, errOut := clitest.ServingFactory(t, context.Background(), clitest.RouterURLsOut)
			code := root.Run(f, append([]string{"sim", "router"}, append(c.args, clitest.Ephemeral...)...))
			if code != cmdutil.ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, cmdutil.ExitUsage, errOut)
			}
			if !strings.Contains(errOut.String(), c.want) {
				t.Errorf("stderr %q lacks %q", errOut, c.want)
			}
			if out.String() != "" {
				t.Errorf("stdout %q on a usage error", out)
			}
		})
	}
}

// --model pr221 takes PR #221's defaults for every parking flag not given,
// and keeps the ones that were.
func TestSimRouterPR221Defaults(t *testing.T) {
	build := func(model router.Model, set map[string]bool, edit func(*router.Config)) router.Config {
		t.Helper()
		o := &sim.RouterOptions{Cfg: router.DefaultConfig(), Changed: func(n string) bool { return set[n] }}
		o.Cfg.Model = model
		if edit != nil {
			edit(&o.Cfg)
		}
		c, err := o.BuildConfig()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := build(router.ModelPR221, nil, nil)
	if c.ParkedRequestMax != 2048 || c.ParkedRequestBudget != 30*time.Second || c.ParkedRequestRetryInterval != 500*time.Millisecond || c.ExtprocMaxRequests != 1024 {
		t.Errorf("pr221 defaults: lot %d budget %s retry %s breaker %d, want 2048 30s 500ms 1024",
			c.ParkedRequestMax, c.ParkedRequestBudget, c.ParkedRequestRetryInterval, c.ExtprocMaxRequests)
	}
	c = build(router.ModelPR221, map[string]bool{"parked-request-budget": true, "parked-request-max": true}, func(c *router.Config) {
		c.ParkedRequestBudget, c.ParkedRequestMax = 2*time.Second, 8
	})
	if c.ParkedRequestBudget != 2*time.Second || c.ParkedRequestMax != 8 {
		t.Errorf("flags given were replaced: budget %s lot %d", c.ParkedRequestBudget, c.ParkedRequestMax)
	}
	c = build(router.ModelPR221, map[string]bool{"parking-enabled": true}, nil)
	if !c.ParkingDisabled {
		t.Errorf("--model pr221 --parking-enabled=false left parking on")
	}
	if c = build(router.ModelSeed, nil, nil); c.ParkedRequestMax != 1024 || c.ParkedRequestBudget != 5*time.Second {
		t.Errorf("seed defaults changed: lot %d budget %s", c.ParkedRequestMax, c.ParkedRequestBudget)
	}
}

// The command prints its three URLs on stdout, serves on loopback, and on
// a signal exits 0 and stops accepting connections.
func TestSimRouterRunsAndStopsCleanly(t *testing.T) {
	urls, _, errOut, stop := clitest.StartSimRouterCmd(t, "--workers", "1", "--actor-idle", "1h", "--parked-request-budget", "400ms")
	for _, name := range []string{"router", "metrics", "statusz"} {
		if !strings.HasPrefix(urls[name], "http://127.0.0.1:") {
			t.Fatalf("%s URL %q (stdout %v)", name, urls[name], urls)
		}
	}
	if !strings.HasSuffix(urls["metrics"], "/metrics") || !strings.HasSuffix(urls["statusz"], "/statusz") {
		t.Errorf("URLs %v", urls)
	}
	if s := errOut.String(); !strings.Contains(s, "1 workers, 100 actors") || !strings.Contains(s, "lot 1024, budget 400ms") || strings.Contains(s, "warning") {
		t.Errorf("banner %q", s)
	}
	if code, body := routerGet(http.DefaultClient, urls["router"], "actor-0001"); code != http.StatusOK || !strings.HasPrefix(body, "actor default/actor-0001 served by worker-01") {
		t.Fatalf("first request: %d %q", code, body)
	}
	if code := stop(); code != cmdutil.ExitOK {
		t.Errorf("exit %d after the signal, want 0; stderr %q", code, errOut)
	}
	if _, err := net.Dial("tcp", strings.TrimPrefix(urls["router"], "http://")); err == nil {
		t.Error("router still accepting connections after exit")
	}
}

// On a signal the command answers its parked requests (with their budget
// answer) before it exits 0. In a bubble on an in-memory network, so that
// "the request is parked" is synctest.Wait and /statusz, not a poll.
func TestSimRouterAnswersParkedRequestsOnSignal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		urls, _, errOut, stop := clitest.StartSimRouterCmdOn(t, n, "--workers", "1", "--actor-idle", "1h", "--parked-request-budget", "400ms")
		web := &http.Client{Transport: n.Transport()}
		if code, body := routerGet(web, urls["router"], "actor-0001"); code != http.StatusOK {
			t.Fatalf("first request: %d %q", code, body)
		}
		parked := make(chan string, 1)
		go func() {
			code, body := routerGet(web, urls["router"], "actor-0002")
			parked <- http.StatusText(code) + ": " + body
		}()
		synctest.Wait()
		resp, err := web.Get(urls["statusz"] + "?format=json")
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Parking struct{ Active int } `json:"parking"`
		}
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil || st.Parking.Active != 1 {
			t.Fatalf("/statusz says %d parked (%v), want the one request", st.Parking.Active, err)
		}
		if code := stop(); code != cmdutil.ExitOK {
			t.Errorf("exit %d after the signal, want 0; stderr %q", code, errOut)
		}
		if got := <-parked; got != `Service Unavailable: actor "actor-0002" unavailable: no free workers available` {
			t.Errorf("parked request at shutdown got %q, want its budget answer", got)
		}
		if !strings.Contains(errOut.String(), "shutting down; answering 1 parked request(s) first") {
			t.Errorf("stderr %q", errOut)
		}
		web.CloseIdleConnections()
	})
}

// routerGet asks the router at url for actor's root.
func routerGet(c *http.Client, url, actor string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, url+"/", nil)
	req.Host = actor + ".default.actors.resources.substrate.ate.dev"
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// With -o json stdout is one JSON object of URLs and nothing else.
func TestSimRouterJSONOutput(t *testing.T) {
	_, out, _, stop := clitest.StartSimRouterCmd(t, "-o", "json", "--quiet")
	var got map[string]string
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("stdout %q is not one JSON object: %v", out, err)
	}
	for _, k := range []string{"router_url", "metrics_url", "statusz_url"} {
		if !strings.HasPrefix(got[k], "http://127.0.0.1:") {
			t.Errorf("%s = %q", k, got[k])
		}
	}
	if code := stop(); code != cmdutil.ExitOK {
		t.Errorf("exit %d", code)
	}
}

func TestSimRouterWarnsOffLoopback(t *testing.T) {
	addrs := [3]net.Addr{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080},
		&net.TCPAddr{IP: net.IPv4zero, Port: 9090},
		&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 4040},
	}
	w := sim.RouterWarnings(addrs)
	if len(w) != 2 || !strings.Contains(w[0], "metrics endpoint listens on 0.0.0.0:9090") || !strings.Contains(w[1], "status endpoint listens on 192.0.2.7:4040") {
		t.Errorf("warnings %q", w)
	}
}

// --hold reaches the control plane: an actor held for ever never gets a
// worker, so its parked request spends the budget and is answered "no free
// workers available", while another actor is served.
func TestSimRouterHoldFlag(t *testing.T) {
	urls, _, _, stop := clitest.StartSimRouterCmd(t, "--hold", "actor-0002", "--parked-request-budget", "300ms")
	defer stop()
	get := func(actor string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, urls["router"]+"/", nil)
		req.Host = actor + ".default.actors.resources.substrate.ate.dev"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("actor-0001"); code != http.StatusOK {
		t.Fatalf("actor-0001: %d %q, want 200", code, body)
	}
	if code, body := get("actor-0002"); code != http.StatusServiceUnavailable || !strings.Contains(body, "no free workers available") {
		t.Fatalf("held actor-0002: %d %q, want 503 no free workers available", code, body)
	}
}

// Every {Field} placeholder the router's errors use has a flag in sim
// router's table, so a message never reaches the user as a Go field name.
func TestEveryRouterFieldHasAFlag(t *testing.T) {
	t.Parallel()
	fieldertest.EveryFieldNamed(t, sim.RouterFlagName, 30, "../../sim/router")
}
