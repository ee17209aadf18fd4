package probe

import (
	"context"
	"errors"
	"time"

	"github.com/shakenfist/shakectl/client/poll"
	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/probe/report"
)

// scrapeActive reads the router's parking_active for the series' second
// (a run's start is start) and notes when it was read: halfway through the
// scrape, whose answer the router wrote somewhere in between. A scrape the
// run's ctx cut short (an interrupt) is no scrape error: the router did
// nothing wrong.
func (e *engine) scrapeActive(run context.Context, second int, start time.Time) {
	ctx, cancel := context.WithTimeout(run, 2*time.Second)
	defer cancel()
	sent := time.Since(start)
	v, ok := e.scr.active(ctx)
	at := (sent + time.Since(start)) / 2
	e.mu.Lock()
	defer e.mu.Unlock()
	if !ok && run.Err() != nil {
		return
	}
	e.scrapes++
	if !ok {
		e.scrapeErrors++
		return
	}
	if prev, ok := e.activeSeries[second]; !ok || v > prev {
		e.activeSeries[second] = v
		if e.activeAt == nil {
			e.activeAt = map[int]time.Duration{}
		}
		e.activeAt[second] = at
	}
	e.notActivePeak(v)
	e.activeReads = append(e.activeReads, report.Point{X: at.Seconds(), Y: v})
}

func (e *engine) notActivePeak(v float64) {
	if e.activePeak == nil || v > *e.activePeak {
		e.activePeak = &v
	}
}

// scrapeBefore reads the router's view before the load. A URL that answers
// garbage is an error: checks built on it would be meaningless.
func (e *engine) scrapeBefore(ctx context.Context) error {
	if e.o.MetricsURL != "" {
		m, err := e.scr.metrics(ctx)
		if err != nil {
			return err
		}
		e.metricsBefore = m
		if m.ParkingActive != nil {
			e.notActivePeak(*m.ParkingActive)
		}
	}
	if e.o.StatuszURL != "" {
		p, err := e.scr.statusz(ctx)
		switch {
		case errors.Is(err, ErrNoParkingCard):
			e.noParkingCard = true
			e.warn("statusz %s: %v; going on without it", redact.URL(e.o.StatuszURL), err)
		case err != nil:
			return err
		}
		e.statuszBefore = p
		if d, ok := p.MaxWaitDuration(); ok && e.o.budgetFromStatusz {
			// No --budget: judge the router by its own budget, and give
			// its parked requests time to end (the default timeout
			// follows the budget).
			e.o.Checks.Budget, e.o.Checks.BudgetSource = d, report.BudgetStatusz
			if err := e.o.checkTimeoutCoversBudget(); err != nil {
				return err
			}
			if err := e.retime(e.o.EffectiveTimeout()); err != nil {
				return err
			}
		}
	}
	return nil
}

// scrapeAfter reads the router's view after the load. Requests the probe
// gave up on may still be parked, so parking_active is polled until it
// drains to 0 or the park budget plus slack has passed. After an
// interrupt, one quick look is all the user waits for, and a router too
// busy to answer it within scrapeAfterInterrupt leaves the report without
// its after-view rather than the user waiting for it: an interrupted run
// ends within about a second of Ctrl-C.
func (e *engine) scrapeAfter(ctx context.Context, interrupted bool) {
	wait := e.o.Checks.Budget + e.o.Checks.Slack
	look := 3 * time.Second
	if interrupted {
		wait, look = 0, scrapeAfterInterrupt
	}
	// Each look runs to its own bound even after an interrupt (base); the
	// wait between looks ends with ctx, or at once after an interrupt
	// (a deadline of now: one look).
	base := context.WithoutCancel(ctx)
	_, _ = poll.Poll[struct{}]{
		Every: poll.Constant(100 * time.Millisecond),
		Get: func(context.Context) (struct{}, error) {
			e.lookAfter(base, look)
			return struct{}{}, nil
		},
		Done:     func(struct{}) (bool, error) { return e.drained(), nil },
		Deadline: time.Now().Add(wait),
	}.Wait(ctx)
}

// lookAfter is one look at the router after the load, within look.
func (e *engine) lookAfter(base context.Context, look time.Duration) {
	sctx, cancel := context.WithTimeout(base, look)
	var mErr, sErr error
	var m *report.RouterMetrics
	var p *report.StatuszParking
	if e.o.MetricsURL != "" {
		m, mErr = e.scr.metrics(sctx)
	}
	if e.o.StatuszURL != "" {
		p, sErr = e.scr.statusz(sctx)
	}
	cancel()
	e.mu.Lock()
	defer e.mu.Unlock()
	if m != nil {
		e.metricsAfter = m
		if m.ParkingActive != nil {
			e.notActivePeak(*m.ParkingActive)
		}
	}
	if p != nil {
		e.statuszAfter = p
	}
	if errors.Is(sErr, ErrNoParkingCard) {
		sErr = nil
	}
	if err := errors.Join(mErr, sErr); err != nil {
		e.scrapeErrors++
		e.lastScrapeErr = firstLine(err.Error())
	}
}

// scrapeAfterInterrupt bounds the one look at the router (metrics and
// statusz together) after an interrupt.
const scrapeAfterInterrupt = 300 * time.Millisecond

// drained reports whether the last look shows nothing parked.
func (e *engine) drained() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.metricsAfter != nil {
		return e.metricsAfter.ParkingActive == nil || *e.metricsAfter.ParkingActive == 0
	}
	if e.statuszAfter != nil && e.statuszAfter.Active != nil {
		return *e.statuszAfter.Active == 0
	}
	// A router without a parking card (substrate main 86e138f6) parks
	// nothing, so there is nothing to wait for.
	return e.noParkingCard
}
