package probe

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"
)

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// openRunGOGC runs a short open run and returns the GOGC it saw while the
// load ran, and after.
func openRunGOGC(t *testing.T) (during, after int64) {
	t.Helper()
	srv := kindServer(t)
	var seen atomic.Int64
	_, err := Run(context.Background(), Options{
		Target: srv.URL, Mode: Open, Rate: 50, Duration: 1500 * time.Millisecond, Seed: 1,
		Actors:   []string{"served"},
		Progress: func(Progress) { seen.Store(gogc()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Load() == 0 {
		t.Fatal("no progress during the run")
	}
	return seen.Load(), gogc()
}

// An open run collects garbage less often while its schedule runs (the
// collector's mark is what disturbs the schedule most), and puts the
// setting back afterwards.
func TestOpenRunRaisesGOGCForItsSchedule(t *testing.T) {
	unsetenv(t, "GOGC")
	unsetenv(t, "GOMEMLIMIT")
	before := gogc()
	during, after := openRunGOGC(t)
	if during != openGCPercent || after != before {
		t.Errorf("GOGC %d before, %d during, %d after the run; want %d during, then %d again", before, during, after, openGCPercent, before)
	}
}

// A GOGC the user set is the user's choice.
func TestOpenRunKeepsTheUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	before := gogc()
	if during, _ := openRunGOGC(t); during != before {
		t.Errorf("GOGC %d during the run, want the user's %d", during, before)
	}
}

// unsetenv removes k for the test and restores it after.
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	os.Unsetenv(k)
}

// An empty GOGC is the runtime's default, as if unset: the run tunes.
func TestOpenRunTreatsAnEmptyGOGCAsUnset(t *testing.T) {
	t.Setenv("GOGC", "")
	unsetenv(t, "GOMEMLIMIT")
	if during, _ := openRunGOGC(t); during != openGCPercent {
		t.Errorf("GOGC %d during the run with GOGC set empty, want %d", during, openGCPercent)
	}
}

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
