package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Answers recorded from the real routers, agent-substrate/substrate main at
// 86e138f6 and PR #221 at 4a8f978b (bodies written by
// cmd/atenet/internal/router/errors.go): exact bodies, content-type
// text/plain and Envoy's server header.
const (
	realNoFreeWorkers = `actor "%s" unavailable: no free workers available`
	realInvalidHost   = `invalid host "%s": invalid actor_id: must start and end with a lower case alphanumeric character, and consist only of lower case alphanumeric characters or '-'`
)

func realAnswer(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Server", "envoy")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

// TestParkedFailsAgainstRouterWithoutParking: main answers a full pool at
// once with the same 503 a parking router sends when the budget ends. The
// probe must not call that a pass.
func TestParkedFailsAgainstRouterWithoutParking(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, _, _ := strings.Cut(r.Host, ".")
		realAnswer(w, 503, fmt.Sprintf(realNoFreeWorkers, actor))
	}))
	t.Cleanup(srv.Close)
	r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 20, Actors: GeneratedActors(4), Seed: 1, Checks: report.CheckConfig{Budget: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	// Refused well inside half an hour's budget: at once, not exhausted.
	if r.Count(report.Unavailable) != 20 {
		t.Fatalf("unavailable = %d, want 20", r.Count(report.Unavailable))
	}
	c := checksByName(r)[report.CheckReachedParking]
	if c.Status != report.CheckFailed || !strings.Contains(c.Detail, "parking is disabled on the router") {
		t.Errorf("reached_parking = %+v, want failed saying parking is disabled", c)
	}
}

// TestFlightsTellLateJoinersFromUnparked: a late joiner's short
// budget_exhausted is the flight's, not a refusal without parking.
func TestFlightsTellLateJoinersFromUnparked(t *testing.T) {
	ev := []flightEvent{
		// Actor 1: parked 5s from 0; a joiner at 3s shares the flight's end.
		{actor: 1, outcome: report.BudgetExhausted, sentMs: 0, doneMs: 5000},
		{actor: 1, outcome: report.BudgetExhausted, sentMs: 3000, doneMs: 5001},
		// Actor 2: refused at once (main), twice in separate flights.
		{actor: 2, outcome: report.BudgetExhausted, sentMs: 10, doneMs: 17},
		{actor: 2, outcome: report.BudgetExhausted, sentMs: 100, doneMs: 104},
		// Actor 3: served first; its flight is not a refused one.
		{actor: 3, outcome: report.Served, sentMs: 0, doneMs: 900},
		{actor: 3, outcome: report.BudgetExhausted, sentMs: 800, doneMs: 850},
	}
	f := analyseFlights([][]flightEvent{ev}, 0, 5*time.Second)
	if f.Flights != 4 || f.RefusedEarly != 2 || f.FastestFirstSeconds != 0.004 {
		t.Errorf("flights = %+v, want 4 refused flights, 2 early, fastest 4ms", f)
	}
	f = analyseFlights([][]flightEvent{ev[:2]}, 0, 5*time.Second)
	if f.Flights != 1 || f.RefusedEarly != 0 {
		t.Errorf("late joiner counted as unparked: %+v", f)
	}
}

// TestNothingReachedParkingFails: PR #221 answers the default (atespace)
// Host form with 404 invalid host; every other check would pass vacuously.
func TestNothingReachedParkingFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		realAnswer(w, 404, fmt.Sprintf(realInvalidHost, r.Host))
	}))
	t.Cleanup(srv.Close)
	r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 5, Actors: GeneratedActors(2)})
	if err != nil {
		t.Fatal(err)
	}
	c := checksByName(r)[report.CheckReachedParking]
	if c.Status != report.CheckFailed || !strings.Contains(c.Detail, "{actor}.actors.resources.substrate.ate.dev") {
		t.Errorf("reached_parking = %+v, want failed with the PR #221 host form", c)
	}
	if len(r.Failed()) == 0 {
		t.Error("a run that reached nothing passed")
	}
}

// TestAllClientTimeoutsIsNoAnswer: a router that answers nothing gives no
// verdict, not a pass.
func TestAllClientTimeoutsIsNoAnswer(t *testing.T) {
	srv := kindServer(t)
	r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 3, Actors: []string{"client-timeout"}, Timeout: 100 * time.Millisecond})
	var na *NoAnswerError
	if !errors.As(err, &na) || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v, want a NoAnswerError", err)
	}
	if r == nil || checksByName(r)[report.CheckReachedParking].Status != report.CheckFailed {
		t.Errorf("reached_parking did not fail: %+v", r)
	}
}

