package probe

import (
	"hash/fnv"
	"time"
)

// The arithmetic of running one probe command line as several shards (a
// Kubernetes Job of parking-probe pods, or --shard I/N by hand): the seed
// they share, the load they split, and how long the whole run may take.

// SeedFromStartAt derives a seed from a shared start time, which every shard
// of one command line has: FNV-1a of the RFC 3339 time, cut to 31 bits like a
// random default seed, so every shard picks the same actors.
func SeedFromStartAt(t time.Time) uint64 {
	h := fnv.New64a()
	h.Write([]byte(t.UTC().Format(time.RFC3339Nano)))
	return h.Sum64() & (1<<31 - 1)
}

// ShardedLoad is the size of the load the shards split, and the fields
// that set it, as {Field} placeholders for an option error (SplitLoad):
// the burst's requests, the closed run's workers, or the open run's
// schedule.
func (o *Options) ShardedLoad() (fields string, n uint64) {
	switch o.Mode {
	case Closed:
		return "{Concurrency}", uint64(max(o.Concurrency, 0))
	case Open:
		return "{Rate} × {Duration}", o.pacer().Requests()
	default:
		return "{Requests}", uint64(max(o.Requests, 0))
	}
}

// InFlightPerProcess is about the most requests one probe process holds
// in flight (parked at the router) well: a larger load wants more shards.
const InFlightPerProcess = 10_000

// InFlightPerShard is the most requests one of shards may hold at once: its
// part of the burst or of the workers; in open mode, its rate times the
// per-request timeout (a request can take no longer), at most its share of
// the requests.
func (o *Options) InFlightPerShard(shards int) int64 {
	_, n := o.ShardedLoad()
	per := int64((n + uint64(shards) - 1) / uint64(shards))
	if o.Mode == Open {
		per = min(per, o.pacer().PerShard(shards).Within(o.EffectiveTimeout()))
	}
	return per
}

// JobWaitTimeout bounds a whole sharded run that starts startIn from now,
// for kubectl wait: the start, the load and the last request's timeout, and
// five minutes for scheduling and pulling the pods, to the minute.
func (o *Options) JobWaitTimeout(startIn time.Duration) time.Duration {
	d := startIn + o.EffectiveTimeout() + 5*time.Minute
	if o.Mode != Burst {
		d += o.Duration
	}
	return d.Round(time.Minute)
}
