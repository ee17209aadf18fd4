package report

import (
	"fmt"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The probe judges itself: a run whose sender could not keep its schedule
// measured the machine it ran on as much as the router, so it says so in
// a failing check, and the checks that judge the router's timing are not
// judged in that run (substrate PR #807's "rig-limited" guard,
// openlinker#2933). An open loop asked for 1,000,000/s on a 2-core machine
// sent 74,571 requests in 2 s and then failed shed_fast as if the router
// were at fault.

// CheckSenderOnSchedule is the check of the probe's own sender.
const CheckSenderOnSchedule = "sender_on_schedule"

// Bounds of sender_on_schedule: an open run must send at least
// ScheduleSentMin of the requests its schedule held, and its sends' p99
// lateness must stay under ScheduleLatenessMax, or half the shed bound
// when that is less (an open run's latencies count from the schedule, so
// a send that late could fail shed_fast on the probe's account alone).
const (
	ScheduleSentMin     = 0.99
	ScheduleLatenessMax = 100 * time.Millisecond
)

// scheduleLatenessBound is the lateness sender_on_schedule allows.
func scheduleLatenessBound(cfg CheckConfig) time.Duration {
	return min(ScheduleLatenessMax, cfg.ShedMax/2)
}

// checkSenderOnSchedule: an open run sent what its schedule held, on time.
// A burst's schedule is its release and a closed run sends when answered:
// neither can fall behind a schedule.
func (r *Report) checkSenderOnSchedule(cfg CheckConfig) Check {
	if r.Mode != ModeOpen {
		return skipped(CheckSenderOnSchedule, fmt.Sprintf("a %s run has no schedule to fall behind (only an open run's sender is judged)", r.Mode))
	}
	if r.Interrupted {
		return skipped(CheckSenderOnSchedule, "not judged: the run was interrupted")
	}
	bound := scheduleLatenessBound(cfg)
	var problems []string
	if s := r.Load.Scheduled; s > 0 && float64(r.Requests) < ScheduleSentMin*float64(s) {
		problems = append(problems, fmt.Sprintf("sent %d of the %d requests scheduled (%s, under %s)",
			r.Requests, s, fmtPct(float64(r.Requests)/float64(s)), fmtPct(ScheduleSentMin)))
	}
	var p99 time.Duration
	h, err := r.sendLateness()
	if err != nil {
		return skipped(CheckSenderOnSchedule, err.Error())
	}
	if h != nil && h.TotalCount() > 0 {
		p99 = usDuration(h.ValueAtQuantile(99))
		if p99 >= bound {
			problems = append(problems, fmt.Sprintf("its sends' p99 lateness was %s, not under %s", FormatDuration(p99), FormatDuration(bound)))
		}
	}
	rate := ""
	if r.AchievedRate != nil && r.Load.Rate > 0 {
		rate = fmt.Sprintf(" (%s req/s achieved of %s asked)", formatRate(*r.AchievedRate), formatRate(r.Load.Rate))
	}
	if len(problems) > 0 {
		return failed(CheckSenderOnSchedule, r.say("the probe could not keep its schedule%s: %s: this machine, not the router, limited the run; send less per process ({Rate}, or {Shard.Count} over several machines)",
			rate, strings.Join(problems, "; ")))
	}
	return ok(CheckSenderOnSchedule, fmt.Sprintf("sent %d of %d scheduled, send lateness p99 %s under %s%s", r.Requests, r.Load.Scheduled, FormatDuration(p99), FormatDuration(bound), rate))
}

func formatRate(f float64) string {
	if f >= 100 {
		return fmt.Sprintf("%.0f", f)
	}
	return trimFloat(f)
}

// routerTimingChecks judge the router by how long its answers took, which
// a sender behind its schedule distorts.
var routerTimingChecks = []string{CheckBudgetBound, CheckShedFast, CheckParked}

// judgeSenderBehind marks the router's timing checks, and the user's
// latency expectations, as not judged when the sender could not keep its
// schedule.
func (r *Report) judgeSenderBehind() {
	behind := false
	for _, c := range r.Checks {
		if c.Name == CheckSenderOnSchedule && c.Status == CheckFailed {
			behind = true
		}
	}
	if !behind {
		return
	}
	for i, c := range r.Checks {
		latencyExpectation := strings.HasPrefix(c.Name, CheckExpectPrefix) && strings.Contains(c.Name, "(")
		if c.Status != CheckSkipped && (latencyExpectation || containsName(routerTimingChecks, c.Name)) {
			r.Checks[i] = skipped(c.Name, "not judged: the probe could not keep its schedule ("+CheckSenderOnSchedule+" failed), so the answers' timing says as much about this machine as about the router; it would have said: "+c.Detail)
		}
	}
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// noteServedLate counts the served answers that came after the park
// budget: the router after substrate #675 (with #1229) completes a resume
// still running when the budget ends, and serves its requests late, up
// to one attempt past it. They are served; the report says how many.
func (r *Report) noteServedLate(cfg CheckConfig) {
	r.ServedLate = 0
	s := r.Stats(Served)
	if s.Count == 0 {
		return
	}
	lat, svc, err := s.Histograms()
	if err != nil {
		return
	}
	h := svc
	if h == nil {
		h = lat
	}
	if h != nil {
		r.ServedLate = countAbove(h, cfg.Budget)
	}
}

// countBelow counts recorded values certainly below d: those whose
// histogram bucket ends below it.
func countBelow(h *hdr.Histogram, d time.Duration) int64 {
	limit := int64(d / time.Microsecond)
	var n int64
	for _, b := range h.Distribution() {
		if b.To < limit {
			n += b.Count
		}
	}
	return n
}
