package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"strings"
	"testing"
	"time"
)

// fakeAnswer is one answer of a fake run: an outcome and its latency.
type fakeAnswer struct {
	o   report.Outcome
	lat time.Duration
	// svc, in open mode, is the time from the actual send; 0 means lat.
	svc time.Duration
}

// fakeRun builds the report of a run that got these answers, without a
// network.
func fakeRun(t *testing.T, o Options, answers []fakeAnswer, setup func(*engine)) *report.Report {
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
		e.scr = newScraper(o.MetricsURL, o.StatuszURL, nil, nil)
	}
	// The run lasts until its last answer (at least 2s), as a real one
	// does: a report's series stays within its duration.
	elapsed := 2 * time.Second
	for i, a := range answers {
		elapsed = max(elapsed, time.Duration(i)*10*time.Millisecond+a.lat)
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
	return e.report(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), elapsed)
}

func many(o report.Outcome, n int, lat time.Duration) []fakeAnswer {
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

func wantCheck(t *testing.T, r *report.Report, name, status, detail string) {
	t.Helper()
	c, ok := checksByName(r)[name]
	if !ok {
		t.Fatalf("no check %s in %+v", name, r.Checks)
	}
	if c.Status != status || c.OK != (status != report.CheckFailed) || !strings.Contains(c.Detail, detail) {
		t.Errorf("%s = %+v, want %s with detail containing %q", name, c, status, detail)
	}
}

func TestCheckBudgetBound(t *testing.T) {
	r := fakeRun(t, Options{}, cat(many(report.Served, 5, time.Second), many(report.BudgetExhausted, 4, 5100*time.Millisecond)), nil)
	wantCheck(t, r, report.CheckBudgetBound, report.CheckOK, "all 4 budget_exhausted answers within 6s")

	r = fakeRun(t, Options{}, cat(many(report.BudgetExhausted, 3, 5*time.Second), many(report.BudgetExhausted, 2, 6500*time.Millisecond)), nil)
	wantCheck(t, r, report.CheckBudgetBound, report.CheckFailed, "2 of 5 budget_exhausted answers came later than 6s")

	r = fakeRun(t, Options{Checks: report.CheckConfig{Budget: time.Second, Slack: 200 * time.Millisecond}}, many(report.BudgetExhausted, 2, 1500*time.Millisecond), nil)
	wantCheck(t, r, report.CheckBudgetBound, report.CheckFailed, "later than 1.2s (budget 1s + slack 200ms)")
	// --slack 0 means no grace, not the default second.
	r = fakeRun(t, Options{Checks: report.CheckConfig{Budget: time.Second, SlackSet: true}}, many(report.BudgetExhausted, 2, 1100*time.Millisecond), nil)
	wantCheck(t, r, report.CheckBudgetBound, report.CheckFailed, "later than 1s (budget 1s + slack 0s)")

	r = fakeRun(t, Options{}, many(report.Served, 2, time.Second), nil)
	wantCheck(t, r, report.CheckBudgetBound, report.CheckSkipped, "no budget_exhausted")

	// Open mode: a send that left late is judged from when it left, not
	// from its schedule.
	open := Options{Mode: Open, Rate: 1, Duration: time.Second}
	r = fakeRun(t, open, []fakeAnswer{{o: report.BudgetExhausted, lat: 8 * time.Second, svc: 5 * time.Second}}, nil)
	wantCheck(t, r, report.CheckBudgetBound, report.CheckOK, "within 6s")
	r = fakeRun(t, open, []fakeAnswer{{o: report.BudgetExhausted, lat: 8 * time.Second, svc: 7 * time.Second}}, nil)
	wantCheck(t, r, report.CheckBudgetBound, report.CheckFailed, "later than 6s")
}

func TestCheckShedFast(t *testing.T) {
	r := fakeRun(t, Options{}, many(report.Shed, 100, 3*time.Millisecond), nil)
	wantCheck(t, r, report.CheckShedFast, report.CheckOK, "shed p99 3ms under 250ms")
	r = fakeRun(t, Options{}, cat(many(report.Shed, 95, time.Millisecond), many(report.Shed, 5, 400*time.Millisecond)), nil)
	wantCheck(t, r, report.CheckShedFast, report.CheckFailed, "is not under 250ms")
	r = fakeRun(t, Options{Checks: report.CheckConfig{ShedMax: time.Millisecond}}, many(report.Shed, 10, 3*time.Millisecond), nil)
	wantCheck(t, r, report.CheckShedFast, report.CheckFailed, "not under 1ms")
	r = fakeRun(t, Options{}, many(report.Served, 1, time.Millisecond), nil)
	wantCheck(t, r, report.CheckShedFast, report.CheckSkipped, "no shed answers")
}

func TestCheckRejectedMatchesShed(t *testing.T) {
	withMetrics := Options{MetricsURL: "http://router.test:9090/metrics"}
	scrapes := func(before, after float64) func(*engine) {
		return func(e *engine) {
			e.metricsBefore = &report.RouterMetrics{ParkingRejectedTotal: f64(before)}
			e.metricsAfter = &report.RouterMetrics{ParkingRejectedTotal: f64(after), ParkingActive: f64(0)}
		}
	}
	answers := cat(many(report.Shed, 7, time.Millisecond), many(report.Served, 3, time.Millisecond))
	r := fakeRun(t, withMetrics, answers, scrapes(100, 107))
	wantCheck(t, r, report.CheckRejectedMatchesShed, report.CheckOK, "grew by 7")
	r = fakeRun(t, withMetrics, answers, scrapes(100, 110))
	wantCheck(t, r, report.CheckRejectedMatchesShed, report.CheckFailed, "grew by 10 but the probe saw 7 shed")
	// A counter that did not exist before the run starts from zero.
	r = fakeRun(t, withMetrics, answers, func(e *engine) {
		e.metricsBefore = &report.RouterMetrics{}
		e.metricsAfter = &report.RouterMetrics{ParkingRejectedTotal: f64(7)}
	})
	wantCheck(t, r, report.CheckRejectedMatchesShed, report.CheckOK, "grew by 7")
	r = fakeRun(t, withMetrics, answers, func(e *engine) {
		e.metricsBefore = &report.RouterMetrics{}
		e.lastScrapeErr = "connection refused"
	})
	wantCheck(t, r, report.CheckRejectedMatchesShed, report.CheckSkipped, "after the run failed: connection refused")
	r = fakeRun(t, Options{}, answers, nil)
	wantCheck(t, r, report.CheckRejectedMatchesShed, report.CheckSkipped, "no MetricsURL")
}

func TestCheckActiveDrains(t *testing.T) {
	withMetrics := Options{MetricsURL: "http://router.test:9090/metrics"}
	r := fakeRun(t, withMetrics, many(report.Served, 2, time.Millisecond), func(e *engine) {
		e.metricsBefore = &report.RouterMetrics{}
		e.metricsAfter = &report.RouterMetrics{ParkingActive: f64(0)}
		e.activePeak = f64(12)
	})
	wantCheck(t, r, report.CheckActiveDrains, report.CheckOK, "parking_active back to 0 after the run (highest scraped 12)")
	r = fakeRun(t, withMetrics, many(report.Served, 2, time.Millisecond), func(e *engine) {
		e.metricsBefore = &report.RouterMetrics{}
		e.metricsAfter = &report.RouterMetrics{ParkingActive: f64(3)}
	})
	wantCheck(t, r, report.CheckActiveDrains, report.CheckFailed, "parking_active is still 3")
	withStatusz := Options{StatuszURL: "http://router.test:8081/statusz"}
	r = fakeRun(t, withStatusz, many(report.Served, 2, time.Millisecond), func(e *engine) {
		e.statuszAfter = &report.StatuszParking{Active: f64(1)}
	})
	wantCheck(t, r, report.CheckActiveDrains, report.CheckFailed, "statusz active is still 1")
	r = fakeRun(t, Options{}, many(report.Served, 2, time.Millisecond), nil)
	wantCheck(t, r, report.CheckActiveDrains, report.CheckSkipped, "no MetricsURL or StatuszURL")
}

func TestCheckNoEnvoyOverflowAndAllAccounted(t *testing.T) {
	r := fakeRun(t, Options{}, many(report.Served, 3, time.Millisecond), nil)
	wantCheck(t, r, report.CheckNoEnvoyOverflow, report.CheckOK, "no Envoy overflow")
	wantCheck(t, r, report.CheckAllAccounted, report.CheckOK, "3 requests sent, 3 outcomes")
	r = fakeRun(t, Options{}, cat(many(report.Served, 3, time.Millisecond), many(report.EnvoyOverflow, 2, time.Millisecond)), nil)
	wantCheck(t, r, report.CheckNoEnvoyOverflow, report.CheckFailed, "2 answers were Envoy overflows")
	// A lost answer is exactly what all_accounted exists to catch.
	r.Requests++
	r.Evaluate(report.CheckConfig{})
	wantCheck(t, r, report.CheckAllAccounted, report.CheckFailed, "outcomes add up to 5 but 6 requests were sent")
}

func TestExpectations(t *testing.T) {
	answers := cat(many(report.Served, 90, 100*time.Millisecond), many(report.Shed, 10, 2*time.Millisecond))
	exps, err := report.ParseExpectations([]string{
		"served>=0.9", "served>0.9", "served>=90%", "shed==10", "shed<=9", "requests==100",
		"p99(served)<200ms", "max(shed)<1ms", "p50(budget_exhausted)<1s",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := fakeRun(t, Options{Checks: report.CheckConfig{Expect: exps}}, answers, nil)
	wantCheck(t, r, "expect served>=0.9", report.CheckOK, "served is 90% (90 of 100)")
	wantCheck(t, r, "expect served>0.9", report.CheckFailed, "want > 90%")
	wantCheck(t, r, "expect served>=90%", report.CheckOK, "90%")
	wantCheck(t, r, "expect shed==10", report.CheckOK, "shed is 10")
	wantCheck(t, r, "expect shed<=9", report.CheckFailed, "shed is 10, want <= 9")
	wantCheck(t, r, "expect requests==100", report.CheckOK, "requests is 100")
	wantCheck(t, r, "expect p99(served)<200ms", report.CheckOK, "p99(served) is 100ms")
	wantCheck(t, r, "expect max(shed)<1ms", report.CheckFailed, "max(shed) is 2ms, want < 1ms")
	wantCheck(t, r, "expect p50(budget_exhausted)<1s", report.CheckSkipped, "no budget_exhausted answers")
	if f := r.Failed(); strings.Join(f, ",") != "expect served>0.9,expect shed<=9,expect max(shed)<1ms" {
		t.Errorf("Failed() = %v", f)
	}
}

func TestFmtDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 1500 * time.Nanosecond: "1.5µs", 250 * time.Millisecond: "250ms", 1234 * time.Microsecond: "1.23ms",
		5100 * time.Millisecond: "5.1s", 90 * time.Second: "1m30s", 12345 * time.Microsecond: "12.3ms",
	} {
		if got := report.FormatDuration(d); got != want {
			t.Errorf("report.FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
