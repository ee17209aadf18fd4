package report

import (
	"fmt"
	"slices"
)

// ParkingOff reports whether the router's statusz said parking is off
// (enabled: false), before the run or after it. A router so configured
// parks nothing: agent-substrate/substrate PR #221 at 4a8f978b with
// --parking-enabled=false fails a saturated pool at once, exports no
// parking series (OpenTelemetry exports an instrument only once used) and
// still shows its configured lot and max_wait on the card. A router with
// no parking card at all (main, 86e138f6) is NoParkingCard, not this: it
// was never configured to park, and the parked check is what proves it.
func (r *Report) ParkingOff() bool {
	if r.Statusz == nil {
		return false
	}
	for _, p := range []*StatuszParking{r.Statusz.Before, r.Statusz.After} {
		if p != nil && p.Enabled != nil && !*p.Enabled {
			return true
		}
	}
	return false
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

// skipWhenParkingOff marks the checks that a router with parking off
// cannot be judged on as skipped, saying why, rather than failing them on
// series it never exports or passing them on a budget it never applies.
func (r *Report) skipWhenParkingOff() {
	if !r.ParkingOff() {
		return
	}
	for i, c := range r.Checks {
		if slices.Contains(parkingOffChecks, c.Name) {
			r.Checks[i] = skipped(c.Name, fmt.Sprintf("parking is off on the router (statusz enabled: false): %s", parkingOffReason[c.Name]))
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
