package probe

import (
	"strings"
	"testing"
	"time"
)

// fakeRun builds the report of a run that got these answers, without a
// network: each entry is an outcome and its latency.
type fakeAnswer struct {
	o   Outcome
	lat time.Duration
	// svc, in open mode, is the time from the actual send; 0 means lat.
	svc time.Duration
}

func fakeRun(t *testing.T, o Options, answers []fakeAnswer, setup func(*engine)) *Report {
	t.Helper()
	if o.Mode == "" {
		o.Mode = Burst
		o.Requests = max(len(answers), 1)
	}
	if o.Target == "" {
		o.Target = "http://router.test:8080"
	}
	if o.Actors == nil {
		o.Actors = GeneratedActors(3)
	}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	e := &engine{o: &o, timeout: o.EffectiveTimeout(), activeSeries: map[int]float64{}}
	e.rec = newRecorder(4, o.Mode == Open, o.KeepSamples, 1)
	if o.MetricsURL != "" || o.StatuszURL != "" {
		e.scr = newScraper(o.MetricsURL, o.StatuszURL, nil)
	}
	for i, a := range answers {
		svc := a.svc
		if svc == 0 {
			svc = a.lat
		}
		due := time.Duration(i) * 10 * time.Millisecond
		e.rec.record(uint64(i), result{outcome: a.o, due: due, sentAt: due + a.lat - svc, doneAt: due + a.lat})
		e.sent.Add(1)
	}
	e.inflightSeries = []inflightPoint{{now: 0, peak: int64(len(answers))}}
	if setup != nil {
		setup(e)
	}
	return e.report(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), 2*time.Second)
}

func many(o Outcome, n int, lat time.Duration) []fakeAnswer {
	out := make([]fakeAnswer, n)
	for i := range out {
		out[i] = fakeAnswer{o: o, lat: lat}
	}
	return out
}

