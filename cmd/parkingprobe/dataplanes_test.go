package parkingprobe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/probe/report"
)

// Issue 41's "done when": parking-probe against stand-ins of the
// dataplanes after 6210ad86, written here from router-dataplanes.md (the
// real systems are the reference, not sim router: these share no code
// with it). Each stand-in counts its own answers; the probe's served,
// budget_exhausted and shed counts must equal them, the exit code must be
// 0 where the dataplane behaved as documented and 3 where parking never
// engaged, and no running actor may be counted shed.

// standIn is one Substrate dataplane: an actor table (running ones
// answer, suspended ones get no worker, or one after freeAt), a parking
// lot, and one resume flight per actor. It runs on the bubble's clock.
type standIn struct {
	kind standInKind
	// lot is the parking lot (the router's --parked-request-max,
	// agentgateway's requestParking.max).
	lot      int
	budget   time.Duration
	attempt  time.Duration // one ResumeActor call
	atespace string
	running  map[string]bool
	// freeAt: a suspended actor whose worker comes free that long after
	// its flight starts.
	freeAt map[string]time.Duration
	// firstAttempt, when set, is how long a suspended actor's first
	// ResumeActor call takes where it is not attempt: requests released
	// together then reach the park transition actor group by actor group,
	// so which group takes the lot's slots is the scenario's, not the
	// scheduler's.
	firstAttempt map[string]time.Duration
	// retriesExhausted: agentgateway retries ResourceExhausted (later
	// main); at 5f96588b7 it does not, and a full pool is a 429.
	retriesExhausted bool
	// hostAddressing: the actor in the Host (agentgateway 5f96588b7), not
	// in ate-target-actor.
	hostAddressing bool

	mu      sync.Mutex
	flights map[string]*standFlight
	cached  map[string]time.Time // agentgateway: actor → cache entry expiry
	used    int                  // lot slots or permits held
	// The stand-in's own count of its answers.
	served, budgetSpent, shed, rateLimited, other int
	shedRunning                                   int
	// Its metrics: rejections, and the wait samples of parks that ended
	// with the budget spent (the router's only).
	rejected      int
	waitN         int
	waitSum       float64
	waitServedN   int
	waitServedSum float64
	routeN        int
	routeSum      float64
	peakN         int
}

type standInKind int

const (
	after1229 standInKind = iota
	agentgateway
)

// standFlight is one actor's resume flight: parked closes at its first
// retryable answer (the park transition, #1229), done when it ends.
type standFlight struct {
	parked, done chan struct{}
	resolved     bool // a worker was found
	spent        bool // the budget ran out
	exhausted    bool // agentgateway 5f96588b7: ResourceExhausted, not retried
}

func (s *standIn) actorOf(r *http.Request) (string, bool) {
	if s.hostAddressing {
		name, rest, ok := strings.Cut(r.Host, ".")
		ns, suffix, _ := strings.Cut(rest, ".")
		if !ok || suffix != "actors.resources.substrate.ate.dev" || name == "" || ns == "" {
			return "", false
		}
		return ns + "/" + name, true
	}
	ns, name, ok := strings.Cut(r.Header.Get("ate-target-actor"), "/")
	if !ok || ns == "" || name == "" || strings.ContainsAny(name, "/ ") {
		return "", false
	}
	return ns + "/" + name, true
}

// who names the actor as the dataplane's bodies do.
func (s *standIn) who(ref string) string {
	if s.kind == agentgateway {
		_, name, _ := strings.Cut(ref, "/")
		return "actor " + strconv.Quote(name)
	}
	return "actor " + ref
}

func (s *standIn) answer(w http.ResponseWriter, status int, body string, count *int) {
	s.mu.Lock()
	*count++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.routeN++
		s.routeSum += time.Since(start).Seconds()
		s.mu.Unlock()
	}()
	ref, ok := s.actorOf(r)
	if !ok {
		body := `invalid "ate-target-actor": expected <atespace>/<actor>`
		if s.hostAddressing {
			body = fmt.Sprintf("invalid host %q: expected <actor>.<atespace>.actors.resources.substrate.ate.dev", r.Host)
		}
		s.answer(w, http.StatusNotFound, body, &s.other)
		return
	}
	if s.kind == agentgateway {
		s.serveAgentgateway(w, ref)
		return
	}
	s.serveAfter1229(w, ref)
}

