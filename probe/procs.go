package probe

import (
	"math"
	"os"
	"runtime"
	"sync"
)

// An open run's work is mostly waking up: the dispatcher wakes for each
// due time, a sender for each answer. With a P more than that work needs,
// the runtime wakes a second thread for nearly every hand-off (a spinning
// M that finds nothing, or steals the goroutine after a 3 µs sleep) and
// the process pays a context switch each time. Against bench/hello on
// two cores, one P instead of two cost 10-45 % less CPU per request from
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

// procTuning counts the open runs in the process, as gcTuning does: the
// first sets the number of Ps, the last to end gives the runtime back
// its default.
var procTuning struct {
	sync.Mutex
	runs  int
	tuned bool
}

// tuneProcsForSchedule lowers GOMAXPROCS to what an open run of rate
// requests a second needs, unless the user set GOMAXPROCS, and returns
// what ends the run's claim on it.
func tuneProcsForSchedule(rate float64) (restore func()) {
	t := &procTuning
	t.Lock()
	defer t.Unlock()
	if t.runs == 0 && os.Getenv("GOMAXPROCS") == "" {
		if n := procsForRate(rate, runtime.GOMAXPROCS(0)); n < runtime.GOMAXPROCS(0) {
			runtime.GOMAXPROCS(n)
			t.tuned = true
		}
	}
	t.runs++
	return sync.OnceFunc(func() {
		t.Lock()
		defer t.Unlock()
		if t.runs--; t.runs == 0 && t.tuned {
			t.tuned = false
			// Back to the runtime's own choice, which follows the
			// CPU limit of a container as it changes.
			runtime.SetDefaultGOMAXPROCS()
		}
	})
}
