package probe

import (
	"math"
	"time"
)

// Pacer is an open run's schedule, as vegeta's ConstantPacer is an
// attack's: Rate requests a second for Duration, request k due k/Rate
// after the start. It owns the rate's arithmetic: how many requests the
// schedule holds, when each is due, how many fall due within a span (what
// a run or a shard may hold in flight) and the rate a run achieved. Nothing
// else in the probe multiplies a rate by a duration (a test scans the
// sources), so the schedule the sender keeps, the load the report states
// and the load the shards split are one number.
//
// Pace is the sender's per-request question and costs a few arithmetic
// operations: the schedule's size and spacing are worked out once, by
// NewPacer.
type Pacer struct {
	rate     float64
	duration time.Duration
	// interval is the time between due times in nanoseconds, 1e9/rate.
	interval float64
	// requests is the schedule's size, floor(rate × duration): every due
	// time is before the duration.
	requests uint64
}

// NewPacer is the schedule of rate requests a second for d. A rate or a
// duration that is not positive schedules nothing.
func NewPacer(rate float64, d time.Duration) Pacer {
	p := Pacer{rate: rate, duration: d}
	if rate > 0 && d > 0 {
		p.interval = float64(time.Second) / rate
		p.requests = count(math.Floor(rate * d.Seconds()))
	}
	return p
}

// Rate is the schedule's rate, requests a second.
func (p Pacer) Rate() float64 { return p.rate }

// Requests is how many requests the whole schedule sends.
func (p Pacer) Requests() uint64 { return p.requests }

// Pace says how long to wait before sending request k of the schedule
// (counted from 0) when elapsed has passed since the start: a negative
// wait is how late it is. stop says the run is over: the schedule has no
// request k, or the duration has passed, which only a sender behind its
// schedule sees (the backlog is not sent after the duration: an overloaded
// run at 100000 req/s for 3 s on 2 cores went on for 12.8 s when it was).
func (p Pacer) Pace(elapsed time.Duration, k uint64) (wait time.Duration, stop bool) {
	if k >= p.requests || elapsed >= p.duration {
		return 0, true
	}
	return time.Duration(float64(k)*p.interval) - elapsed, false
}

// PerShard is the schedule one of shards processes sends: every shards-th
// request, so a rate of Rate/shards.
func (p Pacer) PerShard(shards int) Pacer {
	return NewPacer(p.rate/float64(max(shards, 1)), p.duration)
}

// Within is the most requests of the schedule that fall due within any
// span of d, ceil(rate × d): what a run holds in flight when each request
// takes d (a park budget, a timeout), or the whole schedule's due times
// for d the duration, counted up.
func (p Pacer) Within(d time.Duration) int64 {
	return int64(min(count(math.Ceil(p.rate*d.Seconds())), math.MaxInt64))
}

// Achieved is the rate a run kept when it sent sent requests, the last
// lastSend after the start: over the span to when the next would have
// been due.
func (p Pacer) Achieved(sent int64, lastSend time.Duration) float64 {
	return float64(sent) / (lastSend.Seconds() + 1/p.rate)
}

// count is x as a count: 0 for a negative or NaN x, saturated at the
// largest uint64.
func count(x float64) uint64 {
	switch {
	case !(x > 0):
		return 0
	case x >= math.MaxUint64:
		return math.MaxUint64
	}
	return uint64(x)
}
