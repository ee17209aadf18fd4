package report

import (
	"fmt"
	"strings"
	"time"
)

// FlightStats is the per-actor flight analysis behind the parked check. A
// flight is a set of requests to one actor whose lifetimes overlap: a
// parking router resumes the actor once for all of them (singleflight), so
// the flight's FIRST request waits out the whole budget before a
// budget_exhausted answer, while late joiners may see a short one. A router
// that does not park (atenet main 86e138f6) refuses the first request at once.
type FlightStats struct {
	// Flights is the number of flights (of served and budget_exhausted
	// requests) with a budget_exhausted answer.
	Flights int64 `json:"flights"`
	// RefusedEarly counts those whose first request was refused in less than
	// half the park budget.
	RefusedEarly int64 `json:"refused_early"`
	// FastestFirstSeconds is the quickest budget_exhausted answer to a
	// flight's first request (0 when no first request was refused).
	FastestFirstSeconds float64 `json:"fastest_first_seconds"`
	// Unrecorded counts requests beyond the analysis' memory bound.
	Unrecorded int64 `json:"unrecorded,omitempty"`
}

// CheckParked and CheckReachedParking guard against verdicts that prove
// nothing.
const (
	CheckParked         = "parked"
	CheckReachedParking = "reached_parking"
)

// checkParked: a flight's first request refused with "no free workers
// available" well inside the budget was never parked.
func (r *Report) checkParked(cfg CheckConfig) Check {
	f := r.Flights
	if r.Count(BudgetExhausted) == 0 {
		return skipped(CheckParked, "no budget_exhausted answers")
	}
	if f == nil || f.Flights == 0 {
		return skipped(CheckParked, "no per-actor flight records")
	}
	if f.RefusedEarly > 0 {
		return failed(CheckParked, fmt.Sprintf("%d of %d flights' first request was refused (no free workers available) in %s, well inside the park budget %s: the router did not park (atenet main fails fast; is parking enabled?)",
			f.RefusedEarly, f.Flights, FormatDuration(time.Duration(f.FastestFirstSeconds*float64(time.Second))), FormatDuration(cfg.Budget)))
	}
	if f.FastestFirstSeconds == 0 {
		return ok(CheckParked, fmt.Sprintf("%d flights had budget_exhausted answers, all to late joiners", f.Flights))
	}
	return ok(CheckParked, fmt.Sprintf("no first request of the %d refused flights was refused before half the budget %s (fastest %s)",
		f.Flights, FormatDuration(cfg.Budget), FormatDuration(time.Duration(f.FastestFirstSeconds*float64(time.Second)))))
}

// parkingPathOutcomes are answers only a router that tried to route the
// request to its actor gives.
var parkingPathOutcomes = []Outcome{Served, Shed, BudgetExhausted}

// checkReachedParking: a run in which no request reached the parking path
// (all invalid host, all timeouts, nothing answered) proves nothing, so it
// fails rather than letting the other checks pass vacuously.
func (r *Report) checkReachedParking() Check {
	if r.Requests == 0 {
		return failed(CheckReachedParking, "no request was sent")
	}
	var n int64
	for _, o := range parkingPathOutcomes {
		n += r.Count(o)
	}
	if nf := r.Count(NotFound); n > 0 && float64(nf) > MaxNotFoundShare*float64(r.Requests) {
		// The README's first example (--actors 200 against sim router's
		// 100) got 52% not_found and passed every check (issue 28, item
		// 12): half the load never reached an actor, which says nothing
		// of parking.
		return failed(CheckReachedParking, fmt.Sprintf("%d of %d answers (%s) were not_found, more than %s: %s",
			nf, r.Requests, fmtPct(float64(nf)/float64(r.Requests)), fmtPct(MaxNotFoundShare), r.notFoundCause()))
	}
	if n > 0 {
		return ok(CheckReachedParking, fmt.Sprintf("%d of %d answers came from the parking path (served, shed or budget_exhausted)", n, r.Requests))
	}
	top, topN := Other, int64(-1)
	for _, o := range AllOutcomes() {
		if c := r.Count(o); c > topN {
			top, topN = o, c
		}
	}
	hint := ""
	switch top {
	case NotFound:
		hint = " (a 404 `invalid host` means the Host form is wrong: PR #221 wants --host-template '{actor}.actors.resources.substrate.ate.dev')"
	case ClientTimeout, TransportError:
		hint = " (the router answered nothing)"
	}
	detail := fmt.Sprintf("no request reached the parking path: %d of %d were %s", topN, r.Requests, top)
	if d := r.TopDetail(top); d != "" {
		detail += " (" + d + ")"
	}
	return failed(CheckReachedParking, detail+hint)
}

// MaxNotFoundShare is the most not_found answers reached_parking lets pass
// as a share of the requests: a few unknown actors may be meant, a fifth is
// a load aimed wrong.
const MaxNotFoundShare = 0.2

// notFoundCause names the likely reason for many not_found answers from
// the router's own words.
func (r *Report) notFoundCause() string {
	d := r.TopDetail(NotFound)
	switch {
	case strings.Contains(d, "invalid host"):
		return "the router does not read the Host header as an actor's (" + d + "): check --host-template (PR #221 wants '{actor}.actors.resources.substrate.ate.dev') or --atespace"
	case r.Count(NotFound) == r.Requests:
		return "the router knows none of the actors: check --atespace, the actor names and the Host form (--host-template)"
	}
	return fmt.Sprintf("the router does not know some of the %d actors: check --actors (or --actors-file) against the actors the router has, and --atespace", r.Load.Actors)
}