// serveAfter1229: the flight's first attempt holds no slot; a request
// takes one at the park transition, or is shed then; a resume is never cut
// by the budget (#675).
func (s *standIn) serveAfter1229(w http.ResponseWriter, ref string) {
	f := s.join(ref)
	var slot bool
	var entered time.Time
	select {
	case <-f.done:
	case <-f.parked:
		select {
		case <-f.done:
		default:
			s.mu.Lock()
			if s.used >= s.lot {
				s.rejected++
				if s.running[ref] {
					s.shedRunning++
				}
				s.mu.Unlock()
				s.answer(w, http.StatusServiceUnavailable, "actor "+strconv.Quote(ref)+" unavailable: router at capacity", &s.shed)
				return
			}
			s.used++
			s.peak()
			s.mu.Unlock()
			slot, entered = true, time.Now()
			<-f.done
		}
	}
	if slot {
		s.mu.Lock()
		s.used--
		d := time.Since(entered).Seconds()
		if f.spent {
			s.waitN++
			s.waitSum += d
		} else {
			s.waitServedN++
			s.waitServedSum += d
		}
		s.mu.Unlock()
	}
	if f.resolved {
		s.answer(w, http.StatusOK, "served", &s.served)
		return
	}
	s.answer(w, http.StatusServiceUnavailable, s.who(ref)+" unavailable: no worker has room for the actor", &s.budgetSpent)
}

// serveAgentgateway: a request answered from the actor cache takes no
// permit; every other takes one at once or is refused at once; a spent
// budget is a 504.
func (s *standIn) serveAgentgateway(w http.ResponseWriter, ref string) {
	s.mu.Lock()
	if exp, ok := s.cached[ref]; ok && time.Now().Before(exp) && s.running[ref] {
		s.mu.Unlock()
		s.answer(w, http.StatusOK, "served", &s.served)
		return
	}
	if s.used >= s.lot {
		if s.running[ref] {
			s.shedRunning++
		}
		s.mu.Unlock()
		s.answer(w, http.StatusServiceUnavailable, s.who(ref)+" request parking capacity exhausted", &s.shed)
		return
	}
	s.used++
	s.peak()
	s.mu.Unlock()
	f := s.join(ref)
	<-f.done
	s.mu.Lock()
	s.used--
	if f.resolved {
		s.cached[ref] = time.Now().Add(5 * time.Second)
	}
	s.mu.Unlock()
	switch {
	case f.resolved:
		s.answer(w, http.StatusOK, "served", &s.served)
	case f.exhausted:
		s.answer(w, http.StatusTooManyRequests, s.who(ref)+" rate limited", &s.rateLimited)
	default:
		s.answer(w, http.StatusGatewayTimeout, s.who(ref)+" request timed out", &s.budgetSpent)
	}
}

func (s *standIn) peak() { s.peakN = max(s.peakN, s.used) }

// join starts or joins ref's flight.
func (s *standIn) join(ref string) *standFlight {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.flights[ref]; ok {
		return f
	}
	f := &standFlight{parked: make(chan struct{}), done: make(chan struct{})}
	s.flights[ref] = f
	go s.fly(ref, f)
	return f
}

// fly calls ResumeActor until a worker is found or the budget ends:
// backoff 100ms ×1.1, no jitter. The router after #675 lets an attempt
// outlive the budget; agentgateway cuts it at the budget.
func (s *standIn) fly(ref string, f *standFlight) {
	defer func() {
		s.mu.Lock()
		delete(s.flights, ref)
		s.mu.Unlock()
		close(f.done)
	}()
	start := time.Now()
	deadline := start.Add(s.budget)
	delay := 100 * time.Millisecond
	for first := true; ; first = false {
		call := s.attempt
		if d, ok := s.firstAttempt[ref]; ok && first {
			call = d
		}
		if s.kind == agentgateway && time.Until(deadline) < call {
			time.Sleep(time.Until(deadline))
			f.spent = true
			return
		}
		time.Sleep(call)
		if s.running[ref] || (s.freeAt[ref] > 0 && time.Since(start) >= s.freeAt[ref]) {
			f.resolved = true
			return
		}
		// ResourceExhausted: the pool is full.
		if s.kind == agentgateway && !s.retriesExhausted {
			f.exhausted = true
			return
		}
		if first {
			close(f.parked)
		}
		left := time.Until(deadline)
		if left <= 0 {
			f.spent = true
			return
		}
		time.Sleep(min(delay, left))
		delay = delay * 11 / 10
		if !time.Now().Before(deadline) {
			f.spent = true
			return
		}
	}
}

