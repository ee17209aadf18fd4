package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func shardOptions(mode Mode, dist string, shard Shard) Options {
	d, _ := ParseDistribution(dist)
	return Options{
		Target: "http://127.0.0.1:1", Mode: mode, Requests: 1001, Concurrency: 10, Rate: 97, Duration: 3 * time.Second,
		ActorCount: 50, Distribution: d, Seed: 7, Shard: shard,
	}
}

// The shards of one command line send exactly its load, agree on the run
// id, and (uniform) never address the same actor.
func TestShardsSplitTheCommandLine(t *testing.T) {
	const n = 4
	for _, mode := range []Mode{Burst, Closed, Open} {
		whole := shardOptions(mode, "uniform", Shard{})
		if err := whole.validate(); err != nil {
			t.Fatal(err)
		}
		var requests, concurrency int
		ids := map[string]bool{}
		owner := map[int]int{}
		for i := range n {
			o := shardOptions(mode, "uniform", Shard{i, n})
			if err := o.validate(); err != nil {
				t.Fatalf("%s shard %d: %v", mode, i, err)
			}
			requests += o.Requests
			concurrency += o.Concurrency
			ids[o.runID] = true
			index := shardIndex(newPicker(50, o.Distribution, o.Seed), &o)
			for k := range uint64(500) {
				a := index(k)
				if prev, seen := owner[a]; seen && prev != i {
					t.Fatalf("%s: actor %d picked by shards %d and %d", mode, a, prev, i)
				}
				owner[a] = i
			}
		}
		if len(ids) != 1 {
			t.Errorf("%s: the shards computed %d run ids", mode, len(ids))
		}
		if ids[whole.runID] {
			t.Errorf("%s: a sharded run has the unsharded run's id", mode)
		}
		switch mode {
		case Burst:
			if requests != 1001 {
				t.Errorf("burst parts add to %d, want 1001", requests)
			}
		case Closed:
			if concurrency != 10 {
				t.Errorf("closed parts add to %d, want 10", concurrency)
			}
		}
	}
}

// Under a skewed distribution every shard picks as the unsharded run would
// for the same global request, so the union is the unsharded sequence.
func TestSkewedShardsPickLikeTheUnshardedRun(t *testing.T) {
	const n = 3
	whole := shardOptions(Burst, "hot:0.8", Shard{})
	if err := whole.validate(); err != nil {
		t.Fatal(err)
	}
	want := make([]int, whole.Requests)
	wi := shardIndex(newPicker(50, whole.Distribution, whole.Seed), &whole)
	for k := range want {
		want[k] = wi(uint64(k))
	}
	var got []int
	for i := range n {
		o := shardOptions(Burst, "hot:0.8", Shard{i, n})
		if err := o.validate(); err != nil {
			t.Fatal(err)
		}
		index := shardIndex(newPicker(50, o.Distribution, o.Seed), &o)
		for k := range o.Requests {
			got = append(got, index(uint64(k)))
		}
	}
	if !slices.Equal(got, want) {
		t.Error("the shards' hot:0.8 picks are not the unsharded run's")
	}
}

func TestShardsRefuseAnEmptyPart(t *testing.T) {
	o := shardOptions(Burst, "uniform", Shard{0, 3})
	o.Requests = 2
	var oe *OptionError
	if err := o.validate(); !errors.As(err, &oe) {
		t.Errorf("2 requests over 3 shards: %v, want an OptionError", err)
	}
	o = shardOptions(Burst, "uniform", Shard{0, 3})
	o.ActorCount = 2
	if err := o.validate(); !errors.As(err, &oe) {
		t.Errorf("2 uniform actors over 3 shards: %v, want an OptionError", err)
	}
	o = shardOptions(Burst, "zipf:1.1", Shard{0, 3})
	o.ActorCount = 2
	if err := o.validate(); err != nil {
		t.Errorf("2 zipf actors over 3 shards (they share them): %v", err)
	}
	o = shardOptions(Burst, "uniform", Shard{3, 3})
	if err := o.validate(); !errors.As(err, &oe) {
		t.Errorf("shard 3 of 3: %v, want an OptionError", err)
	}
}

