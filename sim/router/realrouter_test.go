package router

import (
	"context"
	"errors"
	"io"
	"maps"
	"math"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// The real router's scrape Content-Type for a scrape that names no format
// (client_golang's promhttp behind serverboot.StartMetricsServer, PR #221
// 4a8f978b, as captured).
const realScrapeContentType = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"

// realBuckets are the histograms' bounds in PR #221 4a8f978b,
// cmd/atenet/internal/router/metrics.go (newParkingMetrics and
// newRouteDurationHistogram).
var realBuckets = map[string][]float64{
	MetricWait:  {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 45, 60},
	MetricRoute: {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30},
}

// pr221Config is PR #221's defaults (as ApplyPR221Defaults sets them when
// no flag is given) with the test's exact timing.
func pr221Config() Config {
	cfg := testConfig()
	cfg.Model = ModelPR221
	ApplyPR221Defaults(&cfg, func(string) bool { return false })
	return cfg
}

// rawGet fetches a URL through the harness and returns the answer.
func (h *harness) rawGet(url string) (*http.Response, string) {
	h.t.Helper()
	resp, err := h.client.Get(url)
	if err != nil {
		h.t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("GET %s: %v", url, err)
	}
	return resp, string(b)
}

func labelsOf(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

func labelNames(m *dto.Metric) []string {
	var n []string
	for _, p := range m.GetLabel() {
		n = append(n, p.GetName())
	}
	slices.Sort(n)
	return n
}

// TestExpositionMatchesRealRouter runs the step the real router was
// captured in (testdata/pr221-lot-full.prom: lot 2, max-wait 3s, two
// parks that run out of budget, two sheds) and compares what /metrics
// writes with what the real router wrote: every parking family's name,
// type and HELP line, every series' labels, the values, the wait
// histogram's bounds; target_info's labels; the collectors the real
// router's default registry adds; the Content-Type.
func TestExpositionMatchesRealRouter(t *testing.T) {
	f, err := os.Open("testdata/pr221-lot-full.prom")
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	real, err := parser.TextToMetricFamilies(f)
	f.Close()
	if err != nil {
		t.Fatalf("the real exposition does not parse: %v", err)
	}

	synctest.Test(t, func(t *testing.T) {
		cfg := pr221Config()
		cfg.ParkedRequestMax = 2
		cfg.ParkedRequestBudget = 3 * time.Second
		// The fake ateapi answered these actors "no free workers" for ever.
		cfg.Hold = map[string]Hold{HoldEveryActor: {}}
		h := startMem(t, cfg)
		defer h.close()

		resp, body := h.rawGet(h.s.MetricsURL())
		if ct := resp.Header.Get("Content-Type"); ct != realScrapeContentType {
			t.Errorf("Content-Type %q, the real router's is %q", ct, realScrapeContentType)
		}
		if strings.Contains(body, "atenet_router_parking") {
			t.Errorf("a fresh PR #221 router exports no parking series; the simulator wrote:\n%s", body)
		}

		parked := []<-chan result{h.goGet(pr221Host("actor-0001")), h.goGet(pr221Host("actor-0002"))}
		synctest.Wait()
		for _, a := range []string{"actor-0003", "actor-0004"} {
			expect(t, h.get(pr221Host(a)), http.StatusServiceUnavailable, `actor "`+a+`" unavailable: router at capacity`)
		}
		for i, ch := range parked {
			a := ActorName(i + 1)
			expect(t, <-ch, http.StatusServiceUnavailable, `actor "`+a+`" unavailable: no free workers available`)
		}

		ours := h.scrape()
		for name, rf := range real {
			of := ours[name]
			if of == nil {
				t.Errorf("the simulator has no %s", name)
				continue
			}
			if of.GetType() != rf.GetType() || of.GetHelp() != rf.GetHelp() {
				t.Errorf("%s: type %v help %q, the real router's: type %v help %q", name, of.GetType(), of.GetHelp(), rf.GetType(), rf.GetHelp())
			}
			if name == "target_info" {
				// Fresh UUID and SDK version per binary: compare names and the service.
				if got, want := labelNames(of.Metric[0]), labelNames(rf.Metric[0]); !slices.Equal(got, want) {
					t.Errorf("target_info labels %v, the real router's %v", got, want)
				}
				if got := labelsOf(of.Metric[0])["service_name"]; got != "atenet-router" {
					t.Errorf("target_info service_name %q", got)
				}
				continue
			}
			if len(of.Metric) != len(rf.Metric) {
				t.Errorf("%s: %d series, the real router has %d", name, len(of.Metric), len(rf.Metric))
				continue
			}
			for i, rm := range rf.Metric {
				om := of.Metric[i]
				if got, want := labelsOf(om), labelsOf(rm); !mapsEqual(got, want) {
					t.Errorf("%s: labels %v, the real router's %v", name, got, want)
				}
				switch rf.GetType() {
				case dto.MetricType_GAUGE:
					if om.GetGauge().GetValue() != rm.GetGauge().GetValue() {
						t.Errorf("%s = %v, the real router's %v", name, om.GetGauge().GetValue(), rm.GetGauge().GetValue())
					}
				case dto.MetricType_COUNTER:
					if om.GetCounter().GetValue() != rm.GetCounter().GetValue() {
						t.Errorf("%s = %v, the real router's %v", name, om.GetCounter().GetValue(), rm.GetCounter().GetValue())
					}
				case dto.MetricType_HISTOGRAM:
					oh, rh := om.GetHistogram(), rm.GetHistogram()
					if oh.GetSampleCount() != rh.GetSampleCount() {
						t.Errorf("%s count %d, the real router's %d", name, oh.GetSampleCount(), rh.GetSampleCount())
					}
					// The real waits took 3.0017s each (its timers); the
					// simulator's clock is exact.
					if math.Abs(oh.GetSampleSum()-rh.GetSampleSum()) > 0.01 {
						t.Errorf("%s sum %v, the real router's %v", name, oh.GetSampleSum(), rh.GetSampleSum())
					}
					var bounds []float64
					byBound := map[float64]uint64{}
					for _, b := range oh.GetBucket() {
						bounds = append(bounds, b.GetUpperBound())
						byBound[b.GetUpperBound()] = b.GetCumulativeCount()
					}
					if want := realBuckets[name]; !slices.Equal(bounds, append(slices.Clone(want), math.Inf(1))) {
						t.Errorf("%s bounds %v, the real router's %v and +Inf", name, bounds, want)
					}
					for _, b := range rh.GetBucket() {
						if got := byBound[b.GetUpperBound()]; got != b.GetCumulativeCount() {
							t.Errorf("%s le=%v: %d, the real router's %d", name, b.GetUpperBound(), got, b.GetCumulativeCount())
						}
					}
				}
			}
		}
		for name := range ours {
			if strings.HasPrefix(name, "atenet_") && real[name] == nil {
				t.Errorf("the simulator exports %s, which the real router did not in this step", name)
			}
		}
		// What the real router's default registry and promhttp.Handler add.
		want := []string{"go_goroutines", "go_memstats_alloc_bytes", "promhttp_metric_handler_requests_total", "promhttp_metric_handler_requests_in_flight"}
		if runtime.GOOS == "linux" {
			want = append(want, "process_start_time_seconds", "process_open_fds")
		}
		for _, n := range want {
			if ours[n] == nil {
				t.Errorf("the real router's exposition has %s; the simulator's has not", n)
			}
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// statusParking is the "parking" object of /statusz?format=json, as bytes.
func (h *harness) statusParking() string {
	h.t.Helper()
	_, body := h.rawGet(h.s.StatusURL() + "?format=json")
	_, rest, ok := strings.Cut(body, `"parking":`)
	if !ok {
		h.t.Fatalf("statusz has no parking card: %s", body)
	}
	card, _, _ := strings.Cut(rest, "}")
	return card + "}"
}

// PR #221's --parking-max-parked 0 keeps parking on: every request, even
// to an actor that could run at once, is shed with "router at capacity"
// and counted in parking_rejected; nothing reaches ResumeActor; statusz
// says enabled with a lot of 0 (reference: the real card, exact bytes).
func TestPR221LotZeroShedsEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := pr221Config()
		cfg.ParkedRequestMax = 0
		h := startMem(t, cfg)
		defer h.close()

		expect(t, h.get(pr221Host("actor-0001")), http.StatusServiceUnavailable, `actor "actor-0001" unavailable: router at capacity`)
		if n := h.s.ResumeCalls(); n != 0 {
			t.Errorf("%d ResumeActor calls; a shed request makes none", n)
		}
		if got, want := h.statusParking(), `{"enabled":true,"active":0,"max_parked":0,"max_wait":"30s"}`; got != want {
			t.Errorf("statusz parking %s, the real router's %s", got, want)
		}
		pm := h.metrics()
		if pm.rejected != 1 || pm.total() != 0 {
			t.Errorf("rejected %v, waits %d; want 1 rejected and no wait", pm.rejected, pm.total())
		}
	})
}

// PR #221's --parking-enabled=false (ParkingDisabled): a full pool is
// answered after one ResumeActor call, no parking series ever appear, and
// statusz says enabled:false while still showing the configured lot.
func TestPR221ParkingDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := pr221Config()
		cfg.ParkingDisabled = true
		cfg.ParkedRequestBudget = 2 * time.Second
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		defer h.close()

		if got, want := h.statusParking(), `{"enabled":false,"active":0,"max_parked":2048,"max_wait":"2s"}`; got != want {
			t.Errorf("statusz parking %s, the real router's %s", got, want)
		}
		if f := h.statusJSON()["flags"]; f["parking-enabled"] != "false" || f["parking-max-parked"] != "2048" {
			t.Errorf("statusz flags %v", f)
		}
		_, page := h.rawGet(h.s.StatusURL())
		if !strings.Contains(page, "Disabled (parking switched off") {
			t.Errorf("the HTML card does not say parking is disabled:\n%s", page)
		}
		served(t, h.get(pr221Host("actor-0001")), "actor-0001")
		before := h.s.ResumeCalls()
		start := time.Now()
		expect(t, h.get(pr221Host("actor-0002")), http.StatusServiceUnavailable, `actor "actor-0002" unavailable: no free workers available`)
		if d, n := time.Since(start), h.s.ResumeCalls()-before; d != 0 || n != 1 {
			t.Errorf("answered after %s and %d calls; parking off answers after one call, at once", d, n)
		}
		noParkingSeries(t, h, "PR #221 with parking disabled")
	})
}

