package report

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// Names of the built-in checks.
const (
	CheckBudgetBound         = "budget_bound"
	CheckShedFast            = "shed_fast"
	CheckRejectedMatchesShed = "rejected_matches_shed"
	CheckActiveDrains        = "active_drains"
	CheckNoEnvoyOverflow     = "no_envoy_overflow"
	CheckAllAccounted        = "all_accounted"
)

func ok(name, detail string) Check {
	return Check{Name: name, OK: true, Status: CheckOK, Detail: detail}
}
func failed(name, detail string) Check {
	return Check{Name: name, OK: false, Status: CheckFailed, Detail: detail}
}
func skipped(name, detail string) Check {
	return Check{Name: name, OK: true, Status: CheckSkipped, Detail: detail}
}

// say is fmt.Sprintf whose format names the run's options as
// internal/fielderr placeholders ({MetricsURL}), written as the report's
// optionName says before the arguments go in: an argument (a router's
// body) is never read as a placeholder.
func (r *Report) say(format string, a ...any) string {
	return fielderr.Sprintf(r.optionName, format, a...)
}

// Evaluate runs the built-in checks and the user's expectations (cfg's
// zero fields take the defaults), replacing the report's checks. In the
// report of one shard of a sharded run the checks that compare the
// router's figures with the probe's counts are skipped: the router saw
// every shard's load, so only the merged report can judge them.
func (r *Report) Evaluate(cfg CheckConfig) {
	cfg.ApplyDefaults()
	r.optionName = cfg.OptionName
	r.Checks = []Check{
		r.checkBudgetBound(cfg),
		r.checkShedFast(cfg),
		r.checkRejectedMatchesShed(),
		r.checkActiveDrains(),
		r.checkNoEnvoyOverflow(),
		r.checkAllAccounted(),
		r.checkSenderOnSchedule(cfg),
		r.checkWaitMatchesBudgetExhausted(),
		r.checkParked(cfg),
		r.checkReachedParking(),
	}
	for _, e := range cfg.Expect {
		r.Checks = append(r.Checks, r.checkExpectation(e))
	}
	r.noteServedLate(cfg)
	r.judgeParkingOff(cfg)
	r.judgeSenderBehind()
	r.leaveRouterChecksToMerge()
}

// checkBudgetBound: the router answers budget_exhausted when the park budget
// runs out, so none may arrive later than the budget plus slack after it was
// sent (from when the request was written, not from the burst's release or
// the open-mode schedule).
func (r *Report) checkBudgetBound(cfg CheckConfig) Check {
	s := r.Stats(BudgetExhausted)
	bound := cfg.Budget + cfg.Slack
	if s.Count == 0 {
		return skipped(CheckBudgetBound, "no budget_exhausted answers")
	}
	h := s.svc
	if h == nil {
		h = s.lat
	}
	if h == nil {
		return skipped(CheckBudgetBound, "no latency histogram for budget_exhausted")
	}
	late := countAbove(h, bound)
	maxD := usDuration(h.Max())
	if late > 0 {
		src := ""
		if cfg.BudgetSource == BudgetStatusz {
			src = " from the router's statusz max_wait"
		}
		return failed(CheckBudgetBound, fmt.Sprintf("%d of %d budget_exhausted answers came later than %s (budget %s%s + slack %s); max %s",
			late, s.Count, FormatDuration(bound), FormatDuration(cfg.Budget), src, FormatDuration(cfg.Slack), FormatDuration(maxD)))
	}
	src := ""
	if cfg.BudgetSource == BudgetStatusz {
		src = fmt.Sprintf("budget %s from the router's statusz max_wait; ", FormatDuration(cfg.Budget))
	}
	return ok(CheckBudgetBound, fmt.Sprintf("all %d budget_exhausted answers within %s (%smax %s)", s.Count, FormatDuration(bound), src, FormatDuration(maxD)))
}

// countAbove counts recorded values certainly above d: those whose
// histogram bucket starts above it (buckets are 0.1% wide).
func countAbove(h *hdr.Histogram, d time.Duration) int64 {
	limit := int64(d / time.Microsecond)
	var n int64
	for _, b := range h.Distribution() {
		if b.From > limit {
			n += b.Count
		}
	}
	return n
}

func usDuration(us int64) time.Duration { return time.Duration(us) * time.Microsecond }