// metrics is the stand-in's exposition: the router's OpenTelemetry series
// (only once used, as every real router since PR #221), or agentgateway's
// own families.
func (s *standIn) metrics(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	if s.kind == agentgateway {
		fmt.Fprintf(w, "# TYPE agentgateway_substrate_request_parking_active gauge\nagentgateway_substrate_request_parking_active %d\n", s.used)
		fmt.Fprintf(w, "# TYPE agentgateway_atenet_router_route_duration_seconds histogram\n"+
			"agentgateway_atenet_router_route_duration_seconds_bucket{ate_router_outcome=\"ok\",ate_router_resume=\"none\",le=\"+Inf\"} %d\n"+
			"agentgateway_atenet_router_route_duration_seconds_sum{ate_router_outcome=\"ok\",ate_router_resume=\"none\"} %g\n"+
			"agentgateway_atenet_router_route_duration_seconds_count{ate_router_outcome=\"ok\",ate_router_resume=\"none\"} %d\n", s.routeN, s.routeSum, s.routeN)
		return
	}
	const scope = `otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version=""`
	if s.peakN > 0 {
		fmt.Fprintf(w, "# TYPE atenet_router_parking_active gauge\natenet_router_parking_active{%s} %d\n", scope, s.used)
	}
	if s.rejected > 0 {
		fmt.Fprintf(w, "# TYPE atenet_router_parking_rejected_total counter\natenet_router_parking_rejected_total{%s} %d\n", scope, s.rejected)
	}
	if s.waitN+s.waitServedN > 0 {
		fmt.Fprintln(w, "# TYPE atenet_router_parking_wait_duration_seconds histogram")
		for _, o := range []struct {
			label string
			n     int
			sum   float64
		}{{"budget_exhausted", s.waitN, s.waitSum}, {"served", s.waitServedN, s.waitServedSum}} {
			if o.n == 0 {
				continue
			}
			l := scope + `,outcome="` + o.label + `"`
			fmt.Fprintf(w, "atenet_router_parking_wait_duration_seconds_bucket{%s,le=\"+Inf\"} %d\natenet_router_parking_wait_duration_seconds_sum{%s} %g\natenet_router_parking_wait_duration_seconds_count{%s} %d\n",
				l, o.n, l, o.sum, l, o.n)
		}
	}
}

// statusz is the router's card (agentgateway has none).
func (s *standIn) statusz(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"build_tag": "dev", "router_cluster_ip": "Offline Mode (No Cluster IP)", "mode": "ingress",
		"parking": map[string]any{"enabled": true, "active": s.used, "max_parked": s.lot, "max_wait": s.budget.String()},
	})
}