// PR #221 with parking off still retries Aborted, for max-wait (not the
// seed's 15s), and answers 500 "error resuming" (the real router: 2010 ms,
// 4 calls with max-wait 2s).
func TestPR221DisabledAbortedRunsToMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := pr221Config()
		cfg.ParkingDisabled = true
		cfg.ParkedRequestBudget = 2 * time.Second
		cfg.Abort = map[string]int{"actor-0001": 0}
		h := startMem(t, cfg)
		defer h.close()

		start := time.Now()
		expect(t, h.get(pr221Host("actor-0001")), http.StatusInternalServerError, `error resuming actor "actor-0001"`)
		if d, n := time.Since(start), h.s.ResumeCalls(); d != 2*time.Second || n != 4 {
			t.Errorf("answered after %s and %d calls, the real router after 2s and 4", d, n)
		}
	})
}

// PR #221 does not park on Unavailable: it fails fast even with parking on.
func TestPR221UnavailableFailsFast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := pr221Config()
		cfg.ControlPlaneUnavailable = []Window{{Start: 0, Duration: time.Hour}}
		h := startMem(t, cfg)
		defer h.close()

		start := time.Now()
		expect(t, h.get(pr221Host("actor-0001")), http.StatusServiceUnavailable, `actor "actor-0001" unavailable`)
		if d := time.Since(start); d != 0 {
			t.Errorf("answered after %s; PR #221 does not retry Unavailable", d)
		}
		h.checkMetrics(0, map[Outcome]int{OutcomeError: 1})
	})
}

