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

// checkParked: a capacity refusal that came at once was never parked:
// the router gave up on the actor without waiting out its budget. A 429
// "rate limited" at once is one too: a dataplane that does not retry
// ResourceExhausted (agentgateway before it added the code to its retry
// set, or with parking off; PR #221) answers ateapi's full pool so, and
// parking never engages.
func (r *Report) checkParked(cfg CheckConfig) Check {
	at, be := r.Count(Unavailable), r.Count(BudgetExhausted)
	rl := r.rateLimitedAtOnce(cfg)
	if at+be+rl == 0 {
		return skipped(CheckParked, "no capacity refusals (budget_exhausted, unavailable, or rate_limited at once)")
	}
	if rl > 0 {
		also := ""
		if at > 0 {
			also = fmt.Sprintf("; and %d unavailable came at once (%s)", at, r.TopDetail(Unavailable))
		}
		return failed(CheckParked, fmt.Sprintf("the dataplane answered 429 at once: parking did not engage (%d of %d capacity refusals were 429 rate limited under half the park budget %s: a ResourceExhausted it does not retry%s)",
			rl, at+be+rl, BudgetPhrase(cfg), also))
	}
	if at > 0 {
		fastest := ""
		if s := r.Stats(Unavailable); s.lat != nil {
			fastest = ", fastest " + FormatDuration(usDuration(s.lat.Min()))
		}
		return failed(CheckParked, fmt.Sprintf("%d of %d capacity refusals came at once, under half the park budget %s (%s%s): the router did not park them",
			at, at+be, BudgetPhrase(cfg), r.TopDetail(Unavailable), fastest))
	}
	f := r.Flights
	if f != nil && f.Flights > 0 && f.FastestFirstSeconds > 0 {
		return ok(CheckParked, fmt.Sprintf("all %d capacity refusals came after at least half the park budget %s (%d flights; fastest first refusal %s)",
			be, BudgetPhrase(cfg), f.Flights, FormatDuration(time.Duration(f.FastestFirstSeconds*float64(time.Second)))))
	}
	return ok(CheckParked, fmt.Sprintf("all %d capacity refusals came after at least half the park budget %s", be, BudgetPhrase(cfg)))
}

// rateLimitedAtOnce counts the rate_limited answers that came in under
// half the park budget, from the request's write where it is known.
func (r *Report) rateLimitedAtOnce(cfg CheckConfig) int64 {
	s := r.Stats(RateLimited)
	if s.Count == 0 {
		return 0
	}
	lat, svc, err := s.Histograms()
	if err != nil {
		return 0
	}
	h := svc
	if h == nil {
		h = lat
	}
	if h == nil {
		return 0
	}
	return countBelow(h, cfg.Budget/2)
}

// BudgetPhrase names the park budget and where it came from, so a
// verdict built on an assumed budget says so.
func BudgetPhrase(cfg CheckConfig) string {
	switch cfg.BudgetSource {
	case BudgetStatusz:
		return FormatDuration(cfg.Budget) + " (the router's statusz max_wait)"
	case BudgetGiven:
		return FormatDuration(cfg.Budget) + " (as given)"
	}
	return FormatDuration(cfg.Budget) + " (assumed: no budget given and none read from statusz)"
}

// parkingPathOutcomes are answers only a router that tried to route the
// request to its actor gives.
var parkingPathOutcomes = []Outcome{Served, Shed, BudgetExhausted}

// routerOnlyOutcomes are answers whose body only the atenet router
// writes: Classify gives them only for an `actor <id> …` or `error
// resuming actor <id>` body.
var routerOnlyOutcomes = []Outcome{Shed, BudgetExhausted, Unavailable, DeadlineExceeded, ResumeError, RateLimited, RoutingFailed}

// notARouter starts reached_parking's verdict on a target nothing
// identified as a Substrate dataplane.
const notARouter = "nothing identified the target as a Substrate dataplane (the atenet router or agentgateway)"

