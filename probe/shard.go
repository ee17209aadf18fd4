package probe

import (
	"fmt"
	"math/bits"
	"strconv"
)

// JobCompletionIndexEnv is where a Kubernetes Indexed Job tells each pod
// its index (batch/v1, completionMode: Indexed).
const JobCompletionIndexEnv = "JOB_COMPLETION_INDEX"

// Shard is one of Count probe processes (the pods of an Indexed Job) that
// together send the load of one unsharded command line.
type Shard struct{ Index, Count int }

// NewShard checks 0 ≤ index < count and count ≥ 1.
func NewShard(index, count int) (Shard, error) {
	if count < 1 {
		return Shard{}, optionErrorf("{Shard.Count} must be at least 1, got %d", count)
	}
	if index < 0 || index >= count {
		return Shard{}, optionErrorf("{Shard.Index} %d is out of range: want 0 ≤ shard < %d ({Shard.Count})", index, count)
	}
	return Shard{Index: index, Count: count}, nil
}

// ShardIndexFromEnv reads the shard index from JOB_COMPLETION_INDEX through
// lookup (os.LookupEnv in the command, a map in tests); ok is false when
// the variable is unset.
func ShardIndexFromEnv(lookup func(string) (string, bool)) (index int, ok bool, err error) {
	v, ok := lookup(JobCompletionIndexEnv)
	if !ok {
		return 0, false, nil
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return 0, true, optionErrorf("%s=%q is not a shard index (a whole number ≥ 0)", JobCompletionIndexEnv, v)
	}
	return i, true, nil
}

// SplitCount is this shard's part of total (burst --requests, closed
// --concurrency, or the actors): total/Count, plus one for the lowest
// total%Count indices, so the parts of all shards add up to total exactly.
// It is 0 when Count > total; SplitLoad refuses that.
func (s Shard) SplitCount(total int) int {
	n := total / s.Count
	if s.Index < total%s.Count {
		n++
	}
	return n
}

// firstOf is the number of items the shards below s own.
func (s Shard) firstOf(total int) int {
	q, r := total/s.Count, total%s.Count
	return s.Index*q + min(s.Index, r)
}

// OpenRequests is how many of the unsharded open-mode schedule's n requests
// (n = floor(rate × duration)) this shard sends. Open mode is split by
// interleaving the one schedule, not by dividing the rate as a float
// (whose shares need not add up exactly): shard I sends global requests
// k = I, I+N, I+2N, …, each at its unsharded due time k/rate, so the union
// of the shards is exactly the unsharded schedule.
func (s Shard) OpenRequests(n uint64) uint64 {
	c := uint64(s.Count)
	q := n / c
	if uint64(s.Index) < n%c {
		q++
	}
	return q
}

// OpenGlobal is the global request number (and so the due time
// k/rate) of this shard's j-th open-mode request.
func (s Shard) OpenGlobal(j uint64) uint64 { return j*uint64(s.Count) + uint64(s.Index) }

// SplitLoad refuses a split that leaves this shard (or any shard: they all
// see the same command line) with nothing to do, which would be a pod that
// runs and measures nothing. n is the load's size: burst requests, closed
// concurrency, or the open schedule's requests (Pacer); fields names the
// options that set it ({Requests}).
func (s Shard) SplitLoad(fields string, n uint64, actors int) error {
	if n < uint64(s.Count) {
		return optionErrorf("{Shard.Count} %d is more than "+fields+" gives (%d): every shard must send at least one request", s.Count, n)
	}
	if actors < s.Count {
		return optionErrorf("{Shard.Count} %d is more than the %d actors: every shard owns a disjoint set of actors", s.Count, actors)
	}
	return nil
}

// ActorPartition gives each shard a disjoint set of the actors without
// materialising their names: a permutation of 0..Actors-1 seeded by Seed
// (the command line's --seed, the same in every shard), cut into
// contiguous ranges of SplitCount(Actors) by shard index.
type ActorPartition struct {
	Shard  Shard
	Actors int
	Seed   uint64
}

// Count is how many actors this shard owns.
func (p ActorPartition) Count() int { return p.Shard.SplitCount(p.Actors) }

// Global is the global index (into the actor list, or the n of
// actor-000n minus one) of this shard's local-th actor, 0 ≤ local < Count().
func (p ActorPartition) Global(local int) int {
	if local < 0 || local >= p.Count() {
		panic(fmt.Sprintf("probe: local actor %d out of range 0..%d", local, p.Count()-1))
	}
	return permute(uint64(p.Shard.firstOf(p.Actors)+local), uint64(p.Actors), p.Seed)
}

// permute is a seeded bijection of [0, n): a four-round Feistel network
// over the smallest even power of two ≥ n, cycle-walking values that fall
// outside [0, n) (fewer than four steps expected).
func permute(x, n, seed uint64) int {
	if n <= 1 {
		return int(x)
	}
	half := (bits.Len64(n-1) + 1) / 2
	mask := uint64(1)<<half - 1
	for {
		l, r := x>>half, x&mask
		for round := range uint64(4) {
			l, r = r, l^(splitmix64(seed^splitmix64(r<<2|round))&mask)
		}
		x = l<<half | r
		if x < n {
			return int(x)
		}
	}
}
