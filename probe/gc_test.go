package probe

import (
	"context"
	"os"
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