// serve puts the stand-in on the network: the dataplane, its metrics and
// (the router's) statusz.
func (s *standIn) serve(t *testing.T, n *memnet.Network) {
	t.Helper()
	s.flights, s.cached = map[string]*standFlight{}, map[string]time.Time{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", s.metrics)
	if s.kind == after1229 {
		mux.HandleFunc("GET /statusz", s.statusz)
	}
	for addr, h := range map[string]http.Handler{"dataplane.test:80": s, "admin.test:80": mux} {
		l, err := n.Listen(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(l)
		t.Cleanup(func() { srv.Close() })
	}
}

// standInActors names the scenario's actors: five
// running, twenty suspended.
func standInActors(atespace string) (running map[string]bool, freeAt map[string]time.Duration) {
	running, freeAt = map[string]bool{}, map[string]time.Duration{}
	for i := 1; i <= 25; i++ {
		ref := fmt.Sprintf("%s/actor-%04d", atespace, i)
		switch {
		case i <= 5:
			running[ref] = true
		case i%5 == 0:
			// A worker comes free within the budget: parked, then served.
			freeAt[ref] = 800 * time.Millisecond
		}
	}
	return running, freeAt
}

// burstOf100 is the scenario's load: 100 requests released together over
// the 25 actors.
var burstOf100 = []string{"--mode", "burst", "--requests", "100"}

// routerAfter1229 is the router after #1229 with a lot of 2 over the
// scenario's actors, in atespace demo-ns. The actors whose worker comes
// free park first (their first ResumeActor call ends at 20ms), take the
// two slots, are served and give them back by 140ms; the others' first
// call ends at 200ms, so two of their requests take the slots until the
// budget ends. The rest are shed at their park transition. Every count
// is then the scenario's whatever order the requests were scheduled in.
func routerAfter1229(budget time.Duration) *standIn {
	running, freeAt := standInActors("demo-ns")
	for ref := range freeAt {
		freeAt[ref] = 100 * time.Millisecond
	}
	firstAttempt := map[string]time.Duration{}
	for i := 1; i <= 25; i++ {
		if ref := fmt.Sprintf("demo-ns/actor-%04d", i); !running[ref] && freeAt[ref] == 0 {
			firstAttempt[ref] = 200 * time.Millisecond
		}
	}
	return &standIn{kind: after1229, lot: 2, budget: budget, attempt: 20 * time.Millisecond,
		atespace: "demo-ns", running: running, freeAt: freeAt, firstAttempt: firstAttempt}
}

// probeStandIn runs parking-probe against the stand-in on n with the load
// given and returns its report and exit code.
func probeStandIn(t *testing.T, n *memnet.Network, load []string, args ...string) (*report.Report, int, string) {
	t.Helper()
	f, out, errOut := probeTestFactory(t, context.Background())
	f.Net = n
	code := root.Run(f, append(append([]string{"parking-probe", "--target", "http://dataplane.test", "--actors", "25",
		"--seed", "7", "-o", "json"}, load...), args...))
	r, err := report.ReadReport(strings.NewReader(out.String()))
	if err != nil {
		t.Fatalf("exit %d, no report: %v\nstdout %s\nstderr %s", code, err, out, errOut)
	}
	return r, code, errOut.String()
}

// sameCounts: the probe counted what the stand-in answered.
func sameCounts(t *testing.T, r *report.Report, s *standIn) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range []struct {
		o    report.Outcome
		want int
	}{{report.Served, s.served}, {report.BudgetExhausted, s.budgetSpent}, {report.Shed, s.shed}, {report.RateLimited, s.rateLimited}} {
		if got := r.Count(c.o); got != int64(c.want) {
			t.Errorf("probe counted %d %s, the stand-in answered %d", got, c.o, c.want)
		}
	}
	if total := s.served + s.budgetSpent + s.shed + s.rateLimited + s.other; int64(total) != r.Requests {
		t.Errorf("the stand-in answered %d, the probe sent %d", total, r.Requests)
	}
	if s.shedRunning != 0 {
		t.Errorf("the stand-in shed %d requests to running actors", s.shedRunning)
	}
}

func failedChecks(r *report.Report) string {
	var b strings.Builder
	for _, c := range r.Checks {
		if c.Status == report.CheckFailed {
			fmt.Fprintf(&b, "\n  %s: %s", c.Name, c.Detail)
		}
	}
	return b.String()
}

// The router after #1229, addressed by ate-target-actor: a lot of 2,
// twenty suspended actors and five running ones, a burst of 100.
// Running actors are never shed (their first attempt resolves them, no
// slot); suspended ones park up to the lot and the rest are shed after
// one resume attempt; every check can be judged, and all pass.
func TestRouterAfter1229StandIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n memnet.Network
		s := routerAfter1229(2 * time.Second)
		s.serve(t, &n)
		r, code, errOut := probeStandIn(t, &n, burstOf100, "--addressing", "ate-target-actor", "--atespace", "demo-ns",
			"--metrics-url", "http://admin.test/metrics", "--statusz-url", "http://admin.test/statusz")
		if code != cmdutil.ExitOK {
			t.Errorf("exit %d, want 0: the router behaved as documented; failed:%s\nstderr %s", code, failedChecks(r), errOut)
		}
		sameCounts(t, r, s)
		if r.Count(report.Shed) == 0 || r.Count(report.BudgetExhausted) == 0 || r.Count(report.Served) == 0 {
			t.Errorf("want served, shed and budget_exhausted answers: %d, %d, %d", r.Count(report.Served), r.Count(report.Shed), r.Count(report.BudgetExhausted))
		}
		for _, name := range []string{report.CheckBudgetBound, report.CheckShedFast, report.CheckRejectedMatchesShed, report.CheckActiveDrains,
			report.CheckWaitMatchesBudgetExhausted, report.CheckParked, report.CheckReachedParking} {
			if c := checkOf(t, r, name); c.Status != report.CheckOK {
				t.Errorf("%s %s: %s, want it judged and passed", name, c.Status, c.Detail)
			}
		}
		if r.Load.Addressing != "header ate-target-actor: {atespace}/{actor} (form ate-target-actor)" {
			t.Errorf("load.addressing %q", r.Load.Addressing)
		}
	})
}

