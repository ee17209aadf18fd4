package probe

import (
	"github.com/shakenfist/shakectl/internal/rawserver"
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// kindAnswers are answers an httptest server gives, keyed by actor name, one
// per outcome, spelled as the router and Envoy spell them.
var kindAnswers = map[string]struct {
	status int
	header map[string]string
	body   string
}{
	"served":            {200, nil, "hello"},
	"shed":              {503, nil, `actor "default/shed" unavailable: router at capacity`},
	"budget-exhausted":  {503, nil, `actor default/budget-exhausted unavailable: no free workers available`},
	"unavailable":       {503, nil, `actor default/unavailable unavailable`},
	"not-found":         {404, nil, `actor default/not-found not found`},
	"deadline-exceeded": {504, nil, `actor default/deadline-exceeded request timed out`},
	"unauthenticated":   {401, nil, `actor default/unauthenticated authentication required`},
	"permission-denied": {403, nil, `actor default/permission-denied access denied`},
	"resume-error":      {500, nil, `error resuming actor default/resume-error`},
	"envoy-overflow":    {503, map[string]string{"x-envoy-overloaded": "true"}, `upstream connect error or disconnect/reset before headers. reset reason: overflow`},
	"proxy-error":       {503, map[string]string{"server": "envoy"}, `no healthy upstream`},
	"other":             {418, nil, `I'm a teapot`},
	// The real router's (PR #221 4a8f978b) and Envoy's own answers.
	"rate-limited":   {429, nil, `actor "rate-limited" rate limited`},
	"routing-failed": {500, nil, `actor "routing-failed" routing failed`},
	"ext-proc-error": {500, map[string]string{"server": "envoy"}, ``},
}

// kindServer serves kindHandler on loopback.
func kindServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(kindHandler)
	t.Cleanup(srv.Close)
	return srv
}

// kindHandler answers by the actor in the Host header: the fixed answers
// above, "client-timeout" never answers (until the request is cancelled),
// and "transport-error" drops the connection.
var kindHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	actor, _, _ := strings.Cut(r.Host, ".")
	switch actor {
	case "client-timeout":
		<-r.Context().Done()
		return
	case "transport-error":
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
		return
	}
	a, ok := kindAnswers[actor]
	if !ok {
		http.Error(w, "unknown actor "+actor, 400)
		return
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(a.status)
	fmt.Fprint(w, a.body)
})

func TestRunClassifiesEveryKindOfAnswer(t *testing.T) {
	eachSenderInBubble(t, testRunClassifiesEveryKindOfAnswer)
}

func testRunClassifiesEveryKindOfAnswer(t *testing.T, kind string) {
	target, dial := memDialTarget(t, kindHandler)
	var actors []string
	for a := range kindAnswers {
		actors = append(actors, a)
	}
	sort.Strings(actors)
	actors = append(actors, "transport-error")
	// A budget of an hour: every capacity refusal comes well inside half
	// of it, so both refusals are unavailable (refused at once); when one
	// comes after the budget is the business of the synctest tests and
	// the recorded answers (TestRecordedRouterAnswers).
	o := Options{Transport: kind, Target: target, Dial: dial, Mode: Burst, Requests: 150, Actors: actors, Seed: 7, Checks: report.CheckConfig{Budget: time.Hour}}
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The same picker says which actor each request went to.
	p := newPicker(len(actors), Distribution{Kind: "uniform"}, 7)
	want := map[string]int64{}
	for i := range o.Requests {
		name := strings.ReplaceAll(actors[p.index(uint64(i))], "-", "_")
		if name == report.BudgetExhausted.String() {
			name = report.Unavailable.String()
		}
		want[name]++
	}
	for _, oc := range report.AllOutcomes() {
		if oc == report.ClientTimeout || oc == report.BudgetExhausted {
			continue
		}
		if got := r.Count(oc); got != want[oc.String()] {
			t.Errorf("%s: %d answers, want %d", oc, got, want[oc.String()])
		}
		if want[oc.String()] == 0 {
			t.Errorf("no request went to %s: pick another seed", oc)
		}
	}
	if r.Requests != 150 {
		t.Errorf("requests = %d, want 150", r.Requests)
	}
	if d := r.Stats(report.TransportError).Details; d["EOF"] != r.Count(report.TransportError) {
		t.Errorf("transport_error details %v", d)
	}
	if d := r.Stats(report.Other).Details; d["HTTP 418 I'm a teapot"] != r.Count(report.Other) {
		t.Errorf("other details %v", d)
	}
	byName := checksByName(r)
	if c := byName[report.CheckNoEnvoyOverflow]; c.Status != report.CheckFailed {
		t.Errorf("no_envoy_overflow = %+v, want failed", c)
	}
	if c := byName[report.CheckAllAccounted]; c.Status != report.CheckOK {
		t.Errorf("all_accounted = %+v", c)
	}
}