func cat(parts ...[]fakeAnswer) []fakeAnswer {
	var out []fakeAnswer
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func f64(v float64) *float64 { return &v }

func wantCheck(t *testing.T, r *Report, name, status, detail string) {
	t.Helper()
	c, ok := checksByName(r)[name]
	if !ok {
		t.Fatalf("no check %s in %+v", name, r.Checks)
	}
	if c.Status != status || c.OK != (status != CheckFailed) || !strings.Contains(c.Detail, detail) {
		t.Errorf("%s = %+v, want %s with detail containing %q", name, c, status, detail)
	}
}

func TestCheckBudgetBound(t *testing.T) {
	r := fakeRun(t, Options{}, cat(many(Served, 5, time.Second), many(BudgetExhausted, 4, 5100*time.Millisecond)), nil)
	wantCheck(t, r, CheckBudgetBound, CheckOK, "all 4 budget_exhausted answers within 6s")

	r = fakeRun(t, Options{}, cat(many(BudgetExhausted, 3, 5*time.Second), many(BudgetExhausted, 2, 6500*time.Millisecond)), nil)
	wantCheck(t, r, CheckBudgetBound, CheckFailed, "2 of 5 budget_exhausted answers came later than 6s")

	r = fakeRun(t, Options{Checks: CheckConfig{Budget: time.Second, Slack: 200 * time.Millisecond}}, many(BudgetExhausted, 2, 1500*time.Millisecond), nil)
	wantCheck(t, r, CheckBudgetBound, CheckFailed, "later than 1.2s (budget 1s + slack 200ms)")
	// --slack 0 means no grace, not the default second.
	r = fakeRun(t, Options{Checks: CheckConfig{Budget: time.Second, SlackSet: true}}, many(BudgetExhausted, 2, 1100*time.Millisecond), nil)
	wantCheck(t, r, CheckBudgetBound, CheckFailed, "later than 1s (budget 1s + slack 0s)")

	r = fakeRun(t, Options{}, many(Served, 2, time.Second), nil)
	wantCheck(t, r, CheckBudgetBound, CheckSkipped, "no budget_exhausted")

	// Open mode: a send that left late is judged from when it left, not
	// from its schedule.
	open := Options{Mode: Open, Rate: 10, Duration: time.Second}
	r = fakeRun(t, open, []fakeAnswer{{o: BudgetExhausted, lat: 8 * time.Second, svc: 5 * time.Second}}, nil)
	wantCheck(t, r, CheckBudgetBound, CheckOK, "within 6s")
	r = fakeRun(t, open, []fakeAnswer{{o: BudgetExhausted, lat: 8 * time.Second, svc: 7 * time.Second}}, nil)
	wantCheck(t, r, CheckBudgetBound, CheckFailed, "later than 6s")
}

func TestCheckShedFast(t *testing.T) {
	r := fakeRun(t, Options{}, many(Shed, 100, 3*time.Millisecond), nil)
	wantCheck(t, r, CheckShedFast, CheckOK, "shed p99 3ms under 250ms")
	r = fakeRun(t, Options{}, cat(many(Shed, 95, time.Millisecond), many(Shed, 5, 400*time.Millisecond)), nil)
	wantCheck(t, r, CheckShedFast, CheckFailed, "is not under 250ms")
	r = fakeRun(t, Options{Checks: CheckConfig{ShedMax: time.Millisecond}}, many(Shed, 10, 3*time.Millisecond), nil)
	wantCheck(t, r, CheckShedFast, CheckFailed, "not under 1ms")
	r = fakeRun(t, Options{}, many(Served, 1, time.Millisecond), nil)
	wantCheck(t, r, CheckShedFast, CheckSkipped, "no shed answers")
}

func TestCheckRejectedMatchesShed(t *testing.T) {
	withMetrics := Options{MetricsURL: "http://router.test:9090/metrics"}
	scrapes := func(before, after float64) func(*engine) {
		return func(e *engine) {
			e.metricsBefore = &RouterMetrics{ParkingRejectedTotal: f64(before)}
			e.metricsAfter = &RouterMetrics{ParkingRejectedTotal: f64(after), ParkingActive: f64(0)}
		}
	}
	answers := cat(many(Shed, 7, time.Millisecond), many(Served, 3, time.Millisecond))
	r := fakeRun(t, withMetrics, answers, scrapes(100, 107))
	wantCheck(t, r, CheckRejectedMatchesShed, CheckOK, "grew by 7")
	r = fakeRun(t, withMetrics, answers, scrapes(100, 110))
	wantCheck(t, r, CheckRejectedMatchesShed, CheckFailed, "grew by 10 but the probe saw 7 shed")
	// A counter that did not exist before the run starts from zero.
	r = fakeRun(t, withMetrics, answers, func(e *engine) {
		e.metricsBefore = &RouterMetrics{}
		e.metricsAfter = &RouterMetrics{ParkingRejectedTotal: f64(7)}
	})
	wantCheck(t, r, CheckRejectedMatchesShed, CheckOK, "grew by 7")
	r = fakeRun(t, withMetrics, answers, func(e *engine) {
		e.metricsBefore = &RouterMetrics{}
		e.lastScrapeErr = "connection refused"
	})
	wantCheck(t, r, CheckRejectedMatchesShed, CheckSkipped, "after the run failed: connection refused")
	r = fakeRun(t, Options{}, answers, nil)
	wantCheck(t, r, CheckRejectedMatchesShed, CheckSkipped, "no --metrics-url")
}

func TestCheckActiveDrains(t *testing.T) {
	withMetrics := Options{MetricsURL: "http://router.test:9090/metrics"}
	r := fakeRun(t, withMetrics, many(Served, 2, time.Millisecond), func(e *engine) {
		e.metricsBefore = &RouterMetrics{}
		e.metricsAfter = &RouterMetrics{ParkingActive: f64(0)}
		e.activePeak = f64(12)
	})
	wantCheck(t, r, CheckActiveDrains, CheckOK, "parking_active back to 0 after the run (peak 12)")
	r = fakeRun(t, withMetrics, many(Served, 2, time.Millisecond), func(e *engine) {
		e.metricsBefore = &RouterMetrics{}
		e.metricsAfter = &RouterMetrics{ParkingActive: f64(3)}
	})
	wantCheck(t, r, CheckActiveDrains, CheckFailed, "parking_active is still 3")
	withStatusz := Options{StatuszURL: "http://router.test:8081/statusz"}
	r = fakeRun(t, withStatusz, many(Served, 2, time.Millisecond), func(e *engine) {
		e.statuszAfter = &StatuszParking{Active: f64(1)}
	})
	wantCheck(t, r, CheckActiveDrains, CheckFailed, "statusz active is still 1")
	r = fakeRun(t, Options{}, many(Served, 2, time.Millisecond), nil)
	wantCheck(t, r, CheckActiveDrains, CheckSkipped, "no --metrics-url or --statusz-url")
}

func TestCheckNoEnvoyOverflowAndAllAccounted(t *testing.T) {
	r := fakeRun(t, Options{}, many(Served, 3, time.Millisecond), nil)
	wantCheck(t, r, CheckNoEnvoyOverflow, CheckOK, "no Envoy overflow")
	wantCheck(t, r, CheckAllAccounted, CheckOK, "3 requests sent, 3 outcomes")
	r = fakeRun(t, Options{}, cat(many(Served, 3, time.Millisecond), many(EnvoyOverflow, 2, time.Millisecond)), nil)
	wantCheck(t, r, CheckNoEnvoyOverflow, CheckFailed, "2 answers were Envoy overflows")
	// A lost answer is exactly what all_accounted exists to catch.
	r.Requests++
	r.evaluate(CheckConfig{})
	wantCheck(t, r, CheckAllAccounted, CheckFailed, "outcomes add up to 5 but 6 requests were sent")
}

func TestExpectations(t *testing.T) {
	answers := cat(many(Served, 90, 100*time.Millisecond), many(Shed, 10, 2*time.Millisecond))
	exps, err := ParseExpectations([]string{
		"served>=0.9", "served>0.9", "served>=90%", "shed==10", "shed<=9", "requests==100",
		"p99(served)<200ms", "max(shed)<1ms", "p50(budget_exhausted)<1s",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := fakeRun(t, Options{Checks: CheckConfig{Expect: exps}}, answers, nil)
	wantCheck(t, r, "expect served>=0.9", CheckOK, "served is 90% (90 of 100)")
	wantCheck(t, r, "expect served>0.9", CheckFailed, "want > 90%")
	wantCheck(t, r, "expect served>=90%", CheckOK, "90%")
	wantCheck(t, r, "expect shed==10", CheckOK, "shed is 10")
	wantCheck(t, r, "expect shed<=9", CheckFailed, "shed is 10, want <= 9")
	wantCheck(t, r, "expect requests==100", CheckOK, "requests is 100")
	wantCheck(t, r, "expect p99(served)<200ms", CheckOK, "p99(served) is 100ms")
	wantCheck(t, r, "expect max(shed)<1ms", CheckFailed, "max(shed) is 2ms, want < 1ms")
	wantCheck(t, r, "expect p50(budget_exhausted)<1s", CheckSkipped, "no budget_exhausted answers")
	if f := r.Failed(); strings.Join(f, ",") != "expect served>0.9,expect shed<=9,expect max(shed)<1ms" {
		t.Errorf("Failed() = %v", f)
	}
}

func TestFmtDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 1500 * time.Nanosecond: "1.5µs", 250 * time.Millisecond: "250ms", 1234 * time.Microsecond: "1.23ms",
		5100 * time.Millisecond: "5.1s", 90 * time.Second: "1m30s", 12345 * time.Microsecond: "12.3ms",
	} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
	}
}