// Real statusz and metrics (PR #221 4a8f978b, main 86e138f6), exact bytes
// but for the elided fields.
const (
	realStatuszMain  = `{"build_tag":"dev","router_cluster_ip":"10.0.0.1","namespace":"ate-system","port_http":8080,"port_xds":18000,"port_extproc":50051,"status_port":4040,"args":[],"flags":{},"queries":[],"health":{},"templates":[]}` + "\n"
	realStatuszPR221 = `{"build_tag":"dev","status_port":4040,"flags":{"parking-enabled":"true","parking-max-parked":"2","parking-max-wait":"3s"},"parking":{"enabled":true,"active":0,"max_parked":2,"max_wait":"3s"}}` + "\n"
	realMetricsFresh = `# HELP target_info Target metadata
# TYPE target_info gauge
target_info{service_instance_id="r1",service_name="atenet-router",telemetry_sdk_language="go",telemetry_sdk_name="opentelemetry",telemetry_sdk_version="1.38.0"} 1
# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 23
`
	realMetricsAfter = realMetricsFresh + `# HELP atenet_router_parking_active number of requests currently parked in the router awaiting actor resume
# TYPE atenet_router_parking_active gauge
atenet_router_parking_active{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version=""} 0
# HELP atenet_router_parking_rejected_total number of requests shed because the router parking lot was full
# TYPE atenet_router_parking_rejected_total counter
atenet_router_parking_rejected_total{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version=""} %d
# HELP atenet_router_parking_wait_duration_seconds time a request spent parked in the router before being served, timing out, or failing
# TYPE atenet_router_parking_wait_duration_seconds histogram
atenet_router_parking_wait_duration_seconds_bucket{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version="",outcome="error",le="2.5"} 0
atenet_router_parking_wait_duration_seconds_bucket{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version="",outcome="error",le="5"} %d
atenet_router_parking_wait_duration_seconds_bucket{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version="",outcome="error",le="+Inf"} %d
atenet_router_parking_wait_duration_seconds_sum{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version="",outcome="error"} 6.003461689
atenet_router_parking_wait_duration_seconds_count{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version="",outcome="error"} %d
`
)

// pr221Router answers like PR #221 with a lot of 2 and max-wait 3s: shed
// at once for "shed-*" actors, budget_exhausted after the 3s budget (on
// the synctest bubble's clock) for the rest; its metrics appear only once
// used.
func pr221Router(t *testing.T, statusz string) Options {
	t.Helper()
	var mu sync.Mutex
	shed, be := 0, 0
	o := memTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8; escaping=underscores")
			mu.Lock()
			defer mu.Unlock()
			if shed+be == 0 {
				fmt.Fprint(w, realMetricsFresh)
				return
			}
			fmt.Fprintf(w, realMetricsAfter, shed, be, be, be)
			return
		case "/statusz":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, statusz)
			return
		}
		actor, _, _ := strings.Cut(r.Host, ".")
		if strings.HasPrefix(actor, "shed-") {
			mu.Lock()
			shed++
			mu.Unlock()
			realAnswer(w, 503, fmt.Sprintf(`actor %q unavailable: router at capacity`, actor))
			return
		}
		time.Sleep(3 * time.Second)
		mu.Lock()
		be++
		mu.Unlock()
		realAnswer(w, 503, fmt.Sprintf(realNoFreeWorkers, actor))
	}))
	o.MetricsURL, o.StatuszURL = "", ""
	return o
}

// TestRealMetricsAbsentUntilUsedAndErrorLabel: parking series absent before
// the run count from 0, the otel_scope labels are read, and PR #221's
// outcome="error" stands for a spent budget.
func TestRealMetricsAbsentUntilUsedAndErrorLabel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := pr221Router(t, realStatuszPR221)
		o.Requests, o.Actors, o.Seed = 10, []string{"shed-a", "fp-c"}, 3
		o.MetricsURL, o.HostTemplate = "http://router.test/metrics", PR221HostTemplate
		r, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		by := checksByName(r)
		if c := by[report.CheckRejectedMatchesShed]; c.Status != report.CheckOK || !strings.Contains(c.Detail, "absent before the run") {
			t.Errorf("rejected_matches_shed = %+v, want ok saying the series was absent before", c)
		}
		if c := by[report.CheckWaitMatchesBudgetExhausted]; c.Status != report.CheckOK || !strings.Contains(c.Detail, `outcome="error"`) {
			t.Errorf("wait_matches_budget_exhausted = %+v, want ok on the error label", c)
		}
		if r.Metrics.WaitBudgetLabel != "error" {
			t.Errorf("wait_budget_label = %q", r.Metrics.WaitBudgetLabel)
		}
		if c := by[report.CheckActiveDrains]; c.Status != report.CheckOK {
			t.Errorf("active_drains = %+v", c)
		}
	})
}