// The seed's --parked-request-max 0 turns parking off, and statusz says so.
func TestSeedLotZeroIsParkingOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ParkedRequestMax = 0
		h := startMem(t, cfg)
		defer h.close()
		if p := h.statusJSON()["parking"]; p["enabled"] != false || p["max_parked"] != 0.0 {
			t.Errorf("statusz parking %v, want enabled false", p)
		}
		served(t, h.get("actor-0001"), "actor-0001")
		if pm := h.metrics(); pm.total() != 0 {
			t.Errorf("%d waits recorded with parking off", pm.total())
		}
	})
}

// --hold ACTOR=DURATION: the actor's resumes are refused "no free workers"
// for that long after its first call, with free workers in the pool; the
// parked request is served at the first retry after it, within budget.
func TestHoldForAWhileThenServed(t *testing.T) {
	for _, model := range []Model{ModelSeed, ModelPR221} {
		t.Run(string(model), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				if model == ModelPR221 {
					cfg = pr221Config()
				}
				cfg.Hold = map[string]Hold{"actor-0001": {For: 800 * time.Millisecond}}
				h := startMem(t, cfg)
				defer h.close()

				host := func(a string) string { return a }
				if model == ModelPR221 {
					host = pr221Host
				}
				served(t, h.get(host("actor-0002")), "actor-0002") // others are not held
				calls := h.s.ResumeCalls()
				start := time.Now()
				served(t, h.get(host("actor-0001")), "actor-0001")
				// Retries: seed 0, 0.1, 0.21, … 0.771561, 0.9487171 s;
				// PR #221 0, 0.5, 1.05 s. The first after 0.8s gets a worker.
				wantAt := 948717100 * time.Nanosecond
				wantCalls := int64(8)
				if model == ModelPR221 {
					wantAt, wantCalls = 1050*time.Millisecond, 3
				}
				d := time.Since(start) - cfg.ResumeLatency - cfg.ServiceTime
				if n := h.s.ResumeCalls() - calls; d != wantAt || n != wantCalls {
					t.Errorf("resumed at %s after %d calls, want %s and %d", d, n, wantAt, wantCalls)
				}
				if pm := h.metrics(); pm.count(OutcomeServed) != 2 {
					t.Errorf("%d served waits, want 2", pm.count(OutcomeServed))
				}
			})
		})
	}
}