// RouterEvidence says what identified the target as a Substrate
// dataplane, or "" when nothing did. Evidence is: a /metrics scrape with
// the atenet router's series (atenet_router_*, or its otel_scope_name or
// service_name "atenet-router") or agentgateway's Substrate families
// (agentgateway_substrate_*, agentgateway_atenet_router_*); a /statusz
// with a parking card, or the router's own statusz keys without one; or
// an answer whose body only a Substrate dataplane writes (`actor <id> …`,
// `error resuming actor <id>`, `invalid host "<h>": …`, `invalid
// "<header>": …`). A 2xx, a bare status or a Server: envoy header is not:
// any server sends those.
func (r *Report) RouterEvidence() string {
	if m := r.Metrics; m != nil {
		if r.Dataplane() == DataplaneAgentgateway {
			return "its /metrics has agentgateway's Substrate series"
		}
		for _, s := range []*RouterMetrics{m.Before, m.After} {
			if s != nil && (s.AtenetRouter || s.ParkingActive != nil || s.ParkingRejectedTotal != nil || len(s.ParkingWait) > 0) {
				return "its /metrics has the atenet router's series"
			}
		}
	}
	if s := r.Statusz; s != nil && (s.Before != nil || s.After != nil || s.NoParkingCard) {
		return "its /statusz is the atenet router's"
	}
	var n int64
	for _, o := range routerOnlyOutcomes {
		n += r.Count(o)
	}
	if st := r.Outcomes[NotFound.String()]; st != nil {
		for d, c := range st.Details {
			if strings.HasPrefix(d, "invalid host") || strings.HasPrefix(d, "invalid header") || strings.HasPrefix(d, "the router's") {
				n += c
			}
		}
	}
	if n > 0 {
		return fmt.Sprintf("%d answers carry bodies only a Substrate dataplane writes", n)
	}
	return ""
}

// parkingOnEvidence says what the run saw of parking, for a parking=…
// expectation.
func (r *Report) parkingOnEvidence() string {
	if r.Statusz != nil {
		for _, p := range []*StatuszParking{r.Statusz.Before, r.Statusz.After} {
			if p != nil && p.Enabled != nil && *p.Enabled {
				return "its statusz says enabled: true"
			}
		}
	}
	if n := r.Count(BudgetExhausted); n > 0 {
		return fmt.Sprintf("%d capacity refusals came after the park budget", n)
	}
	return "no statusz card and no capacity refusal either way"
}

// checkReachedParking: a run in which no request reached the parking path
// (all invalid host, all timeouts, nothing answered), or whose target
// nothing identified as a router, proves nothing, so it fails rather than
// letting the other checks pass vacuously.
func (r *Report) checkReachedParking() Check {
	if r.Requests == 0 {
		return failed(CheckReachedParking, "no request was sent")
	}
	if r.RouterEvidence() == "" && r.Count(TransportError)+r.Count(ClientTimeout) < r.Requests {
		return failed(CheckReachedParking, r.say("%s: no {MetricsURL} or {StatuszURL} answered as one, and no answer carried a body only one writes (`actor <id> …`, `error resuming actor <id>`, `invalid host …`, `invalid \"<header>\": …`); %s", notARouter, r.answersSummary()))
	}
	var n int64
	for _, o := range parkingPathOutcomes {
		n += r.Count(o)
	}
	if nf := r.Count(NotFound); n > 0 && float64(nf) > MaxNotFoundShare*float64(r.Requests) {
		// A run of --actors 200 against sim router's 100 once got 52%
		// not_found and passed every check: half the load never reached
		// an actor, which says nothing of parking.
		return failed(CheckReachedParking, fmt.Sprintf("%d of %d answers (%s) were not_found, more than %s: %s",
			nf, r.Requests, fmtPct(float64(nf)/float64(r.Requests)), fmtPct(MaxNotFoundShare), r.notFoundCause()))
	}
	if n > 0 {
		return ok(CheckReachedParking, fmt.Sprintf("%d of %d answers came from the parking path (served, shed or budget_exhausted); %s", n, r.Requests, r.RouterEvidence()))
	}
	top, topN := r.topOutcome()
	hint := ""
	switch top {
	case NotFound:
		hint = ": " + r.notFoundCause()
	case ClientTimeout, TransportError:
		hint = " (the router answered nothing)"
	}
	detail := fmt.Sprintf("no request reached the parking path: %d of %d were %s", topN, r.Requests, top)
	if d := r.TopDetail(top); d != "" && top != NotFound {
		detail += " (" + d + ")"
	}
	return failed(CheckReachedParking, detail+hint)
}

