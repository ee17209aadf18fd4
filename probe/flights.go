package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"cmp"
	"slices"
	"time"
)

// analyseFlights groups events (the shards' records, in any order) by
// actor and overlap and judges each flight's first request against
// budget.
func analyseFlights(shards [][]flightEvent, dropped int64, budget time.Duration) *report.FlightStats {
	fs := &report.FlightStats{Unrecorded: dropped}
	// Only an actor that was refused has a flight to count: the others'
	// requests join no refused flight and are no flight's refused first.
	// So a run without a refusal (most requests of most runs are served)
	// sorts nothing, where sorting every request cost more than a tenth
	// of the probe's instructions per request.
	refused := map[uint32]bool{}
	for _, events := range shards {
		for _, e := range events {
			if refusal(e.outcome) {
				refused[e.actor] = true
			}
		}
	}
	if len(refused) == 0 {
		return fs
	}
	// Of those actors, only requests that joined a flight: served or
	// refused for capacity (budget_exhausted, or unavailable at once). A
	// shed request never entered the lot.
	var events []flightEvent
	for _, shard := range shards {
		for _, e := range shard {
			if refused[e.actor] && (e.outcome == report.Served || refusal(e.outcome)) {
				events = append(events, e)
			}
		}
	}
	countFlights(fs, events, budget)
	return fs
}

// countFlights sorts events (served or refused requests) by actor and
// send, groups each actor's overlapping requests into flights, and counts
// into fs the refused flights, the refused firsts early against budget,
// and the fastest of them.
func countFlights(fs *report.FlightStats, events []flightEvent, budget time.Duration) {
	// A sort without reflection: one record per request, sorted once at
	// the end, is part of what each request costs.
	slices.SortFunc(events, func(a, b flightEvent) int {
		if c := cmp.Compare(a.actor, b.actor); c != 0 {
			return c
		}
		return cmp.Compare(a.sentMs, b.sentMs)
	})
	early := int32(budget / 2 / time.Millisecond)
	fastest := int32(-1)
	for i := 0; i < len(events); {
		first := events[i]
		end := first.doneMs
		refused := refusal(first.outcome)
		j := i + 1
		for j < len(events) && events[j].actor == first.actor && events[j].sentMs <= end {
			end = max(end, events[j].doneMs)
			refused = refused || refusal(events[j].outcome)
			j++
		}
		if refused {
			fs.Flights++
		}
		if refusal(first.outcome) {
			took := first.doneMs - first.sentMs
			if took < early {
				fs.RefusedEarly++
			}
			if fastest < 0 || took < fastest {
				fastest = took
			}
		}
		i = j
	}
	if fastest >= 0 {
		fs.FastestFirstSeconds = float64(fastest) / 1000
	}
}

// refusal reports whether o is a capacity refusal, after the budget or at
// once.
func refusal(o report.Outcome) bool {
	return o == report.BudgetExhausted || o == report.Unavailable
}