// checkShedFast: shedding exists to answer at once, so shed answers must be
// fast.
func (r *Report) checkShedFast(cfg CheckConfig) Check {
	s := r.Stats(Shed)
	if s.Count == 0 || s.lat == nil {
		return skipped(CheckShedFast, "no shed answers")
	}
	p99 := usDuration(s.lat.ValueAtQuantile(99))
	if p99 >= cfg.ShedMax {
		return failed(CheckShedFast, fmt.Sprintf("shed p99 %s is not under %s (%d shed answers)", FormatDuration(p99), FormatDuration(cfg.ShedMax), s.Count))
	}
	return ok(CheckShedFast, fmt.Sprintf("shed p99 %s under %s (%d shed answers)", FormatDuration(p99), FormatDuration(cfg.ShedMax), s.Count))
}

// checkRejectedMatchesShed: every shed answer is a parking rejection, and a
// rejection the probe never saw as shed came from someone else's traffic
// (or the router counted wrong).
func (r *Report) checkRejectedMatchesShed() Check {
	m := r.Metrics
	if m == nil {
		return skipped(CheckRejectedMatchesShed, r.say("no {MetricsURL}"))
	}
	if r.Dataplane() == DataplaneAgentgateway {
		return skipped(CheckRejectedMatchesShed, "not judged: the dataplane (agentgateway) has no parking_rejected counter: no metric counts its full lot's refusals")
	}
	if m.RejectedDelta == nil {
		reason := "the scrape after the run failed"
		if m.Before == nil {
			reason = "the scrape before the run failed"
		}
		if m.LastError != "" {
			reason += ": " + m.LastError
		}
		return skipped(CheckRejectedMatchesShed, reason)
	}
	shed := r.Count(Shed)
	d := *m.RejectedDelta
	// OpenTelemetry exports an instrument only once used (PR #221
	// 4a8f978b): absent before means 0, absent after too means never used.
	form := ""
	switch {
	case m.Before.ParkingRejectedTotal == nil && m.After.ParkingRejectedTotal == nil:
		form = " (parking_rejected_total absent before and after: never used)"
	case m.Before.ParkingRejectedTotal == nil:
		form = " (parking_rejected_total absent before the run: counted from 0)"
	}
	if d != float64(shed) {
		return failed(CheckRejectedMatchesShed, fmt.Sprintf("parking_rejected grew by %s but the probe saw %d shed answers%s", formatFloat(d), shed, form))
	}
	return ok(CheckRejectedMatchesShed, fmt.Sprintf("parking_rejected grew by %s, as many as shed answers%s", formatFloat(d), form))
}

// checkActiveDrains: once every request has been answered, nothing may stay
// parked.
func (r *Report) checkActiveDrains() Check {
	var after *float64
	source := ""
	switch {
	case r.Metrics != nil && r.Metrics.After != nil:
		after, source = r.Metrics.After.ParkingActive, "parking_active"
		if r.Dataplane() == DataplaneAgentgateway {
			// One per parking permit held (router-dataplanes.md §3.6).
			source = "agentgateway_substrate_request_parking_active"
		}
		if after == nil {
			zero := 0.0
			after = &zero
		}
	case r.Statusz != nil && r.Statusz.After != nil && r.Statusz.After.Active != nil:
		after, source = r.Statusz.After.Active, "statusz active"
	}
	if after == nil {
		if r.Metrics == nil && r.Statusz == nil {
			return skipped(CheckActiveDrains, r.say("no {MetricsURL} or {StatuszURL}"))
		}
		return skipped(CheckActiveDrains, "no scrape after the run")
	}
	peak := ""
	if p := r.activePeak(); p != nil {
		// The highest value read, not the router's own peak: a scrape
		// between two of the sampler's may miss a higher count.
		peak = fmt.Sprintf(" (highest scraped %s)", formatFloat(*p))
	}
	if *after != 0 {
		return failed(CheckActiveDrains, fmt.Sprintf("%s is still %s after the run%s", source, formatFloat(*after), peak))
	}
	return ok(CheckActiveDrains, fmt.Sprintf("%s back to 0 after the run%s", source, peak))
}

func (r *Report) activePeak() *float64 {
	if r.Metrics != nil && r.Metrics.ActivePeak != nil {
		return r.Metrics.ActivePeak
	}
	if r.Statusz != nil {
		return r.Statusz.ActivePeak
	}
	return nil
}