// TestClientTimeout: an answer that never comes is the probe's own
// client_timeout, after --timeout.
func TestClientTimeout(t *testing.T) { eachSenderInBubble(t, testClientTimeout) }

func testClientTimeout(t *testing.T, kind string) {
	target, dial := memDialTarget(t, kindHandler)
	// All-timeout runs are a NoAnswerError (TestAllClientTimeoutsIsNoAnswer);
	// a served actor beside it keeps this one a report.
	r, err := Run(context.Background(), Options{Transport: kind, Target: target, Dial: dial, Mode: Burst, Requests: 12, Actors: []string{"client-timeout", "served"}, Seed: 2, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Count(report.ClientTimeout) == 0 || r.Count(report.ClientTimeout)+r.Count(report.Served) != 12 {
		t.Fatalf("outcomes %+v", r.Outcomes)
	}
	// On the bubble's clock a timeout is the 200 ms exactly (the
	// histogram's own precision aside).
	if l := r.Stats(report.ClientTimeout).Latency; l.P50 < 0.2 || l.Max > 0.21 {
		t.Errorf("client_timeout latency %+v, want the 200ms timeout", l)
	}
}

func checksByName(r *report.Report) map[string]report.Check {
	m := map[string]report.Check{}
	for _, c := range r.Checks {
		m[c.Name] = c
	}
	return m
}

// TestBurstIsReleasedTogether: the server holds every answer until all N
// requests are in flight at once, which a loop or a worker pool never
// achieves.
func TestBurstIsReleasedTogether(t *testing.T) { eachSenderInBubble(t, testBurstIsReleasedTogether) }

func testBurstIsReleasedTogether(t *testing.T, kind string) {
	const n = 60
	var inFlight atomic.Int64
	all := make(chan struct{})
	var once sync.Once
	target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inFlight.Add(1) == n {
			once.Do(func() { close(all) })
		}
		select {
		case <-all:
			fmt.Fprint(w, "ok")
		case <-time.After(5 * time.Second):
			http.Error(w, "not all together", 500)
		}
	}))
	r, err := Run(context.Background(), Options{Transport: kind, Target: target, Dial: dial, Mode: Burst, Requests: n, Actors: GeneratedActors(5)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Count(report.Served) != n {
		t.Fatalf("served %d of %d: %+v", r.Count(report.Served), n, r.Outcomes)
	}
	if r.InFlightPeak != n {
		t.Errorf("in-flight peak %d, want %d", r.InFlightPeak, n)
	}
	if len(r.Series) == 0 || r.Series[0].Sent != n {
		t.Errorf("series %+v: want all %d sent in second 0", r.Series, n)
	}
}

func TestClosedModeHoldsConcurrency(t *testing.T) {
	eachSenderInBubble(t, testClosedModeHoldsConcurrency)
}

func testClosedModeHoldsConcurrency(t *testing.T, kind string) {
	var cur, peak atomic.Int64
	target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		cur.Add(-1)
		fmt.Fprint(w, "ok")
	}))
	r, err := Run(context.Background(), Options{Transport: kind, Target: target, Dial: dial, Mode: Closed, Concurrency: 4, Duration: 400 * time.Millisecond, Actors: GeneratedActors(3)})
	if err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 4 {
		t.Errorf("the server saw at most %d requests at once, want 4", peak.Load())
	}
	// On the bubble's clock each worker sends one request after another
	// for the 400 ms, 20 ms each: a worker that waited between requests,
	// or stopped early, sends fewer.
	if r.Requests < 4*400/20 || r.Count(report.Served) != r.Requests {
		t.Errorf("%d requests, %d served; want at least %d, all served", r.Requests, r.Count(report.Served), 4*400/20)
	}
	if r.InFlightPeak > 4 {
		t.Errorf("probe's in-flight peak %d > 4 workers", r.InFlightPeak)
	}
	if r.DurationSeconds < 0.4 || r.DurationSeconds > 0.45 {
		t.Errorf("ran %.2fs for a 400ms duration", r.DurationSeconds)
	}
}

