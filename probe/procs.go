package probe

import (
	"math"
	"os"
	"runtime"
)

// An open run's work is mostly waking up: the dispatcher wakes for each
// due time, a sender for each answer. With a P more than that work needs,
// the runtime wakes a second thread for nearly every hand-off (a spinning
// M that finds nothing, or steals the goroutine after a 3 µs sleep) and
// the process pays a context switch each time. Against bench/hello on
// two cores, one P instead of two cost 3-45 % less CPU per request from
// 2,000 to 20,000/s with a lower or equal send lateness p99; at 24,000/s
// one P, then about 80 % busy, fell behind once in two runs
// (bench/results-probe.md, issue 15, session 7). So an open run keeps one
// P per openRatePerP of its rate, unless the user set GOMAXPROCS.
const openRatePerP = 20000

// procsForRate is the number of Ps an open run sending rate requests a
// second keeps: at least one, at most limit.
func procsForRate(rate float64, limit int) int {
	n := math.Ceil(rate / openRatePerP)
	if !(n < float64(limit)) { // NaN and +Inf too
		return max(limit, 1)
	}
	return max(int(n), 1)
}

var procClaims runClaims

// tuneProcsForSchedule lowers GOMAXPROCS to what an open run of rate
// requests a second needs, unless the user set GOMAXPROCS, and returns
// what ends the run's claim on it (runClaims, as for the collector).
func tuneProcsForSchedule(rate float64) (restore func()) {
	return procClaims.claim(func() func() {
		procs := runtime.GOMAXPROCS(0)
		n := procsForRate(rate, procs)
		if os.Getenv("GOMAXPROCS") != "" || n >= procs {
			return nil
		}
		runtime.GOMAXPROCS(n)
		// Back to the runtime's own choice, which follows the CPU limit
		// of a container as it changes.
		return runtime.SetDefaultGOMAXPROCS
	})
}