// TestMainMetricsHaveNoParkingSeries: main exports no parking series at
// all; its immediate no-free-workers answers were never parked.
func TestMainMetricsHaveNoParkingSeries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			fmt.Fprint(w, realMetricsFresh)
		case "/statusz":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, realStatuszMain)
		default:
			actor, _, _ := strings.Cut(r.Host, ".")
			realAnswer(w, 503, fmt.Sprintf(realNoFreeWorkers, actor))
		}
	}))
	t.Cleanup(srv.Close)
	var warnings []string
	r, err := Run(context.Background(), Options{
		Target: srv.URL, Requests: 6, Actors: GeneratedActors(2),
		MetricsURL: srv.URL + "/metrics", StatuszURL: srv.URL + "/statusz",
		Warn: func(w *Warning) { warnings = append(warnings, w.Error()) },
	})
	if err != nil {
		t.Fatalf("a statusz without a parking card stopped the run: %v", err)
	}
	if !r.Statusz.NoParkingCard || len(warnings) == 0 || !strings.Contains(warnings[0], "no parking card") {
		t.Errorf("no_parking_card = %v, warnings %q", r.Statusz.NoParkingCard, warnings)
	}
	if r.Load.BudgetSource != report.BudgetDefault {
		t.Errorf("budget source %q, want default", r.Load.BudgetSource)
	}
	var text strings.Builder
	if err := report.WriteText(&text, r, nil); err != nil || !strings.Contains(text.String(), "no parking card") {
		t.Errorf("text report does not say there is no parking card (%v):\n%s", err, text.String())
	}
	// main never parks: the checks about parking are not judged, and
	// reached_parking says parking is disabled (a finding: exit 3).
	by := checksByName(r)
	for _, name := range []string{report.CheckWaitMatchesBudgetExhausted, report.CheckParked} {
		if by[name].Status != report.CheckSkipped || !strings.Contains(by[name].Detail, "not judged") {
			t.Errorf("%s = %+v, want not judged", name, by[name])
		}
	}
	if c := by[report.CheckReachedParking]; c.Status != report.CheckFailed || !strings.Contains(c.Detail, "parking is disabled on the router: its statusz has no parking card") {
		t.Errorf("reached_parking = %+v, want failed: parking disabled", c)
	}
}

// TestBudgetFromStatusz: with no budget given, budget_bound judges by the
// router's own max_wait and says so; a given budget wins.
func TestBudgetFromStatusz(t *testing.T) { synctest.Test(t, testBudgetFromStatusz) }

func testBudgetFromStatusz(t *testing.T) {
	o := pr221Router(t, realStatuszPR221)
	o.Requests, o.Actors, o.StatuszURL = 4, []string{"fp-c"}, "http://router.test/statusz"
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Load.BudgetSource != report.BudgetStatusz || r.Load.BudgetSeconds != 3 || r.Load.TimeoutSeconds != 13 {
		t.Errorf("budget %gs from %q, timeout %gs; want 3s from statusz, timeout 13s", r.Load.BudgetSeconds, r.Load.BudgetSource, r.Load.TimeoutSeconds)
	}
	if c := checksByName(r)[report.CheckBudgetBound]; !strings.Contains(c.Detail, "from the router's statusz max_wait") {
		t.Errorf("budget_bound does not say where the budget came from: %+v", c)
	}
	o.Checks.Budget = 7 * time.Second
	r, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Load.BudgetSource != report.BudgetGiven || r.Load.BudgetSeconds != 7 {
		t.Errorf("budget %gs from %q, want the given 7s", r.Load.BudgetSeconds, r.Load.BudgetSource)
	}
}

func TestStatuszMaxWaitForms(t *testing.T) {
	for raw, want := range map[string]time.Duration{`"30s"`: 30 * time.Second, `"1m30s"`: 90 * time.Second, `5`: 5 * time.Second, `2.5`: 2500 * time.Millisecond, `"soon"`: 0, `-1`: 0, `1e300`: 0, `null`: 0} {
		p := &report.StatuszParking{MaxWait: []byte(raw)}
		got, ok := p.MaxWaitDuration()
		if got != want || ok != (want > 0) {
			t.Errorf("max_wait %s = %s, %v; want %s", raw, got, ok, want)
		}
	}
	if _, err := ParseStatusz(strings.NewReader(realStatuszMain)); !errors.Is(err, ErrNoParkingCard) {
		t.Errorf("main's statusz: %v, want ErrNoParkingCard", err)
	}
}