// TestOpenModeMeasuresFromSchedule: a server that answers one request at a
// time, slower than the schedule, makes a queue; open mode keeps sending on
// schedule and charges the queueing to latency (no coordinated omission).
//
// It runs on a synctest bubble's clock over in-memory connections, so the
// machine's speed changes nothing; the bounds follow from the requests
// actually sent, and they separate open
// from held-back sending by a wide margin (a probe waiting for answers
// would send 10 in the 0.5 s, one per 50 ms of service).
func TestOpenModeMeasuresFromSchedule(t *testing.T) {
	eachSenderInBubble(t, testOpenModeMeasuresFromSchedule)
}

func testOpenModeMeasuresFromSchedule(t *testing.T, kind string) {
	const service = 50 * time.Millisecond
	// A one-slot channel, not a mutex: a goroutine waiting on a channel
	// is durably blocked, so the bubble's clock moves on.
	serial := make(chan struct{}, 1)
	target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serial <- struct{}{}
		time.Sleep(service) // the server's own serial service time
		<-serial
		fmt.Fprint(w, "ok")
	}))
	const duration = 500 * time.Millisecond
	r, err := Run(context.Background(), Options{Transport: kind, Target: target, Dial: dial, Mode: Open, Rate: 100, Duration: duration, Actors: GeneratedActors(3)})
	if err != nil {
		t.Fatal(err)
	}
	n := r.Requests
	if n > 50 || r.Count(report.Served) != n {
		t.Fatalf("%d requests, %d served; want every one served, at most 50 (100/s for 0.5s)", n, r.Count(report.Served))
	}
	if n < 25 {
		t.Fatalf("%d requests sent in 0.5s at 100/s: the probe held sends back for answers", n)
	}
	// n answers take n×50ms of serial service, all scheduled within 0.5s:
	// the last answer comes at least n×50ms − 0.5s after its scheduled
	// time. A closed loop would report ≈ 50ms.
	queued := (time.Duration(n)*service - duration).Seconds()
	if l := r.Stats(report.Served).Latency; l.Max < queued*0.9 {
		t.Errorf("max latency %.3fs, want ≥ %.3fs of queueing for %d serial answers", l.Max, queued, n)
	}
	if r.InFlightPeak < 10 {
		t.Errorf("in-flight peak %d: the probe held sends back", r.InFlightPeak)
	}
	if r.AchievedRate == nil || *r.AchievedRate < 40 || *r.AchievedRate > 120 {
		t.Errorf("achieved rate %v, want about 100 (%d sent)", r.AchievedRate, n)
	}
	if r.SendLateness == nil {
		t.Error("open mode reports no send lateness")
	}
	if r.Stats(report.Served).ServiceHistogram() == nil {
		t.Error("open mode keeps no service-time histogram")
	}
}

func TestInterruptCancelsInFlightAndCountsThem(t *testing.T) {
	eachSenderInBubble(t, testInterruptCancelsInFlightAndCountsThem)
}

func testInterruptCancelsInFlightAndCountsThem(t *testing.T, kind string) {
	var arrived atomic.Int64
	allIn := make(chan struct{})
	target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == 20 {
			close(allIn)
		}
		<-r.Context().Done()
	}))
	errStop := errors.New("stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-allIn
		cancel(errStop)
	}()
	r, err := Run(ctx, Options{Transport: kind, Target: target, Dial: dial, Mode: Burst, Requests: 20, Actors: GeneratedActors(2)})
	if !errors.Is(err, errStop) {
		t.Fatalf("err = %v, want the context's cause", err)
	}
	if r == nil || !r.Interrupted {
		t.Fatalf("report %+v, want a partial, interrupted one", r)
	}
	if r.Requests != 20 || r.Count(report.TransportError) != 20 || r.Stats(report.TransportError).Details["canceled"] != 20 {
		t.Fatalf("requests %d, outcomes %+v", r.Requests, r.Stats(report.TransportError))
	}
	if c := checksByName(r)[report.CheckAllAccounted]; c.Status != report.CheckOK {
		t.Errorf("all_accounted %+v", c)
	}
}