// --hold ACTOR=N: the first N resumes are refused, the next one succeeds.
func TestHoldCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Hold = map[string]Hold{"default/actor-0001": {Times: 3}}
		h := startMem(t, cfg)
		defer h.close()
		served(t, h.get("actor-0001"), "actor-0001")
		if n := h.s.ResumeCalls(); n != 4 {
			t.Errorf("%d calls, want 4 (3 refused, then OK)", n)
		}
	})
}

// --hold ACTOR (or '*'): the actor never gets a worker; its parks spend
// the budget and end as the real router ends them (503 no free workers,
// outcome error on PR #221, budget_exhausted in the seed).
func TestHoldForever(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Hold = map[string]Hold{"actor-0001": {}}
		h := startMem(t, cfg)
		defer h.close()
		start := time.Now()
		expect(t, h.get("actor-0001"), http.StatusServiceUnavailable, `actor "actor-0001" unavailable: no free workers available`)
		if d := time.Since(start); d != cfg.ParkedRequestBudget {
			t.Errorf("answered after %s, want the budget %s", d, cfg.ParkedRequestBudget)
		}
		served(t, h.get("actor-0002"), "actor-0002")
		h.checkMetrics(0, map[Outcome]int{OutcomeBudgetExhausted: 1, OutcomeServed: 1})
	})
	synctest.Test(t, func(t *testing.T) {
		cfg := pr221Config()
		cfg.ParkedRequestBudget = 2 * time.Second
		cfg.Hold = map[string]Hold{HoldEveryActor: {}}
		h := startMem(t, cfg)
		defer h.close()
		for _, a := range []string{"actor-0001", "actor-0002"} {
			expect(t, h.get(pr221Host(a)), http.StatusServiceUnavailable, `actor "`+a+`" unavailable: no free workers available`)
		}
		h.checkMetrics(0, map[Outcome]int{OutcomeError: 2})
		if st := h.s.Status(); st.Workers.Busy != 0 {
			t.Errorf("%d workers busy; a held actor never gets one", st.Workers.Busy)
		}
	})
}