// agentgateway's own parking, later main (ate-target-actor, ResourceExhausted
// parked): a lot of 3; the running actors were resolved a moment before,
// so their requests are cache hits and take no permit. A spent budget is
// its 504, a full lot its 503 at once; it has no statusz and no
// rejection counter or wait histogram, which the report says, and its
// permit gauge drains.
func TestAgentgatewayStandIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n memnet.Network
		// No worker comes free for a suspended actor: the three permits
		// are taken at once by whichever requests arrive first, and each
		// holder's budget runs out, whatever order they were scheduled in.
		running, _ := standInActors("demo-ns")
		s := &standIn{kind: agentgateway, lot: 3, budget: 2 * time.Second, attempt: 30 * time.Millisecond,
			atespace: "demo-ns", running: running, retriesExhausted: true}
		s.serve(t, &n)
		warmCache(t, &n, s, running)
		r, code, errOut := probeStandIn(t, &n, burstOf100, "--addressing", "ate-target-actor", "--atespace", "demo-ns",
			"--metrics-url", "http://admin.test/metrics", "--budget", "2s")
		if code != cmdutil.ExitOK {
			t.Errorf("exit %d, want 0: agentgateway behaved as documented; failed:%s\nstderr %s", code, failedChecks(r), errOut)
		}
		sameCounts(t, r, s)
		if r.Count(report.Shed) == 0 || r.Count(report.BudgetExhausted) == 0 || r.Count(report.Served) == 0 {
			t.Errorf("want served, shed and budget_exhausted answers: %d, %d, %d", r.Count(report.Served), r.Count(report.Shed), r.Count(report.BudgetExhausted))
		}
		for _, c := range []struct{ name, status, detail string }{
			{report.CheckRejectedMatchesShed, report.CheckSkipped, "not judged: the dataplane (agentgateway) has no parking_rejected counter"},
			{report.CheckWaitMatchesBudgetExhausted, report.CheckSkipped, "not judged: the dataplane (agentgateway) has no parking_wait histogram"},
			{report.CheckActiveDrains, report.CheckOK, "agentgateway_substrate_request_parking_active back to 0"},
			{report.CheckReachedParking, report.CheckOK, "its /metrics has agentgateway's Substrate series"},
			{report.CheckParked, report.CheckOK, "capacity refusals came after at least half the park budget"},
			{report.CheckBudgetBound, report.CheckOK, "budget_exhausted answers within"},
		} {
			if got := checkOf(t, r, c.name); got.Status != c.status || !strings.Contains(got.Detail, c.detail) {
				t.Errorf("%s = %s %q, want %s with %q", c.name, got.Status, got.Detail, c.status, c.detail)
			}
		}
		if r.Dataplane() != report.DataplaneAgentgateway {
			t.Errorf("dataplane %q", r.Dataplane())
		}
	})
}

// warmCache sends one request to each running actor, as traffic before
// the run would: agentgateway caches each for 5s.
func warmCache(t *testing.T, n *memnet.Network, s *standIn, running map[string]bool) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DialContext: n.DialContext}}
	defer c.CloseIdleConnections()
	for ref := range running {
		req, _ := http.NewRequest(http.MethodGet, "http://dataplane.test/", nil)
		req.Header.Set("ate-target-actor", ref)
		if s.hostAddressing {
			ns, name, _ := strings.Cut(ref, "/")
			req.Host = name + "." + ns + ".actors.resources.substrate.ate.dev"
		}
		resp, err := c.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("warming %s: %v %v", ref, resp, err)
		}
		resp.Body.Close()
	}
	s.mu.Lock()
	s.served = 0
	s.routeN, s.routeSum = 0, 0
	s.mu.Unlock()
}