func TestInterruptBeforeStartAtSendsNothing(t *testing.T) {
	srv := kindServer(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	errStop := errors.New("stop")
	cancel(errStop)
	_, err := Run(ctx, Options{Target: srv.URL, Mode: Burst, Requests: 5, Actors: []string{"served"}, StartAt: time.Now().Add(time.Hour)})
	if !errors.Is(err, errStop) && !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// On loopback in real time: the target's going away is its listener's
// close and its connections' cut. Its server is its own, so it runs in
// parallel with the other real-socket tests.
func TestLostTargetHalfwayStillReports(t *testing.T) {
	t.Parallel()
	eachSender(t, testLostTargetHalfwayStillReports)
}

func testLostTargetHalfwayStillReports(t *testing.T, kind string) {
	var n atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 30 {
			// The target goes away: no more connections, and the open
			// ones are cut.
			srv.Listener.Close()
			go srv.CloseClientConnections()
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	r, err := Run(context.Background(), Options{Transport: kind, Target: srv.URL, Mode: Closed, Concurrency: 2, Duration: 300 * time.Millisecond, Actors: GeneratedActors(2)})
	if err != nil {
		t.Fatalf("a run that measured something returned %v", err)
	}
	if r.Count(report.Served) < 20 || r.Count(report.TransportError) == 0 {
		t.Fatalf("served %d, transport errors %d", r.Count(report.Served), r.Count(report.TransportError))
	}
	if c := checksByName(r)[report.CheckAllAccounted]; c.Status != report.CheckOK {
		t.Errorf("all_accounted %+v", c)
	}
}

func TestUnreachableTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r, err := Run(context.Background(), Options{Target: "http://" + addr, Requests: 5, Actors: GeneratedActors(1)})
	var te *TargetError
	if !errors.As(err, &te) || r != nil {
		t.Fatalf("Run = %v, %v; want a TargetError and no report", r, err)
	}
	if !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want one line saying connection refused", err)
	}
}

func TestTargetThatIsNotHTTP(t *testing.T) { eachSender(t, testTargetThatIsNotHTTP) }

func testTargetThatIsNotHTTP(t *testing.T, kind string) {
	ln := rawserver.Serve(t, func(c net.Conn) {
		buf := make([]byte, 1024)
		c.Read(buf)
		c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
	})
	r, err := Run(context.Background(), Options{Transport: kind, Target: "http://" + ln.Addr().String(), Requests: 5, Actors: GeneratedActors(1)})
	var na *NoAnswerError
	if !errors.As(err, &na) {
		t.Fatalf("err = %v, want NoAnswerError", err)
	}
	if !strings.Contains(err.Error(), "malformed HTTP response") {
		t.Errorf("error %q does not say why", err)
	}
	if r == nil || r.Count(report.TransportError) != 5 {
		t.Fatalf("report %+v", r)
	}
}

func TestRunRefusesBadOptions(t *testing.T) {
	good := Options{Target: "http://127.0.0.1:1", Mode: Burst, Requests: 1, Actors: []string{"a"}}
	tests := []struct {
		name string
		mod  func(*Options)
		msg  string
	}{
		{"no target", func(o *Options) { o.Target = "" }, "Target is required"},
		{"not http", func(o *Options) { o.Target = "ftp://x" }, "http:// or https://"},
		{"zero requests", func(o *Options) { o.Requests = 0 }, "Requests"},
		{"negative concurrency", func(o *Options) { o.Mode, o.Concurrency, o.Duration = Closed, -1, time.Second }, "Concurrency"},
		{"zero duration", func(o *Options) { o.Mode, o.Concurrency = Closed, 1 }, "Duration"},
		{"zero rate", func(o *Options) { o.Mode, o.Duration = Open, time.Second }, "Rate"},
		{"rate sends nothing", func(o *Options) { o.Mode, o.Rate, o.Duration = Open, 0.5, time.Second }, "sends no request"},
		{"mode", func(o *Options) { o.Mode = "storm" }, "unknown mode"},
		{"no actors", func(o *Options) { o.Actors = nil }, "no actors"},
		{"template without actor", func(o *Options) { o.HostTemplate = "{atespace}.x" }, "must contain {actor}"},
		{"url template without actor", func(o *Options) { o.URLTemplate = "/x" }, "must contain {actor}"},
		{"bad metrics url", func(o *Options) { o.MetricsURL = "localhost:9090" }, "MetricsURL"},
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second }, "Timeout"},
		{"distribution", func(o *Options) { o.Distribution = Distribution{Kind: "normal"} }, "unknown distribution"},
		{"method", func(o *Options) { o.Method = "GE T" }, "Method"},
	}
	for _, tt := range tests {
		o := good
		tt.mod(&o)
		_, err := Run(context.Background(), o)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err = %v, want an OptionError containing %q", tt.name, err, tt.msg)
		}
		// The probe names Options fields, never command-line flags.
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %q names a flag", tt.name, err)
		}
	}
}

func TestURLTemplateAndHeaders(t *testing.T) { eachSenderInBubble(t, testURLTemplateAndHeaders) }

