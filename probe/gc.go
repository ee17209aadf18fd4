package probe

import (
	"os"
	"runtime/debug"
)

// An open run's schedule is what its lateness check measures, and the
// garbage collector is what disturbs it most on two cores: each cycle's
// concurrent mark holds one of the two Ps for 1-3 ms, and at 20,000/s
// the default GOGC=100 ran 23 cycles in 5 s, about 1 % of the run, the
// very window of the p99. GOGC=400 ran 5: send lateness p99 fell from
// 1.6-3.9 ms to 1.2-3.3 ms over four pairs of runs at 20,000 and
// 24,000/s (bench/results-probe.md, session 5). The memory limit keeps a
// run that parks many requests from growing its heap fivefold: near it,
// the collector runs as often as it must.
const (
	openGCPercent   = 400
	openMemoryLimit = 512 << 20
)

// tuneGCForSchedule sets the collector for an open run unless the user
// set GOGC or GOMEMLIMIT, and returns what restores the settings before.
func tuneGCForSchedule() (restore func()) {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return func() {}
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return func() {}
	}
	percent := debug.SetGCPercent(openGCPercent)
	limit := debug.SetMemoryLimit(-1)
	if limit > openMemoryLimit {
		debug.SetMemoryLimit(openMemoryLimit)
	}
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
