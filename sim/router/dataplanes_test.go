package router

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The dataplanes after 6210ad86, as router-dataplanes.md reads their
// sources: the router after #1229 (header addressing, the lot taken at the
// park transition, a resume never cut by the budget) and agentgateway's
// own parking.

// byHeader asks for actor the way the header-addressed dataplanes want it:
// ate-target-actor: default/<actor>, the Host naming nothing.
func (h *harness) byHeader(actor string, hdr ...string) result {
	return h.get("gateway.example", append([]string{TargetActorHeader, "default/" + actor}, hdr...)...)
}

func (h *harness) goByHeader(actor string) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- h.byHeader(actor) }()
	return ch
}

// after1229 is the after-1229 model with its own defaults.
func after1229(edit func(*Config)) Config {
	cfg := testConfig()
	cfg.Model = ModelAfter1229
	ApplyModelDefaults(&cfg, func(string) bool { return false })
	if edit != nil {
		edit(&cfg)
	}
	return cfg
}

// The actor is read from ate-target-actor alone; a missing or malformed
// header is the 404 both newest dataplanes write.
func TestHeaderAddressing(t *testing.T) {
	for _, m := range []Model{ModelAfter1229, ModelAgentgateway} {
		t.Run(string(m), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				cfg.Model = m
				ApplyModelDefaults(&cfg, func(string) bool { return false })
				h := startMem(t, cfg)
				defer h.close()
				const bad = `invalid "ate-target-actor": expected <atespace>/<actor>`
				// The Host form the older routers read is not read.
				expect(t, h.get("actor-0001"), http.StatusNotFound, bad)
				expect(t, h.get("gateway.example", TargetActorHeader, "actor-0001"), http.StatusNotFound, bad)
				expect(t, h.get("gateway.example", TargetActorHeader, "default/Actor_1"), http.StatusNotFound, bad)
				served(t, h.byHeader("actor-0001"), "actor-0001")
			})
		})
	}
}

// After #1229 a request takes a lot slot only at its flight's park
// transition: a running actor is never shed however full the lot; a
// suspended actor's request is shed after one resume attempt (not at
// once); parking_active and the wait histogram count only requests that
// parked. Under main-2026-08 the same load sheds the running actor.
func TestAfter1229LotAtParkTransition(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := after1229(func(c *Config) {
			c.Workers = 1
			c.ActorIdle = time.Hour
			c.ParkedRequestMax = 1
			c.ParkedRequestBudget = 2 * time.Second
			c.ControlPlaneLatency = 50 * time.Millisecond
		})
		h := startMem(t, cfg)
		defer h.close()

		served(t, h.byHeader("actor-0001"), "actor-0001")
		parked := h.goByHeader("actor-0002") // the pool is full: parks
		time.Sleep(100 * time.Millisecond)   // past its first attempt
		synctest.Wait()
		if pm := h.metrics(); pm.active != 1 {
			t.Fatalf("%s = %v with one request parked, want 1", MetricActive, pm.active)
		}
		if got := h.s.Status().Parking.Active; got != 1 {
			t.Errorf("statusz active = %v, want 1", got)
		}

		calls := h.s.ResumeCalls()
		shed := h.byHeader("actor-0003")
		expect(t, shed, http.StatusServiceUnavailable, `actor "default/actor-0003" unavailable: router at capacity`)
		if shed.elapsed != cfg.ControlPlaneLatency {
			t.Errorf("shed after %s, want after its one resume attempt (%s)", shed.elapsed, cfg.ControlPlaneLatency)
		}
		// The running actor's ResumeActor answers OK on the first attempt:
		// no slot, so a full lot does not shed it.
		served(t, h.byHeader("actor-0001"), "actor-0001")
		if got := h.s.ResumeCalls() - calls; got < 2 {
			t.Errorf("%d ResumeActor calls for the shed request and the running one, want one each at least", got)
		}

		expect(t, <-parked, http.StatusServiceUnavailable, `actor default/actor-0002 unavailable: no worker has room for the actor`)
		// Only the parked request has a wait sample: the running actor's
		// requests and the shed one never entered the lot.
		h.checkMetrics(1, map[Outcome]int{OutcomeBudgetExhausted: 1})
	})
}

// After #675 a resume still running when the budget ends completes, and
// the request is served late (one attempt past the budget); 6210ad86 cuts
// the same attempt at the budget and answers the spent budget's 503.
func TestAfter1229ServedLate(t *testing.T) {
	edit := func(c *Config) {
		c.ParkedRequestBudget = 2 * time.Second
		c.ControlPlaneLatency = 500 * time.Millisecond
		// Refused until 1.8s after the first refusal (at 0.5s): the fourth
		// attempt, made at 1.831s, succeeds at 2.331s.
		c.Hold = map[string]Hold{"actor-0001": {For: 1800 * time.Millisecond}}
	}
	t.Run("after-1229", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := after1229(edit)
			h := startMem(t, cfg)
			defer h.close()
			r := h.byHeader("actor-0001")
			served(t, r, "actor-0001")
			within(t, "the late answer", r.elapsed, cfg.ParkedRequestBudget, cfg.ParkedRequestBudget+cfg.ControlPlaneLatency+cfg.ResumeLatency+cfg.ServiceTime)
			h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1})
		})
	})
	t.Run("main-2026-08", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := testConfig()
			cfg.Model = ModelMain202608
			ApplyModelDefaults(&cfg, func(string) bool { return false })
			edit(&cfg)
			h := startMem(t, cfg)
			defer h.close()
			r := h.get("actor-0001")
			expect(t, r, http.StatusServiceUnavailable, "actor default/actor-0001 unavailable: no free workers available")
			if r.elapsed != cfg.ParkedRequestBudget {
				t.Errorf("answered after %s, want at the budget %s", r.elapsed, cfg.ParkedRequestBudget)
			}
		})
	})
}

