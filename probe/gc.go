package probe

import (
	"os"
	"runtime/debug"
	"sync"
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

// runClaims counts the open runs in the process that claim one
// process-wide setting: the settings are the process's, so the first run
// to start sets it and the last to end puts back what the first found
// (shards can run in one process).
type runClaims struct {
	sync.Mutex
	runs int
	undo func()
}

// claim counts a run in. The first run's apply makes the setting and
// returns what undoes it (nil when it left things alone); release counts
// the run out, once however often it is called, and the last to leave
// runs the undo.
func (c *runClaims) claim(apply func() (undo func())) (release func()) {
	c.Lock()
	defer c.Unlock()
	if c.runs == 0 {
		c.undo = apply()
	}
	c.runs++
	return sync.OnceFunc(func() {
		c.Lock()
		defer c.Unlock()
		if c.runs--; c.runs == 0 && c.undo != nil {
			c.undo()
			c.undo = nil
		}
	})
}

var gcClaims runClaims

// tuneGCForSchedule sets the collector for an open run unless the user
// set GOGC or GOMEMLIMIT, and returns what ends the run's claim on it.
func tuneGCForSchedule() (restore func()) {
	return gcClaims.claim(func() func() {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
			// An empty GOGC or GOMEMLIMIT is the runtime's default, as unset.
			return nil
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
	})
}