// Open shards interleave the one schedule: together they send every slot
// once, each at its unsharded due time.
func TestOpenShardsInterleaveTheSchedule(t *testing.T) {
	const n = 3
	seen := map[uint64]int{}
	for i := range n {
		o := shardOptions(Open, "uniform", Shard{i, n})
		if err := o.validate(); err != nil {
			t.Fatal(err)
		}
		sh := openShape{pacer: o.pacer(), index: func(uint64) int { return 0 }, shard: o.Shard}
		s := recordSends(t, sh)
		for _, k := range s {
			seen[k]++
		}
	}
	if len(seen) != 291 {
		t.Errorf("%d distinct slots sent, want floor(97×3) = 291", len(seen))
	}
	for k, c := range seen {
		if c != 1 || k >= 291 {
			t.Fatalf("slot %d sent %d times", k, c)
		}
	}
}

// recordSends drives an open shape on the virtual clock and returns the
// global request numbers it sent, checking each one's due time.
func recordSends(t *testing.T, sh openShape) []uint64 {
	var out []uint64
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		sh.Drive(context.Background(), &wg, time.Now(), func(time.Time) {}, func(_, k uint64, _ int, _ time.Time, due time.Duration) {
			if want := time.Duration(float64(k) * float64(time.Second) / sh.pacer.Rate()); due != want {
				t.Errorf("request %d due at %s, want %s", k, due, want)
			}
			mu.Lock()
			out = append(out, k)
			mu.Unlock()
		})
		wg.Wait()
	})
	return out
}

func TestTextReportNamesTheShard(t *testing.T) {
	one, late, spread := 1, 0.012, 0.003
	r := &report.Report{RunInfo: report.RunInfo{Schema: "parking-probe/v1", RunID: "abc", Shard: &one, Shards: 4, StartLatenessSeconds: &late}, Outcomes: map[string]*report.OutcomeStats{}}
	var b strings.Builder
	if err := report.WriteText(&b, r, nil); err != nil || !strings.Contains(b.String(), "shard 1 of 4 of run abc, started 12ms after StartAt") {
		t.Errorf("%v\n%s", err, b.String())
	}
	r.Shard, r.StartSpreadSeconds = nil, &spread
	b.Reset()
	if err := report.WriteText(&b, r, nil); err != nil || !strings.Contains(b.String(), "all 4 shards of run abc, started 12ms after StartAt (starts spread over 3ms)") {
		t.Errorf("%v\n%s", err, b.String())
	}
}

// An open-mode shard sizes its connections for its share of the schedule.
func TestOpenShardSizesItsConnections(t *testing.T) {
	most := func(s Shard) int {
		o := shardOptions(Open, "uniform", s)
		o.Rate, o.Duration = 1000, 60*time.Second
		if err := o.validate(); err != nil {
			t.Fatal(err)
		}
		e, err := newEngine(&o)
		if err != nil {
			t.Fatal(err)
		}
		defer e.close()
		n, _ := e.connections()
		return n
	}
	if whole, shard := most(Shard{}), most(Shard{1, 4}); shard*4 != whole {
		t.Errorf("a quarter shard sizes %d connections, the whole run %d", shard, whole)
	}
}

// A report from before the schema field is read as v1; another major is
// refused.
func TestCheckSchema(t *testing.T) {
	r, err := report.ReadReport(strings.NewReader(`{"target":"x","requests":0,"outcomes":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := report.CheckSchema(r); err != nil {
		t.Errorf("a report without schema: %v", err)
	}
	r.Schema = "parking-probe/v2"
	if err := report.CheckSchema(r); err == nil || !strings.Contains(err.Error(), "unknown major version 2") {
		t.Errorf("v2: %v", err)
	}
	// Unsharded runs are for CheckMergeable, whatever their run ids.
	a, b := &report.Report{RunInfo: report.RunInfo{RunID: "a", Shards: 1}}, &report.Report{RunInfo: report.RunInfo{RunID: "b"}}
	if err := report.CheckRun([]*report.Report{a, b}, []string{"a", "b"}); err != nil {
		t.Errorf("unsharded reports: %v", err)
	}
}