// agentgateway's endings: a full lot is refused at once with its own
// text and no ResumeActor call, a spent budget is 504 "request timed out",
// a resolved actor is served from its cache without a permit, and its
// metrics are its own gauge; there is no statusz.
func TestAgentgatewayEndings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Model = ModelAgentgateway
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 1
		cfg.ParkedRequestBudget = 2 * time.Second
		h := startMem(t, cfg)
		defer h.close()

		served(t, h.byHeader("actor-0001"), "actor-0001")
		parked := h.goByHeader("actor-0002")
		synctest.Wait()
		fams := h.scrape()
		if f := fams[MetricAgentgatewayActive]; f == nil || f.Metric[0].GetGauge().GetValue() != 1 {
			t.Fatalf("%s = %v with one permit held, want 1", MetricAgentgatewayActive, f)
		}
		for name := range fams {
			if strings.HasPrefix(name, "atenet_router_") {
				t.Errorf("agentgateway exported the atenet router's %s", name)
			}
		}

		calls := h.s.ResumeCalls()
		shed := h.byHeader("actor-0003")
		expect(t, shed, http.StatusServiceUnavailable, `actor "actor-0003" request parking capacity exhausted`)
		if shed.elapsed != 0 || h.s.ResumeCalls() != calls {
			t.Errorf("shed after %s and %d ResumeActor calls, want at once and none", shed.elapsed, h.s.ResumeCalls()-calls)
		}
		// Resolved less than 5s ago: a cache hit, no permit.
		served(t, h.byHeader("actor-0001"), "actor-0001")
		// A gRPC client gets 200 with grpc-status UNAVAILABLE.
		g := h.byHeader("actor-0003", "Content-Type", "application/grpc")
		if g.code != http.StatusOK || g.header.Get("Grpc-Status") != "14" || g.header.Get("Grpc-Message") != `actor "actor-0003" request parking capacity exhausted` || g.body != "" {
			t.Errorf("gRPC refusal: %d %q grpc-status %q grpc-message %q, want 200, no body, 14 and the capacity text",
				g.code, g.body, g.header.Get("Grpc-Status"), g.header.Get("Grpc-Message"))
		}

		r := <-parked
		expect(t, r, http.StatusGatewayTimeout, `actor "actor-0002" request timed out`)
		if r.elapsed != cfg.ParkedRequestBudget {
			t.Errorf("timed out after %s, want at the budget %s", r.elapsed, cfg.ParkedRequestBudget)
		}
		if f := h.scrape()[MetricAgentgatewayActive]; f.Metric[0].GetGauge().GetValue() != 0 {
			t.Errorf("%s = %v after the run, want 0", MetricAgentgatewayActive, f.Metric[0].GetGauge().GetValue())
		}
		resp, err := h.client.Get(h.s.StatusURL() + "?format=json")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("statusz answered %d, want 404: agentgateway has none", resp.StatusCode)
		}

		// Once the cache entry is older than its TTL, the running actor's
		// lookup takes a permit again: a full lot refuses it.
		time.Sleep(AgentgatewayCacheTTL)
		held := h.goByHeader("actor-0002")
		synctest.Wait()
		expect(t, h.byHeader("actor-0001"), http.StatusServiceUnavailable, `actor "actor-0001" request parking capacity exhausted`)
		<-held
	})
}

// With parking off agentgateway does not park ResourceExhausted (the pool
// full, as ateapi says it since substrate #908): 429 "rate limited" at
// once, parking never engages; FailedPrecondition is 503 with ateapi's
// text at once.
func TestAgentgatewayParkingOff(t *testing.T) {
	for _, c := range []struct {
		code Code
		want int
		body string
	}{
		{ResourceExhausted, http.StatusTooManyRequests, `actor "actor-0002" rate limited`},
		{FailedPrecondition, http.StatusServiceUnavailable, `actor "actor-0002" unavailable: no worker has room for the actor`},
	} {
		t.Run(c.code.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				cfg.Model = ModelAgentgateway
				cfg.Workers = 1
				cfg.ActorIdle = time.Hour
				cfg.ParkedRequestMax = 0
				cfg.PoolFullCode = c.code
				h := startMem(t, cfg)
				defer h.close()
				served(t, h.byHeader("actor-0001"), "actor-0001")
				r := h.byHeader("actor-0002")
				expect(t, r, c.want, c.body)
				if r.elapsed != 0 {
					t.Errorf("answered after %s, want at once", r.elapsed)
				}
			})
		})
	}
}

// Every model is a row: its help names it, and what a model is told
// differently comes from its row, not from its name.
func TestEveryModelIsARow(t *testing.T) {
	help := ModelHelp(nil)
	for _, m := range Models {
		row, ok := modelRow(m)
		if !ok || row.help == "" || row.lotFull == nil {
			t.Errorf("model %s has no complete row", m)
		}
		if !strings.Contains(help, "  "+string(m)) {
			t.Errorf("--help does not list %s", m)
		}
		cfg := testConfig()
		cfg.Model = m
		ApplyModelDefaults(&cfg, func(string) bool { return false })
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s with its defaults: %v", m, err)
		}
	}
	for _, l := range strings.Split(help, "\n") {
		if len(l) > helpWidth {
			t.Errorf("help line longer than %d: %q", helpWidth, l)
		}
	}
}
