package probe

import (
	"testing"
	"time"
)

// Shards started from one command line in pods of different time zones
// derive the same seed from --start-at, and a different start a different
// one, within the 31 bits a random seed has.
func TestSeedFromStartAtIsTheSameInEveryZone(t *testing.T) {
	at := time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)
	other := at.In(time.FixedZone("UTC+5", 5*3600))
	if a, b := SeedFromStartAt(at), SeedFromStartAt(other); a != b {
		t.Errorf("same instant, seeds %d and %d", a, b)
	}
	if SeedFromStartAt(at) == SeedFromStartAt(at.Add(time.Second)) {
		t.Error("starts a second apart share a seed")
	}
	if s := SeedFromStartAt(at); s >= 1<<31 {
		t.Errorf("seed %d is wider than 31 bits", s)
	}
}

// Each shard holds its share of the load; in open mode no more than its
// rate can hold within the per-request timeout.
func TestInFlightPerShard(t *testing.T) {
	cases := []struct {
		name   string
		o      Options
		shards int
		want   int64
	}{
		{"burst rounds up", Options{Mode: Burst, Requests: 10}, 3, 4},
		{"closed splits the workers", Options{Mode: Closed, Concurrency: 8}, 4, 2},
		{"open is bounded by rate × timeout", Options{Mode: Open, Rate: 100, Duration: time.Minute, Timeout: 2 * time.Second}, 4, 50},
		{"open is bounded by its share", Options{Mode: Open, Rate: 10, Duration: time.Second, Timeout: time.Minute}, 2, 5},
	}
	for _, c := range cases {
		if got := c.o.InFlightPerShard(c.shards); got != c.want {
			t.Errorf("%s: %d in flight per shard, want %d", c.name, got, c.want)
		}
	}
}

// kubectl wait is given the start, the load and the last timeout, plus five
// minutes for the pods.
func TestJobWaitTimeout(t *testing.T) {
	burst := Options{Mode: Burst, Timeout: 30 * time.Second}
	if got := burst.JobWaitTimeout(time.Minute); got != 7*time.Minute {
		t.Errorf("burst: %s, want 7m0s", got)
	}
	closed := Options{Mode: Closed, Timeout: 30 * time.Second, Duration: 10 * time.Minute}
	if got := closed.JobWaitTimeout(time.Minute); got != 17*time.Minute {
		t.Errorf("closed: %s, want 17m0s", got)
	}
}