// checkNoEnvoyOverflow: an overflow means Envoy's ext_proc breaker sits
// below the parking lot and silently truncates it.
func (r *Report) checkNoEnvoyOverflow() Check {
	n := r.Count(EnvoyOverflow)
	x := r.Count(ExtProcError)
	switch {
	case n > 0 && x > 0:
		return failed(CheckNoEnvoyOverflow, fmt.Sprintf("%d answers were Envoy overflows and %d ext_proc errors (Envoy's empty 500/504): Envoy truncates the parking lot", n, x))
	case n > 0:
		return failed(CheckNoEnvoyOverflow, fmt.Sprintf("%d answers were Envoy overflows: its circuit breaker (--extproc-max-requests) sits below the parking lot", n))
	case x > 0:
		return failed(CheckNoEnvoyOverflow, fmt.Sprintf("%d answers were ext_proc errors (Envoy's own 500/504 with an empty body): the ext_proc stream failed or timed out, which truncates the lot as an overflow does (Envoy's default breaker of 1024 sits below PR #221's lot of 2048; message_timeout is max-wait + 5s)", x))
	}
	return ok(CheckNoEnvoyOverflow, "no Envoy overflow or ext_proc error answers")
}

// checkAllAccounted: every request sent has exactly one outcome.
func (r *Report) checkAllAccounted() Check {
	var sum int64
	for _, s := range r.Outcomes {
		sum += s.Count
	}
	if sum != r.Requests {
		return failed(CheckAllAccounted, fmt.Sprintf("outcomes add up to %d but %d requests were sent", sum, r.Requests))
	}
	return ok(CheckAllAccounted, fmt.Sprintf("%d requests sent, %d outcomes", r.Requests, sum))
}

func (r *Report) checkExpectation(e Expectation) Check {
	name := "expect " + e.Text
	if e.Parking != "" {
		why := r.parkingOffReason()
		switch {
		case e.Parking == ParkingOffWord && why != "":
			return ok(name, "parking is off on the router: "+why)
		case e.Parking == ParkingOffWord:
			return failed(name, "nothing showed parking off: "+r.parkingOnEvidence())
		case why != "":
			return failed(name, "parking is disabled on the router: "+why)
		}
		return ok(name, "nothing showed parking off: "+r.parkingOnEvidence())
	}
	if e.Stat != "" {
		s := r.Stats(e.Outcome)
		if s.Count == 0 || s.lat == nil {
			return skipped(name, fmt.Sprintf("no %s answers to measure", e.Outcome))
		}
		q := latencyStats[e.Stat]
		var got time.Duration
		if q >= 100 {
			got = usDuration(s.lat.Max())
		} else {
			got = usDuration(s.lat.ValueAtQuantile(q))
		}
		detail := fmt.Sprintf("%s(%s) is %s", e.Stat, e.Outcome, FormatDuration(got))
		if compare(float64(got), e.Op, float64(e.Latency)) {
			return ok(name, detail)
		}
		return failed(name, detail+fmt.Sprintf(", want %s %s", e.Op, FormatDuration(e.Latency)))
	}
	var n int64
	subject := "requests"
	if e.Requests {
		n = r.Requests
	} else {
		n = r.Count(e.Outcome)
		subject = e.Outcome.String()
	}
	if e.IsRatio {
		if r.Requests == 0 {
			return skipped(name, "no requests sent")
		}
		ratio := float64(n) / float64(r.Requests)
		detail := fmt.Sprintf("%s is %s (%d of %d)", subject, fmtPct(ratio), n, r.Requests)
		if compare(ratio, e.Op, e.Ratio) {
			return ok(name, detail)
		}
		return failed(name, detail+fmt.Sprintf(", want %s %s", e.Op, fmtPct(e.Ratio)))
	}
	detail := fmt.Sprintf("%s is %d", subject, n)
	if compare(float64(n), e.Op, float64(e.Count)) {
		return ok(name, detail)
	}
	return failed(name, detail+fmt.Sprintf(", want %s %d", e.Op, e.Count))
}

func fmtPct(f float64) string {
	p := f * 100
	if p == math.Trunc(p) {
		return fmt.Sprintf("%.0f%%", p)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", p), "0"), ".") + "%"
}

// FormatDuration prints a duration at a precision people read: 3 significant
// digits, µs/ms/s as fits.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return trimFloat(float64(d)/float64(time.Microsecond)) + "µs"
	case d < time.Second:
		return trimFloat(float64(d)/float64(time.Millisecond)) + "ms"
	case d < time.Minute:
		return trimFloat(d.Seconds()) + "s"
	}
	return d.Round(100 * time.Millisecond).String()
}

