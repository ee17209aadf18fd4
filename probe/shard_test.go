package probe

import (
	"errors"
	"testing"
)

func TestNewShardRefusesOutOfRange(t *testing.T) {
	for _, c := range []struct{ i, n int }{{0, 0}, {-1, 3}, {3, 3}, {0, -2}} {
		var oe *OptionError
		if _, err := NewShard(c.i, c.n); !errors.As(err, &oe) {
			t.Errorf("NewShard(%d, %d) = %v, want an OptionError", c.i, c.n, err)
		}
	}
	if s, err := NewShard(2, 3); err != nil || s != (Shard{2, 3}) {
		t.Errorf("NewShard(2, 3) = %v, %v", s, err)
	}
}

func TestShardIndexFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	if _, ok, err := ShardIndexFromEnv(env(nil)); ok || err != nil {
		t.Errorf("unset: ok=%v err=%v", ok, err)
	}
	if i, ok, err := ShardIndexFromEnv(env(map[string]string{JobCompletionIndexEnv: "7"})); i != 7 || !ok || err != nil {
		t.Errorf("7: %d %v %v", i, ok, err)
	}
	for _, bad := range []string{"", "x", "-1", "1.5"} {
		if _, _, err := ShardIndexFromEnv(env(map[string]string{JobCompletionIndexEnv: bad})); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The shards of one command line send exactly the unsharded load.
func TestSplitsAddUpExactly(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for _, total := range []int{0, 1, 2, 3, 7, 39, 40, 41, 100, 1001, 10000} {
			sum, open := 0, uint64(0)
			seen := map[uint64]bool{}
			for i := range n {
				s := Shard{i, n}
				c := s.SplitCount(total)
				if s.firstOf(total) != sum {
					t.Fatalf("N=%d total=%d: shard %d starts at %d, want %d", n, total, i, s.firstOf(total), sum)
				}
				if i > 0 && c > (Shard{i - 1, n}).SplitCount(total) {
					t.Fatalf("remainder not on the lowest indices")
				}
				sum += c
				oc := s.OpenRequests(uint64(total))
				for j := range oc {
					k := s.OpenGlobal(j)
					if k >= uint64(total) || seen[k] {
						t.Fatalf("N=%d total=%d: open request %d out of range or sent twice", n, total, k)
					}
					seen[k] = true
				}
				open += oc
			}
			if sum != total || open != uint64(total) {
				t.Fatalf("N=%d total=%d: counts add to %d, open to %d", n, total, sum, open)
			}
		}
	}
}

// Every actor is owned by exactly one shard.
func TestActorPartitionIsExact(t *testing.T) {
	for _, actors := range []int{1, 2, 3, 5, 17, 64, 100, 1000} {
		for n := 1; n <= min(actors, 12); n++ {
			for _, seed := range []uint64{0, 1, 42} {
				owner := make([]int, actors)
				for i := range owner {
					owner[i] = -1
				}
				for i := range n {
					p := ActorPartition{Shard: Shard{i, n}, Actors: actors, Seed: seed}
					for l := range p.Count() {
						g := p.Global(l)
						if g < 0 || g >= actors || owner[g] != -1 {
							t.Fatalf("actors=%d N=%d seed=%d: actor %d out of range or owned twice", actors, n, seed, g)
						}
						owner[g] = i
					}
				}
				for g, o := range owner {
					if o == -1 {
						t.Fatalf("actors=%d N=%d seed=%d: actor %d owned by no shard", actors, n, seed, g)
					}
				}
			}
		}
	}
	// The seed decides the partition.
	a := ActorPartition{Shard{0, 2}, 100, 1}
	b := ActorPartition{Shard{0, 2}, 100, 2}
	same := 0
	for l := range a.Count() {
		if a.Global(l) == b.Global(l) {
			same++
		}
	}
	if same == a.Count() {
		t.Error("seeds 1 and 2 partition the actors alike")
	}
}

func TestSplitLoadRefusesIdleShards(t *testing.T) {
	s := Shard{0, 4}
	if err := s.SplitLoad("--requests", 3, 100); err == nil {
		t.Error("4 shards for 3 requests accepted")
	}
	if err := s.SplitLoad("--requests", 100, 3); err == nil {
		t.Error("4 shards for 3 actors accepted")
	}
	if err := s.SplitLoad("--requests", 4, 4); err != nil {
		t.Error(err)
	}
}