// agentgateway at 5f96588b7 against ateapi since substrate #908: the full
// pool is ResourceExhausted, which it does not retry: every refusal is a
// 429 at once, parking never engages, and the run exits 3 saying so. The
// Host carries the actor (its form before #3409), and it has no parking
// metric at all: its bodies identify it. The running actors were
// resolved a moment before (cache hits).
func TestAgentgatewayParkingNeverEngages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n memnet.Network
		running, freeAt := standInActors("demo-ns")
		s := &standIn{kind: agentgateway, lot: 3, budget: 2 * time.Second, attempt: 30 * time.Millisecond,
			atespace: "demo-ns", running: running, freeAt: freeAt, hostAddressing: true}
		s.serve(t, &n)
		warmCache(t, &n, s, running)
		// 50 a second: each lookup holds its permit for one ResumeActor
		// call, so the lot of 3 is never the limit.
		r, code, errOut := probeStandIn(t, &n, []string{"--mode", "open", "--rate", "50", "--duration", "2s"},
			"--addressing", "atespace", "--atespace", "demo-ns", "--budget", "2s")
		if code != cmdutil.ExitChecksFailed {
			t.Errorf("exit %d, want 3: parking never engaged\nstderr %s", code, errOut)
		}
		sameCounts(t, r, s)
		if r.Count(report.RateLimited) == 0 {
			t.Fatalf("no rate_limited answers: %v", r.Outcomes)
		}
		if c := checkOf(t, r, report.CheckParked); c.Status != report.CheckFailed || !strings.Contains(c.Detail, "the dataplane answered 429 at once: parking did not engage") {
			t.Errorf("parked = %s %q, want it failed saying parking did not engage", c.Status, c.Detail)
		}
		if c := checkOf(t, r, report.CheckReachedParking); c.Status != report.CheckOK {
			t.Errorf("reached_parking %s %q: the bodies are agentgateway's", c.Status, c.Detail)
		}
	})
}

// A --timeout no longer than the known park budget is refused before the
// run (exit 2), whether the budget was given or read from statusz; an
// expectation on client_timeout says it is meant.
func TestShortTimeoutIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n memnet.Network
		s := routerAfter1229(3 * time.Second)
		s.serve(t, &n)
		for _, c := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"--budget", "3s"}, cmdutil.ExitUsage, "--timeout 1s is not longer than the park budget 3s (as given)"},
			{[]string{"--statusz-url", "http://admin.test/statusz"}, cmdutil.ExitUsage, "--timeout 1s is not longer than the park budget 3s (the router's statusz max_wait)"},
			// Meant: the run goes ahead, and the parked request ends as
			// the probe's own timeout (no HTTP answer at all: exit 1).
			{[]string{"--budget", "3s", "--expect", "client_timeout>0"}, cmdutil.ExitFailure, "no answer within the 1s --timeout"},
		} {
			f, out, errOut := probeTestFactory(t, context.Background())
			f.Net = &n
			code := root.Run(f, append([]string{"parking-probe", "--target", "http://dataplane.test", "--addressing", "ate-target-actor",
				"--atespace", "demo-ns", "--actor", "actor-0006", "--requests", "1", "--timeout", "1s"}, c.args...))
			if code != c.code || !strings.Contains(errOut.String(), c.want) {
				t.Errorf("%v: exit %d, stderr %q; want %d and %q\nstdout %s", c.args, code, errOut, c.code, c.want, out)
			}
			if c.code == cmdutil.ExitUsage {
				s.mu.Lock()
				if answered := s.served + s.budgetSpent + s.shed + s.other; answered != 0 {
					t.Errorf("%v: %d requests reached the dataplane before the refusal", c.args, answered)
				}
				s.mu.Unlock()
			}
		}
		// The request the probe gave up on is still parked: let the
		// stand-in's budget end it, on the bubble's clock.
		time.Sleep(s.budget)
	})
}

// --addressing is exclusive with the templates, and unknown forms are
// refused naming the known ones.
func TestAddressingFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addressing", "ate-target-actor", "--host-template", "pr221"}, "--addressing and --host-template are exclusive"},
		{[]string{"--addressing", "ate-target-actor", "--url-template", "/{actor}"}, "--addressing and --url-template are exclusive"},
		{[]string{"--addressing", "envoy"}, `unknown --addressing "envoy": want pr221, atespace, x-ate-headers or ate-target-actor`},
		{[]string{"-H", "ate-target-actor: {atespace}/{actr}"}, `invalid --header Ate-Target-Actor value "{atespace}/{actr}": unknown placeholder {actr}`},
	} {
		f, _, errOut := probeTestFactory(t, context.Background())
		code := root.Run(f, append([]string{"parking-probe", "--target", "http://127.0.0.1:1"}, c.args...))
		if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
