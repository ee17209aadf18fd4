package probe

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shakenfist/shakectl/probe/internal/timer"
)

// Shape is a load shape (burst, closed, open): it decides when each request
// is sent, and nothing else. Sending, recording and sampling are the
// engine's.
type Shape interface {
	// Drive sends the load through send, adding every request it starts to
	// wg, and returns when the load's clock started (a burst's release;
	// closed and open use start). It calls started once with that time,
	// and stops starting requests once ctx is done.
	Drive(ctx context.Context, wg *sync.WaitGroup, start time.Time, started func(time.Time), send SendFunc) time.Time
}

// SendFunc sends request seq to actor idx, due at start+due, and records
// its outcome in shard key%shards.
type SendFunc func(key, seq uint64, idx int, start time.Time, due time.Duration)

// burstShape releases requests together, behind a barrier.
type burstShape struct {
	requests int
	index    func(uint64) int
}

// Drive prepares every request, then releases them at once; the load's
// clock starts at the release.
func (b burstShape) Drive(ctx context.Context, wg *sync.WaitGroup, _ time.Time, started func(time.Time), send SendFunc) time.Time {
	release := make(chan struct{})
	var ready sync.WaitGroup
	var start time.Time
	for i := range b.requests {
		if ctx.Err() != nil {
			// Interrupted while a huge burst is being prepared.
			break
		}
		idx := b.index(uint64(i))
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			ready.Done()
			select {
			case <-release:
			case <-ctx.Done():
				return
			}
			send(uint64(i), uint64(i), idx, start, time.Duration(0))
		}()
	}
	ready.Wait()
	if ctx.Err() != nil {
		// Interrupted while preparing: nothing is sent.
		start = time.Now()
		started(start)
		return start
	}
	start = time.Now()
	started(start)
	close(release)
	return start
}

// closedShape runs workers back to back for a duration.
type closedShape struct {
	workers  int
	duration time.Duration
	index    func(uint64) int
}

// Drive starts the workers; each sends its next request when the last is
// answered.
func (c closedShape) Drive(ctx context.Context, wg *sync.WaitGroup, start time.Time, started func(time.Time), send SendFunc) time.Time {
	started(start)
	var seq atomic.Uint64
	end := start.Add(c.duration)
	for w := range c.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				now := time.Now()
				if !now.Before(end) {
					return
				}
				i := seq.Add(1) - 1
				// A worker keeps to its own shard.
				send(uint64(w), i, c.index(i), start, now.Sub(start))
			}
		}()
	}
	return start
}

// openShape sends on its pacer's schedule: request k is due at start +
// k/rate. Each request gets its own goroutine, so in-flight requests are
// never capped below what the rate needs; a late send is measured from its
// due time.
type openShape struct {
	pacer Pacer
	index func(uint64) int
	// shard sends only its slots k = j×Count + Index of the one schedule.
	shard Shard
	// precise waits for each due time on a kernel timer (timer.New)
	// instead of the runtime's, which wakes an idle program about 1 ms
	// late. Runs on the real clock set it; tests on synctest's virtual
	// clock (in-memory transports) keep the runtime's timers.
	precise bool
	// elapsed is the time since start, time.Since when nil; a test makes
	// the pacer fall behind with it, deterministically.
	elapsed func(start time.Time) time.Duration
}

// Drive follows the schedule until the pacer says stop: the shard's
// requests are all due, or the duration is over, when a sender behind its
// schedule sends no more (Pacer.Pace). The report's requests against
// load.requests (and the achieved rate) show the shortfall, and the
// late-send notice says so during the run.
func (o openShape) Drive(ctx context.Context, wg *sync.WaitGroup, start time.Time, started func(time.Time), send SendFunc) time.Time {
	started(start)
	shard := o.shard
	if shard.Count == 0 {
		shard.Count = 1
	}
	sl := timer.New(ctx, o.precise)
	defer sl.Close()
	// A request goes to a sender that finished its last one and waits on
	// jobs, or, when none waits, to a new one: in flight is never capped,
	// and a sender's goroutine and its grown stack serve many requests.
	jobs := make(chan openJob)
	defer close(jobs)
	elapsed := o.elapsed
	if elapsed == nil {
		elapsed = time.Since
	}
	for j := uint64(0); ; j++ {
		k := shard.OpenGlobal(j)
		now := elapsed(start)
		wait, stop := o.pacer.Pace(now, k)
		if stop {
			return start
		}
		if wait > 0 {
			if !sl.Sleep(ctx, wait) {
				return start
			}
		} else if ctx.Err() != nil {
			return start
		}
		// The due time, from what the pacer worked out.
		job := openJob{j: j, k: k, due: now + wait}
		select {
		case jobs <- job:
		default:
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ok := true; ok; job, ok = <-jobs {
					send(job.j, job.k, o.index(job.k), start, job.due)
				}
			}()
		}
	}
}

// openJob is one request of an open run's schedule.
type openJob struct {
	j, k uint64
	due  time.Duration
}