func trimFloat(f float64) string {
	var s string
	switch {
	case f >= 100:
		s = fmt.Sprintf("%.0f", f)
	case f >= 10:
		s = fmt.Sprintf("%.1f", f)
	default:
		s = fmt.Sprintf("%.2f", f)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// CheckWaitMatchesBudgetExhausted compares the router's wait histogram with
// the probe's budget_exhausted answers.
const CheckWaitMatchesBudgetExhausted = "wait_matches_budget_exhausted"

// checkWaitMatchesBudgetExhausted: every budget_exhausted answer was a park
// that ended, so the wait histogram grew by as many under the label budget_exhausted
// (sim router's default model), or by at least as many under PR #221's
// label error: agent-substrate/substrate at 4a8f978b records budget
// exhaustion as outcome="error" together with other failed resumes
// (parkOutcomeError, cmd/atenet/internal/router/parking.go).
func (r *Report) checkWaitMatchesBudgetExhausted() Check {
	m := r.Metrics
	if m == nil {
		return skipped(CheckWaitMatchesBudgetExhausted, r.say("no {MetricsURL}"))
	}
	if r.Dataplane() == DataplaneAgentgateway {
		return skipped(CheckWaitMatchesBudgetExhausted, "not judged: the dataplane (agentgateway) has no parking_wait histogram")
	}
	if m.Before == nil || m.After == nil {
		return skipped(CheckWaitMatchesBudgetExhausted, "a scrape before or after the run failed")
	}
	be := r.Count(BudgetExhausted)
	seed := m.WaitDelta["budget_exhausted"].Count
	pr := m.WaitDelta["error"].Count
	switch {
	case be == 0 && seed == 0:
		return skipped(CheckWaitMatchesBudgetExhausted, "no budget_exhausted answers")
	case seed > 0 || m.WaitBudgetLabel == "budget_exhausted":
		if seed != float64(be) {
			return failed(CheckWaitMatchesBudgetExhausted, fmt.Sprintf(`parking_wait{outcome="budget_exhausted"} grew by %s but the probe saw %d budget_exhausted answers`, formatFloat(seed), be))
		}
		return ok(CheckWaitMatchesBudgetExhausted, fmt.Sprintf(`parking_wait{outcome="budget_exhausted"} grew by %s, as many as budget_exhausted answers`, formatFloat(seed)))
	case pr >= float64(be):
		return ok(CheckWaitMatchesBudgetExhausted, fmt.Sprintf(`parking_wait{outcome="error"} grew by %s, at least the %d budget_exhausted answers (judged as at least: PR #221's label for a spent budget also counts %s)`, formatFloat(pr), be, r.sharedErrorLabel()))
	case pr > 0:
		return failed(CheckWaitMatchesBudgetExhausted, fmt.Sprintf(`parking_wait{outcome="error"} grew by %s, fewer than the %d budget_exhausted answers it must at least count (PR #221's label for a spent budget, which also counts %s)`, formatFloat(pr), be, r.sharedErrorLabel()))
	}
	return failed(CheckWaitMatchesBudgetExhausted, fmt.Sprintf("the probe saw %d budget_exhausted answers but the router recorded no parking wait (no parking_wait series grew): it refused without parking", be))
}

// sharedErrorLabel says what else PR #221 records as outcome="error":
// every resume that failed without being retried, NotFound, Unauthenticated
// and PermissionDenied among them (parkOutcomeError,
// cmd/atenet/internal/router/parking.go at 4a8f978b), with how many such
// answers the probe saw, so a reader can tell how loose the bound is.
func (r *Report) sharedErrorLabel() string {
	n := r.Count(NotFound) + r.Count(Unauthenticated) + r.Count(PermissionDenied)
	return fmt.Sprintf("NotFound, 401 and 403 failures; the probe saw %d not_found, unauthenticated or permission_denied answers", n)
}

// ErrChecksFailed is returned (wrapped) when a run or a merge made a report
// and one or more of its checks failed; the command maps it to exit code 3.
var ErrChecksFailed = errors.New("one or more checks failed")
