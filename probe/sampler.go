package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The sampler runs beside the load: the in-flight series, the router's
// parking_active and the live progress line.

type inflightPoint struct{ now, peak int64 }

func (e *engine) notePeak(n int64) {
	raise(&e.stepPeak, n)
	raise(&e.secPeak, n)
}

// raise sets p to n if n is higher.
func raise(p *atomic.Int64, n int64) {
	for {
		v := p.Load()
		if n <= v || p.CompareAndSwap(v, n) {
			return
		}
	}
}

// noteStep records the most requests in flight within the plot's step
// that ended at elapsed (or, at the end of the run, the one it falls in).
func (e *engine) noteStep(elapsed time.Duration, final bool) {
	now := e.inflight.Load()
	peak := max(e.stepPeak.Swap(now), now)
	i := int(elapsed / report.TimelineStep)
	if !final {
		i-- // the tick comes at the end of its step
	}
	i = min(max(i, 0), maxPlotSteps-1)
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.stepPeaks) <= i {
		e.stepPeaks = append(e.stepPeaks, 0)
	}
	e.stepPeaks[i] = max(e.stepPeaks[i], peak)
}

// maxPlotSteps bounds the in-flight steps kept for the plot: an hour's,
// as the timeline's.
const maxPlotSteps = 36000

// scrapeEvery is how often the sampler reads the router's parking_active
// during a run. Once a second read 254 where PR #221's router held 300
// parked, and 917 where it held 1024: a burst fills the lot in
// its first few hundred milliseconds and the park budget empties it, so
// a second-long gap can fall on either side of the peak. Four reads a
// second cost the router one small scrape each; the report still calls
// what it saw the highest scraped, never the router's peak.
const scrapeEvery = 250 * time.Millisecond

// sample runs beside the load: every second it notes the in-flight count
// (and the peak within the second); every scrapeEvery it reads the
// router's parking_active, keeping the highest read of each second, and
// reports progress. A scrape still running when done closes ends with
// ctx (the run's): the run waits for it, so after an interrupt it must not
// hold the partial report back for its whole timeout.
func (e *engine) sample(ctx context.Context, start time.Time, done <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	sec := time.NewTicker(time.Second)
	defer sec.Stop()
	step := time.NewTicker(report.TimelineStep)
	defer step.Stop()
	prog := time.NewTicker(scrapeEvery)
	defer prog.Stop()
	var scrapeWG sync.WaitGroup
	defer scrapeWG.Wait()
	scraping := make(chan struct{}, 1)
	scrape := func(second int) {
		if e.scr == nil {
			return
		}
		select {
		case scraping <- struct{}{}:
			scrapeWG.Add(1)
			go func() {
				defer scrapeWG.Done()
				defer func() { <-scraping }()
				e.scrapeActive(ctx, second, start)
			}()
		default:
			// The previous scrape is still running; skip rather than pile
			// up.
		}
	}
	// A burst parks the most requests in its first moments: look once
	// early, then every second.
	early := time.NewTimer(100 * time.Millisecond)
	defer early.Stop()
	point := func() {
		now := e.inflight.Load()
		peak := e.secPeak.Swap(now)
		e.mu.Lock()
		e.inflightSeries = append(e.inflightSeries, inflightPoint{now: now, peak: max(peak, now)})
		e.mu.Unlock()
	}
	for {
		select {
		case <-done:
			point()
			e.noteStep(time.Since(start), true)
			e.progress(start)
			return
		case t := <-step.C:
			e.noteStep(t.Sub(start), false)
		case <-sec.C:
			point()
		case <-early.C:
			scrape(0)
		case t := <-prog.C:
			// The read belongs to the second it is taken in.
			scrape(secondOf(t.Sub(start)))
			e.progress(start)
		}
	}
}

func (e *engine) progress(start time.Time) {
	if e.o.Progress == nil {
		return
	}
	p := Progress{Elapsed: time.Since(start), Sent: e.sent.Load(), InFlight: e.inflight.Load()}
	for o := range report.NumOutcomes {
		p.Counts[o] = e.counts[o].Load()
	}
	e.o.Progress(p)
}