// TestHundredMillionActorsAreNamedOnDemand: --actors 100000000 --requests 5
// sends five requests without a slice of every name.
func TestHundredMillionActorsAreNamedOnDemand(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	for _, d := range []Distribution{{Kind: "uniform"}, {Kind: "hot", Param: 0.5}} {
		// Under the lock: the probe reads its answers with raw system
		// calls, which the race detector does not see as ordering the
		// handler's append before this read.
		mu.Lock()
		hosts = nil
		mu.Unlock()
		r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 5, ActorCount: 100_000_000, Distribution: d, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		seen := slices.Clone(hosts)
		mu.Unlock()
		if r.Load.Actors != 100_000_000 || r.Count(report.Served) != 5 || len(seen) != 5 {
			t.Fatalf("%s: actors %d, served %d", d, r.Load.Actors, r.Count(report.Served))
		}
		for _, h := range seen {
			if !strings.HasPrefix(h, "actor-") || len(strings.SplitN(h, ".", 2)[0]) != len("actor-")+9 {
				t.Errorf("%s: host %q, want a 9-digit generated name", d, h)
			}
		}
	}
	if n := (actorSet{named: []string{"x"}, generated: 100_000_000}).Name(100_000_000); n != "actor-100000000" {
		t.Errorf("last actor %q", n)
	}
}

// Issue 34, item 11: a parking card no router could show is refused as
// impossible, not judged on.
func TestImpossibleStatuszIsRefused(t *testing.T) {
	for _, card := range []string{
		`{"enabled":true,"active":0,"max_parked":1e308,"max_wait":"5s"}`,
		`{"enabled":true,"active":-1,"max_parked":1024,"max_wait":"5s"}`,
		`{"enabled":true,"active":0.5,"max_parked":1024,"max_wait":"5s"}`,
		`{"enabled":true,"active":2000,"max_parked":1024,"max_wait":"5s"}`,
		`{"enabled":true,"active":0,"max_parked":1024,"max_wait":"soon"}`,
	} {
		_, err := ParseStatusz(strings.NewReader(`{"parking":` + card + `}`))
		if err == nil || !strings.Contains(err.Error(), "impossible parking card") {
			t.Errorf("%s: %v, want refused as impossible", card, err)
		}
	}
	for _, card := range []string{
		`{"enabled":true,"active":3,"max_parked":1024,"max_wait":"5s"}`,
		`{"enabled":false,"active":0,"max_parked":0,"max_wait":"3s"}`,
		`{"enabled":false,"active":0,"max_parked":2048,"max_wait":"2s"}`,
	} {
		if _, err := ParseStatusz(strings.NewReader(`{"parking":` + card + `}`)); err != nil {
			t.Errorf("%s: %v", card, err)
		}
	}
}

// TestFlightsOnlyOfRefusedActorsCountTheSame: the analysis looks only at
// actors that were refused. Against every actor's requests grouped by
// overlap (flightsOfAll: the same grouping, of every actor), random runs
// mixing served, refused and shed answers of many actors, dealt to
// shards, give the same flights, early refusals and fastest first
// refusal.
func TestFlightsOnlyOfRefusedActorsCountTheSame(t *testing.T) {
	outcomes := []report.Outcome{report.Served, report.Served, report.Served, report.BudgetExhausted, report.Unavailable, report.Shed}
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 300 {
		var ev []flightEvent
		for k := range rng.IntN(60) {
			// Distinct send times: the order of two requests of one actor
			// sent in the same millisecond is the sort's, in either.
			sent := int32(rng.IntN(10000))*64 + int32(k)
			ev = append(ev, flightEvent{actor: uint32(rng.IntN(8)), outcome: outcomes[rng.IntN(len(outcomes))],
				sentMs: sent, doneMs: sent + int32(rng.IntN(6000)*rng.IntN(64))})
		}
		want := flightsOfAll(slices.Clone(ev), 5*time.Second)
		if got := analyseFlights(split(slices.Clone(ev)), 0, 5*time.Second); *got != *want {
			t.Fatalf("run %d: flights = %+v, want %+v\nevents %+v", run, got, want, ev)
		}
	}
	if f := analyseFlights([][]flightEvent{{{actor: 1, outcome: report.Served, doneMs: 10}}}, 3, time.Second); f.Flights != 0 || f.Unrecorded != 3 {
		t.Errorf("a run without a refusal: %+v, want no flight and 3 unrecorded", f)
	}
}

// flightsOfAll groups every actor's served and refused requests by
// overlap, refused or not, and counts the refused flights.
func flightsOfAll(events []flightEvent, budget time.Duration) *report.FlightStats {
	fs := &report.FlightStats{}
	countFlights(fs, slices.DeleteFunc(events, func(e flightEvent) bool { return e.outcome != report.Served && !refusal(e.outcome) }), budget)
	return fs
}

// split deals events to three shards, as a run's shards record them.
func split(events []flightEvent) [][]flightEvent {
	shards := make([][]flightEvent, 3)
	for i, e := range events {
		shards[i%3] = append(shards[i%3], e)
	}
	return shards
}