func (r *Report) topOutcome() (Outcome, int64) {
	top, topN := Other, int64(-1)
	for _, o := range AllOutcomes() {
		if c := r.Count(o); c > topN {
			top, topN = o, c
		}
	}
	return top, topN
}

// answersSummary names the run's most frequent answer.
func (r *Report) answersSummary() string {
	top, n := r.topOutcome()
	s := fmt.Sprintf("%d of %d answers were %s", n, r.Requests, top)
	if d := r.TopDetail(top); d != "" {
		s += " (" + d + ")"
	}
	return s
}

// MaxNotFoundShare is the most not_found answers reached_parking lets pass
// as a share of the requests: a few unknown actors may be meant, a fifth is
// a load aimed wrong.
const MaxNotFoundShare = 0.2

// notFoundCause names the likely reason for many not_found answers from
// the router's own words, and the flag to change.
func (r *Report) notFoundCause() string {
	d := r.TopDetail(NotFound)
	headerAddressed := strings.Contains(r.Load.Addressing, "header ")
	switch {
	case strings.HasPrefix(d, "invalid header "):
		// The router after substrate #1333 and agentgateway after #3409:
		// `invalid "ate-target-actor": expected <atespace>/<actor>`.
		name, _, _ := strings.Cut(strings.TrimPrefix(d, "invalid header "), ":")
		switch {
		case strings.Contains(r.Load.Addressing, "header "+name+":"):
			return r.say("an addressing problem: the dataplane cannot read the actor from the %s header sent (%s): check that -H value (or {Addressing}) and {Atespace}", name, d)
		case name == "ate-target-actor":
			return r.say("an addressing problem: the dataplane reads the actor from the %s header, not from where it was sent (%s): use {Addressing} ate-target-actor (or -H 'ate-target-actor: {atespace}/{actor}')", name, d)
		}
		return "an addressing problem: the dataplane reads the actor from the " + name + " header (" + d + "): send it with -H '" + name + ": …' ({actor} and {atespace} expand)"
	case strings.HasPrefix(d, "invalid host") && headerAddressed && !strings.Contains(r.Load.Addressing, "host "):
		return r.say("a Host problem: the dataplane reads the actor from the Host, not a header (%s): use {Addressing} atespace (or {HostTemplate})", d)
	case strings.Contains(d, "<atespace>"):
		// 6210ad86 and later: `expected <actor_name>.<atespace>.actors…`.
		return r.say("a Host problem: the router wants the atespace in the Host (%s): change {HostTemplate} to '{actor}.{atespace}.actors.resources.substrate.ate.dev' (the default) and name the atespace with {Atespace}", d)
	case strings.Contains(d, "invalid actor_id"):
		// PR #221: no atespace in the Host.
		return r.say("a Host problem: the router does not read the Host as an actor's (%s): change {HostTemplate} (PR #221 wants '{actor}.actors.resources.substrate.ate.dev', {HostTemplate} pr221)", d)
	case strings.HasPrefix(d, "invalid host"):
		return r.say("a Host problem: the router cannot read the Host (%s): change {HostTemplate} or {Atespace}", d)
	case r.Count(NotFound) == r.Requests:
		return r.say("the router knows none of the actors: check {Atespace}, the actor names and the Host form ({HostTemplate})")
	}
	return r.say("the router does not know some of the %d actors: check {ActorCount} (or {ActorsFile}) against the actors the router has, and {Atespace}", r.Load.Actors)
}
