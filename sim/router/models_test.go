package router

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// pr221Host is PR #221's Host form, without the atespace label.
func pr221Host(actor string) string { return actor + ".actors.resources.substrate.ate.dev" }

// noParkingSeries fails if /metrics has any parking series.
func noParkingSeries(t *testing.T, h *harness, who string) {
	t.Helper()
	for name := range h.scrape() {
		if strings.HasPrefix(name, "atenet_router_parking") {
			t.Errorf("%s exported %s", who, name)
		}
	}
}

// --model main (substrate main 86e138f6) never parks: a full pool is
// answered at once with the no-free-workers 503, /metrics has no parking
// series at all, and /statusz has no parking card.
func TestModelMainDoesNotPark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Model = ModelMain
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		start := time.Now()
		expect(t, h.get("actor-0002"), http.StatusServiceUnavailable, `actor "actor-0002" unavailable: no free workers available`)
		if d := time.Since(start); d >= cfg.ParkedRequestRetryInterval {
			t.Errorf("refused after %s: main answers a full pool at once", d)
		}
		noParkingSeries(t, h, "main, which has no parking,")
		if _, ok := h.statusJSON()["parking"]; ok {
			t.Error("main's /statusz has a parking card")
		}
	})
}

// --model pr221 wants <actor>.actors.resources.substrate.ate.dev and
// answers the atespace form, and foreign hosts, exactly as PR #221 does.
func TestModelPR221Host(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Model = ModelPR221
		h := startMem(t, cfg)
		defer h.close()

		served(t, h.get(pr221Host("actor-0001")), "actor-0001")
		expect(t, h.get("actor-0001.default"+HostSuffix), http.StatusNotFound,
			`invalid host "actor-0001.default.actors.resources.substrate.ate.dev": invalid actor_id: must start and end with a lower case alphanumeric character, and consist only of lower case alphanumeric characters or '-'`)
		expect(t, h.get("foo.example.com"), http.StatusNotFound,
			`invalid host "foo.example.com": invalid actor_id: must end with actors.resources.substrate.ate.dev, got "foo.example.com"`)
	})
}

// PR #221's parking: no parking series before first use; even a running
// actor takes a lot slot and is recorded as served; a full lot sheds it; a
// spent budget is outcome="error"; statusz max_wait is a duration string.
func TestModelPR221Parking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Model = ModelPR221
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 1
		cfg.ParkedRequestBudget = 2 * time.Second
		h := startMem(t, cfg)
		defer h.close()

		noParkingSeries(t, h, "a fresh PR #221 router")
		st := h.statusJSON()
		if got := st["parking"]["max_wait"]; got != "2s" {
			t.Errorf("statusz max_wait = %#v, want the duration string \"2s\"", got)
		}
		if f := st["flags"]; f["parking-max-wait"] != "2s" || f["parking-max-parked"] != "1" || f["parking-enabled"] != "true" {
			t.Errorf("statusz flags %v, want PR #221's parking flag names", f)
		}
		served(t, h.get(pr221Host("actor-0001")), "actor-0001")
		served(t, h.get(pr221Host("actor-0001")), "actor-0001") // running: still parked

		parked := h.goGet(pr221Host("actor-0002")) // pool full: parks for the budget
		synctest.Wait()
		expect(t, h.get(pr221Host("actor-0001")), http.StatusServiceUnavailable, `actor "actor-0001" unavailable: router at capacity`)
		expect(t, <-parked, http.StatusServiceUnavailable, `actor "actor-0002" unavailable: no free workers available`)
		h.checkMetrics(1, map[Outcome]int{OutcomeServed: 2, OutcomeError: 1})
	})
}

// The fault flags for 429 and the bad-worker-IP 500 answer the real bodies.
func TestRateLimitAndRoutingFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.RateLimit = []string{"actor-0001"}
		cfg.RoutingFail = []string{"actor-0002"}
		h := startMem(t, cfg)
		defer h.close()

		expect(t, h.get("actor-0001"), http.StatusTooManyRequests, `actor "actor-0001" rate limited`)
		expect(t, h.get("actor-0002"), http.StatusInternalServerError, `actor "actor-0002" routing failed`)
		// The real router records a routing failure's park as served.
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeError: 1})
		served(t, h.get("actor-0003"), "actor-0003")
	})
}

// With --extproc-message-timeout and parking disabled, Aborted retries run
// to the router's 15s but Envoy gives up at 5s with an empty 504.
func TestExtprocMessageTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ParkedRequestMax = 0
		cfg.ExtprocMessageTimeout = true
		cfg.Abort = map[string]int{"actor-0001": 0}
		h := startMem(t, cfg)
		defer h.close()

		start := time.Now()
		expect(t, h.get("actor-0001"), http.StatusGatewayTimeout, "")
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("answered after %s, want Envoy's 5s message timeout", d)
		}
	})
}