func TestParseHold(t *testing.T) {
	for _, c := range []struct {
		in, actor string
		hold      Hold
		err       string
	}{
		{"actor-0001", "actor-0001", Hold{}, ""},
		{"actor-0001=800ms", "actor-0001", Hold{For: 800 * time.Millisecond}, ""},
		{"prod/actor-0002=3", "prod/actor-0002", Hold{Times: 3}, ""},
		{"*=2s", "*", Hold{For: 2 * time.Second}, ""},
		{"actor-0001=0", "", Hold{}, "must be positive"},
		{"actor-0001=0s", "", Hold{}, "must be positive"},
		{"actor-0001=-1", "", Hold{}, "count must be in"},
		{"actor-0001=25h", "", Hold{}, "duration must be in"},
		{"actor-0001=soon", "", Hold{}, "neither a duration"},
		{"=1s", "", Hold{}, "want ACTOR"},
	} {
		actor, h, err := ParseHold(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(fielderr.Render(err, braces), "{Hold} ") {
				t.Errorf("ParseHold(%q) = %v, want an error naming {Hold} with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || actor != c.actor || h != c.hold {
			t.Errorf("ParseHold(%q) = %q %+v %v, want %q %+v", c.in, actor, h, err, c.actor, c.hold)
		}
	}
}

// Issue 28 item 9: --workers 100000 costs nothing at start (workers are
// made as first claimed), and a start whose context has ended gives up.
func TestStartIsCheapAndInterruptible(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = MaxWorkers
		h := startMem(t, cfg)
		defer h.close()
		if made := h.s.cp.made; made != 0 {
			t.Errorf("%d workers made at start", made)
		}
		served(t, h.get("actor-0001"), "actor-0001")
		if made := h.s.cp.made; made != 1 {
			t.Errorf("%d workers made for one running actor", made)
		}
		if st := h.s.Status(); st.Workers.Total != MaxWorkers || st.Workers.Busy != 1 {
			t.Errorf("statusz workers %+v", st.Workers)
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := testConfig()
	cfg.Workers = MaxWorkers
	s, err := Start(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		if s != nil {
			_ = s.Close()
		}
		t.Fatalf("Start with an ended context = %v, want context.Canceled", err)
	}
}

// routeCounts reads the route-duration histogram: count per label set,
// keyed "namespace/name/outcome".
func (h *harness) routeCounts() map[string]uint64 {
	h.t.Helper()
	got := map[string]uint64{}
	if f := h.scrape()[MetricRoute]; f != nil {
		for _, m := range f.Metric {
			l := labelsOf(m)
			got[l["actor_template_namespace"]+"/"+l["actor_template_name"]+"/"+l["outcome"]] = m.GetHistogram().GetSampleCount()
		}
	}
	return got
}

// Every request that reaches the router is one route-duration sample, its
// outcome as PR #221's classifyOutcome names it and its template labels
// set only when an actor was resolved.
func TestRouteDurationOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		defer h.close()

		served(t, h.get("actor-0001"), "actor-0001")
		served(t, h.get("actor-0001"), "actor-0001") // the fast path counts too
		if r := h.get("foo.example.com"); r.code != http.StatusNotFound {
			t.Fatalf("a foreign Host got %v, want 404", r)
		}
		expect(t, h.get("actor-9999"), http.StatusNotFound, `actor "actor-9999" not found`)
		ctx, cancel := context.WithCancel(context.Background())
		gone := make(chan result, 1)
		go func() { gone <- h.getCtx(ctx, "actor-0002") }() // parks: the pool is full
		synctest.Wait()
		cancel()
		if r := <-gone; !isCanceled(r.err) {
			t.Fatalf("the cancelled request ended with %v", r)
		}
		synctest.Wait()
		served(t, h.get("actor-0001"), "actor-0001")

		want := map[string]uint64{
			"default/sim-actor/ok": 3,
			"//not_found":          2,
			"//cancelled":          1,
		}
		if got := h.routeCounts(); !maps.Equal(got, want) {
			t.Errorf("route samples %v, want %v", got, want)
		}
	})
}

// Every worker up to MaxWorkers has a valid IPv4 address (the real router
// answers "routing failed" for one that is not), and no two share one.
func TestWorkerAddressesValid(t *testing.T) {
	seen := make(map[string]bool, MaxWorkers)
	for i := 1; i <= MaxWorkers; i++ {
		w := newWorker(i)
		ip, err := netip.ParseAddr(w.ip)
		if err != nil || !ip.Is4() || seen[w.ip] {
			t.Fatalf("worker %d: address %q invalid or repeated (%v)", i, w.ip, err)
		}
		seen[w.ip] = true
	}
}
