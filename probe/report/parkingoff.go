package report

import (
	"fmt"
	"slices"
	"strings"
)

// ParkingOff reports whether the router parks nothing, and why: its
// statusz said so (enabled: false; agent-substrate/substrate 6210ad86 with
// --parked-request-max=0, PR #221 with --parking-enabled=false), its
// statusz has no parking card (main 86e138f6, which never parks), or its
// capacity refusals came at once and none after the budget. A router so
// configured answers a full pool at once with the same 503 a parking
// router sends when the budget ends, exports no parking series and may
// still show a configured lot and max_wait on its card.
func (r *Report) ParkingOff() bool { return r.parkingOffReason() != "" }

// parkingOffReason says what showed parking is off, or "".
func (r *Report) parkingOffReason() string {
	if r.Statusz != nil {
		for _, p := range []*StatuszParking{r.Statusz.Before, r.Statusz.After} {
			if p != nil && p.Enabled != nil && !*p.Enabled {
				return "its statusz says enabled: false"
			}
		}
		if r.Statusz.NoParkingCard {
			return "its statusz has no parking card"
		}
	}
	if n := r.capacityAtOnce(); n > 0 && r.Count(BudgetExhausted) == 0 {
		return fmt.Sprintf("%d capacity refusals (%s) came at once and none after the park budget", n, r.TopDetail(Unavailable))
	}
	return ""
}

// capacityAtOnce counts the unavailable answers that carried a reason
// after "unavailable:" (a full pool, a conflict): refusals a parking router
// holds for its budget. A bare "actor … unavailable" at once is ateapi's
// Unavailable, which PR #221 does not park even with parking on.
func (r *Report) capacityAtOnce() int64 {
	s := r.Outcomes[Unavailable.String()]
	if s == nil {
		return 0
	}
	var n int64
	for d, c := range s.Details {
		if strings.HasPrefix(d, "unavailable:") {
			n += c
		}
	}
	return n
}

// parkingOffChecks cannot be judged against a router whose parking is
// off: there is no budget to bound (the statusz max_wait is the configured
// one, never applied), no lot to reject from, no parked count to drain, no
// park to wait in, and every refusal comes at once by configuration.
var parkingOffChecks = []string{
	CheckBudgetBound,
	CheckRejectedMatchesShed,
	CheckActiveDrains,
	CheckWaitMatchesBudgetExhausted,
	CheckParked,
}

// judgeParkingOff, when the router parks nothing, marks the checks that
// need parking as not judged, saying why, and fails reached_parking:
// parking off is a finding, not a pass. When the user said parking is
// meant to be off (--expect parking=off), reached_parking is not judged
// either.
func (r *Report) judgeParkingOff(cfg CheckConfig) {
	why := r.parkingOffReason()
	if why == "" {
		return
	}
	expected := cfg.ParkingExpected() == ParkingOffWord
	for i, c := range r.Checks {
		switch {
		case slices.Contains(parkingOffChecks, c.Name):
			r.Checks[i] = skipped(c.Name, fmt.Sprintf("not judged: parking is off on the router (%s): %s", why, parkingOffReason[c.Name]))
		case c.Name == CheckReachedParking && expected:
			r.Checks[i] = skipped(c.Name, fmt.Sprintf("not judged: parking is off on the router (%s), as expected", why))
		case c.Name == CheckReachedParking && !strings.HasPrefix(c.Detail, notARouter):
			r.Checks[i] = failed(c.Name, r.say("parking is disabled on the router: %s; nothing parked, so the run says nothing of parking (say {Checks.Expect} parking=off if that is meant)", why))
		}
	}
}

var parkingOffReason = map[string]string{
	CheckBudgetBound:                "it parks nothing, so no park budget applies",
	CheckRejectedMatchesShed:        "it has no lot to reject from and exports no parking_rejected",
	CheckActiveDrains:               "it parks nothing, so parking_active has nothing to drain",
	CheckWaitMatchesBudgetExhausted: "it parks nothing and records no parking_wait",
	CheckParked:                     "its refusals come at once by configuration",
}
