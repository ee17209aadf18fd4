package report

import (
	"sync"
	"testing"
	"time"
)

// Answers per step add up to the requests, land in the step they were
// answered in, and in-flight counts those sent and not yet answered.
func TestTimelineCounts(t *testing.T) {
	tl := NewTimeline(100 * time.Millisecond)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := Served
			if i%4 == 0 {
				o = Shed
			}
			// All sent at 0 (a burst); served ones answered at 0.25s + i ms.
			done := time.Duration(0)
			if o == Served {
				done = 250*time.Millisecond + time.Duration(i)*time.Millisecond
			}
			tl.Observe(0, done, o)
		}()
	}
	wg.Wait()
	v := tl.view()
	var sum int64
	for _, row := range v.answers {
		for _, n := range row {
			sum += n
		}
	}
	if sum != 100 || v.total != 100 {
		t.Fatalf("answers sum to %d (total %d), want 100", sum, v.total)
	}
	if got := v.answers[0][Shed]; got != 25 {
		t.Errorf("shed in the first 100ms: %d, want 25", got)
	}
	if got := v.inFlight[0]; got != 75 {
		t.Errorf("in flight after the first step: %d, want the 75 parked", got)
	}
	if got := v.inFlight[len(v.inFlight)-1]; got != 0 {
		t.Errorf("in flight at the end: %d, want 0", got)
	}
	tl.Observe(-time.Second, 1<<62, Outcome(99)) // hostile times and outcome are clamped
	if v := tl.view(); len(v.answers) != maxTimelineSteps || v.answers[maxTimelineSteps-1][Other] != 1 {
		t.Errorf("clamping: %d steps", len(v.answers))
	}
}

// The plot's data: a budget line when the budget is known, answers that
// sum to the requests, and a scale when samples stand for more requests.
func TestNewFigure(t *testing.T) {
	r := &Report{Requests: 40, Load: LoadInfo{BudgetSeconds: 5}, Outcomes: map[string]*OutcomeStats{}}
	for i := range 20 {
		r.samples = append(r.samples, Sample{Sent: time.Duration(i) * 10 * time.Millisecond, Latency: time.Second, Outcome: Served})
	}
	h := NewHistogram()
	RecordDuration(h, time.Second)
	r.Outcomes[Served.String()] = &OutcomeStats{Count: 40, lat: h}
	d, err := NewFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	if d.BudgetSeconds != 5 {
		t.Errorf("budget %v, want 5", d.BudgetSeconds)
	}
	if d.Scale != 2 {
		t.Errorf("scale %v: 20 samples of 40 requests stand for 2 each", d.Scale)
	}
	if len(d.Answers) != 1 || d.Answers[0].Outcome != "served" || len(d.Spectra) != 1 {
		t.Fatalf("answers %+v, spectra %d: want served alone", d.Answers, len(d.Spectra))
	}
	var sum float64
	for _, p := range d.Answers[0].Points {
		sum += p.Y
	}
	if sum != 40 {
		t.Errorf("answers sum to %v, want the 40 requests", sum)
	}
	if sp := d.Spectra[0].Points; len(sp) < 10 || sp[0].X != 1 || sp[len(sp)-1].Y < 0.999 {
		t.Errorf("spectrum %v", sp)
	}
	if err := d.Check(); err != nil {
		t.Errorf("a figure NewFigure made fails its own check: %v", err)
	}
	if _, err := NewFigure(&Report{}); err == nil {
		t.Error("an empty report plotted")
	}
}
