package probe

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/probe/report"
)

// Issue 41: the probe judges itself. An open run whose sender fell behind
// its schedule says so in a failing check, and the checks that judge the
// router's timing are not judged in that run. The pacer's clock is made
// to run ahead of the bubble's: it finds itself behind, and the duration
// over after half the schedule, on any machine.
func TestSenderBehindItsScheduleFailsAndTimingIsNotJudged(t *testing.T) {
	eachSenderInBubble(t, func(t *testing.T, kind string) {
		target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			realAnswer(w, http.StatusServiceUnavailable, `actor "default/a" unavailable: router at capacity`)
		}))
		const rate = 100
		var calls atomic.Int64
		o := Options{Target: target, Dial: dial, Transport: kind, Mode: Open, Rate: rate, Duration: time.Second,
			Actors: []string{"a"}, Seed: 1, Checks: report.CheckConfig{Expect: mustExpect(t, "p99(shed)<1s")},
			// Each look at the clock finds it two intervals on.
			paceClock: func(time.Time) time.Duration { return time.Duration(calls.Add(1)) * 2 * time.Second / rate }}
		r, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Load.Scheduled != rate || r.Requests >= rate {
			t.Fatalf("sent %d of %d scheduled; want the pacer behind", r.Requests, r.Load.Scheduled)
		}
		wantCheck(t, r, report.CheckSenderOnSchedule, report.CheckFailed, "the probe could not keep its schedule")
		wantCheck(t, r, report.CheckSenderOnSchedule, report.CheckFailed, "scheduled")
		for _, name := range []string{report.CheckShedFast, "expect p99(shed)<1s"} {
			wantCheck(t, r, name, report.CheckSkipped, "not judged: the probe could not keep its schedule")
		}
		// What does not judge the router's timing is judged as ever.
		wantCheck(t, r, report.CheckAllAccounted, report.CheckOK, "")
	})
}

// On schedule, the same run's checks are judged, the sender's included.
func TestSenderOnScheduleIsJudged(t *testing.T) {
	eachSenderInBubble(t, func(t *testing.T, kind string) {
		target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			realAnswer(w, http.StatusServiceUnavailable, `actor "default/a" unavailable: router at capacity`)
		}))
		r, err := Run(context.Background(), Options{Target: target, Dial: dial, Transport: kind, Mode: Open, Rate: 100, Duration: time.Second,
			Actors: []string{"a"}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		wantCheck(t, r, report.CheckSenderOnSchedule, report.CheckOK, "sent 100 of 100 scheduled")
		if c := checksByName(r)[report.CheckShedFast]; c.Status != report.CheckOK || strings.Contains(c.Detail, "not judged") {
			t.Errorf("shed_fast = %+v, want it judged", c)
		}
	})
}
