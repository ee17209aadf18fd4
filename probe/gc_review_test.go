package probe

import (
	"runtime/debug"
	"testing"
)

// Two open runs in one process (shards run in-process, as runSharded does,
// or any program calling Run twice at once) each save the settings they
// find and put them back when they end. When the first run ends first, it
// puts the defaults back under the second, still running; the second then
// "restores" the first's GOGC=400 and 512 MiB limit, which the process
// keeps for good.
func TestOverlappingOpenRunsRestoreTheProcessGCSettings(t *testing.T) {
	unsetenv(t, "GOGC")
	unsetenv(t, "GOMEMLIMIT")
	before := gogc()
	limitBefore := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(int(before))
		debug.SetMemoryLimit(limitBefore)
	})
	if before == openGCPercent {
		t.Skip("the process already runs at the open runs' GOGC")
	}

	restoreA := tuneGCForSchedule() // run A starts
	restoreB := tuneGCForSchedule() // run B starts while A runs
	restoreA()                      // A ends first
	if got := gogc(); got != openGCPercent {
		t.Errorf("GOGC %d while run B's schedule still runs, want %d", got, openGCPercent)
	}
	restoreB() // B ends: no run is left
	if got, limit := gogc(), debug.SetMemoryLimit(-1); got != before || limit != limitBefore {
		t.Errorf("after both runs ended: GOGC %d, memory limit %d; want %d and %d as before them", got, limit, before, limitBefore)
	}
}
