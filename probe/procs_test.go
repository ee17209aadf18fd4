package probe

import (
	"context"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestProcsForRate(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		limit int
		want  int
	}{
		{0.5, 8, 1},
		{2000, 8, 1},
		{20000, 8, 1},
		{20001, 8, 2},
		{50000, 2, 2},
		{1e300, 4, 4},
		{math.Inf(1), 4, 4},
		{math.NaN(), 4, 4},
		{10, 1, 1},
	} {
		if got := procsForRate(c.rate, c.limit); got != c.want {
			t.Errorf("procsForRate(%v, %d) = %d, want %d", c.rate, c.limit, got, c.want)
		}
	}
}

// An open run lowers the Ps to what its rate needs while it runs, and the
// last run to end gives the runtime back its own default; a GOMAXPROCS
// the user set is left alone.
func TestTuneProcsForSchedule(t *testing.T) {
	defer runtime.SetDefaultGOMAXPROCS()
	t.Setenv("GOMAXPROCS", "")
	runtime.GOMAXPROCS(4)
	first := tuneProcsForSchedule(5000)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("during a 5,000/s open run: GOMAXPROCS %d, want 1", got)
	}
	second := tuneProcsForSchedule(90000)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("a second run changed the first's setting: GOMAXPROCS %d", got)
	}
	first()
	first() // ending twice is ending once
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("ended with a run still going: GOMAXPROCS %d, want 1", got)
	}
	second()
	runtime.SetDefaultGOMAXPROCS()
	want := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(4)
	tuneProcsForSchedule(5000)()
	if got := runtime.GOMAXPROCS(0); got != want {
		t.Errorf("after the runs: GOMAXPROCS %d, want the runtime's default %d", got, want)
	}

	t.Setenv("GOMAXPROCS", "3")
	runtime.GOMAXPROCS(3)
	restore := tuneProcsForSchedule(5000)
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("with GOMAXPROCS=3 set by the user: %d during the run", got)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("with GOMAXPROCS=3 set by the user: %d after the run", got)
	}
}

// Run itself keeps one P while a slow open run's schedule runs, and gives
// the runtime its default back afterwards.
func TestOpenRunKeepsThePsItsRateNeeds(t *testing.T) {
	unsetenv(t, "GOMAXPROCS")
	defer runtime.SetDefaultGOMAXPROCS()
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(max(def, 2))
	srv := kindServer(t)
	var seen atomic.Int64
	_, err := Run(context.Background(), Options{
		Target: srv.URL, Mode: Open, Rate: 50, Duration: 1500 * time.Millisecond, Seed: 1,
		Actors:   []string{"served"},
		Progress: func(Progress) { seen.Store(int64(runtime.GOMAXPROCS(0))) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if during, after := seen.Load(), runtime.GOMAXPROCS(0); during != 1 || after != def {
		t.Errorf("GOMAXPROCS %d during a 50/s open run, %d after; want 1, then the default %d", during, after, def)
	}
}