func testURLTemplateAndHeaders(t *testing.T, kind string) {
	type seen struct{ path, host, hdr, method, body string }
	ch := make(chan seen, 10)
	target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		n, _ := r.Body.Read(b)
		ch <- seen{r.URL.Path, r.Host, r.Header.Get("X-Probe"), r.Method, string(b[:n])}
		fmt.Fprint(w, "ok")
	}))
	_, err := Run(context.Background(), Options{Transport: kind,
		Target: target, Dial: dial, Mode: Burst, Requests: 1, Actors: []string{"a1"}, Atespace: "prod",
		URLTemplate: "/actors/{atespace}/{actor}/hello", Method: "POST",
		Header: http.Header{"X-Probe": {"yes"}}, Body: []byte("payload"),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := <-ch
	want := seen{"/actors/prod/a1/hello", strings.TrimPrefix(target, "http://"), "yes", "POST", "payload"}
	if got != want {
		t.Errorf("server saw %+v, want %+v", got, want)
	}
	_, err = Run(context.Background(), Options{Transport: kind, Target: target, Dial: dial, Mode: Burst, Requests: 1, Actors: []string{"a2"}, Atespace: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-ch; got.host != "a2.dev.actors.resources.substrate.ate.dev" || got.path != "/" {
		t.Errorf("host addressing: server saw %+v", got)
	}
}

// TestClosedWorkersRecoverFromTimeouts: after a timeout a closed-mode
// worker's next requests are served, not cancelled.
func TestClosedWorkersRecoverFromTimeouts(t *testing.T) {
	eachSenderInBubble(t, testClosedWorkersRecoverFromTimeouts)
}

func testClosedWorkersRecoverFromTimeouts(t *testing.T, kind string) {
	target, dial := memDialTarget(t, kindHandler)
	r, err := Run(context.Background(), Options{Transport: kind,
		Target: target, Dial: dial, Mode: Closed, Concurrency: 2, Duration: 500 * time.Millisecond,
		Actors: []string{"client-timeout", "served"}, Timeout: 50 * time.Millisecond, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Served at all, and nothing cancelled (below).
	if r.Count(report.ClientTimeout) == 0 || r.Count(report.Served) == 0 {
		t.Fatalf("outcomes %+v", r.Outcomes)
	}
	if r.Count(report.ClientTimeout)+r.Count(report.Served) != r.Requests {
		t.Errorf("other outcomes after timeouts: %+v", r.Outcomes)
	}
	if l := r.Stats(report.ClientTimeout).Latency; l.P50 < 0.05 || l.Max > 0.0525 {
		t.Errorf("client_timeout latency %+v, want the 50ms timeout", l)
	}
}

func TestStartAtDelaysTheLoad(t *testing.T) { synctest.Test(t, testStartAtDelaysTheLoad) }

func testStartAtDelaysTheLoad(t *testing.T) {
	target, dial := memDialTarget(t, kindHandler)
	at := time.Now().Add(300 * time.Millisecond)
	r, err := Run(context.Background(), Options{Target: target, Dial: dial, Mode: Burst, Requests: 3, Actors: []string{"served"}, StartAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if r.StartedAt.Before(at) {
		t.Errorf("started at %s, before --start-at %s", r.StartedAt, at)
	}
	if r.Count(report.Served) != 3 {
		t.Errorf("outcomes %+v", r.Outcomes)
	}
}

// An open run opens the connections it likely needs before its schedule
// starts, so its first requests do not each wait for a handshake. On the
// bubble's in-memory network a dial returns once the server accepted it,
// so the dials counted when the first request arrives are the
// connections open then: 20 pre-dialled plus the preflight's own. A run
// that dialled on demand would have 2 (the preflight's and the first
// request's). (Over loopback the count depended on the server's accept
// loop keeping up, and an open run's last sends on the machine's speed.)
func TestOpenRunOpensItsConnectionsBeforeTheSchedule(t *testing.T) {
	synctest.Test(t, testOpenRunOpensItsConnectionsBeforeTheSchedule)
}

func testOpenRunOpensItsConnectionsBeforeTheSchedule(t *testing.T) {
	var dialled, atFirst atomic.Int64
	var first atomic.Bool
	target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			atFirst.Store(dialled.Load())
		}
	}))
	counted := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err == nil {
			dialled.Add(1)
		}
		return c, err
	}
	// 20 requests in all: the run likely holds 20 connections at once.
	r, err := Run(context.Background(), Options{Target: target, Dial: counted, Mode: Open, Rate: 100, Duration: 200 * time.Millisecond,
		Actors: GeneratedActors(1), Checks: report.CheckConfig{ShedMax: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Count(report.Served) != 20 {
		t.Fatalf("served %d, want 20", r.Count(report.Served))
	}
	// 20 pre-dialled, plus the preflight's own connection.
	if n := atFirst.Load(); n < 21 {
		t.Errorf("%d connections open when the first request arrived, want the 20 the run needs and the preflight's", n)
	}
}
