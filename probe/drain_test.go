package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe/report"
)

type stuckRoundTripper func(*http.Request) (*http.Response, error)

func (f stuckRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Issue 28, item 8: after Ctrl-C the run waited for every request in
// flight to record its cancellation, seconds with tens of thousands of them
// on 2 cores, and for ever when a sender does not return after Close. Here
// the sender's round tripper ignores the request's context and blocks
// until the test releases it, after Run returned. On the virtual clock:
// Run must come back within drainGrace of the signal, count each stuck
// request once as a cancelled transport error (requests = sum of
// outcomes), keep the answers it did get, and the answers that come in
// after it returned must change nothing in its report. Without the bound
// Run never returns and synctest reports the deadlock.
func TestInterruptStopsWaitingForStuckRequests(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		// The signal comes with the cancelAt-th request to arrive; the
		// first `answered` are answered at once, every later one is stuck.
		cancelAt, answered int64
		opts               Options
	}{
		{mode: Burst, cancelAt: 40, answered: 10, opts: Options{Mode: Burst, Requests: 40}},
		// Open: 100 req/s for 1 s; the pacer sees the signal before the
		// 41st is due.
		{mode: Open, cancelAt: 40, answered: 10, opts: Options{Mode: Open, Rate: 100, Duration: time.Second}},
		// Closed: each of the 10 workers answered sends again and is
		// stuck too, so every worker is stuck once 50 are in.
		{mode: Closed, cancelAt: 50, answered: 10, opts: Options{Mode: Closed, Concurrency: 40, Duration: 10 * time.Second}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				errSignal := errors.New("test signal")
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				release := make(chan struct{})
				var releaseOnce sync.Once
				releaseStuck := func() { releaseOnce.Do(func() { close(release) }) }
				// A failed test still lets the stuck requests and Run end,
				// so the bubble can.
				defer releaseStuck()
				var arrived atomic.Int64
				o := tc.opts
				o.Target, o.ActorCount = "http://router.test", 2
				o.RoundTripper = stuckRoundTripper(func(r *http.Request) (*http.Response, error) {
					n := arrived.Add(1)
					if n <= tc.answered {
						return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("actor default/actor-0001 served by worker-01 (10.0.0.1)")),
							Request: r, ProtoMajor: 1, ProtoMinor: 1}, nil
					}
					if n == tc.cancelAt {
						cancel(errSignal)
					}
					<-release // whatever r.Context() says
					return nil, errors.New("released after the run")
				})
				type result struct {
					r   *report.Report
					err error
				}
				done := make(chan result, 1)
				go func() {
					r, err := Run(ctx, o)
					done <- result{r, err}
				}()
				<-ctx.Done()
				signalled := time.Now()
				// The run's sampler ticks on, so a Run that never returns
				// is no deadlock synctest would see: the virtual clock
				// bounds the wait instead.
				var res result
				select {
				case res = <-done:
				case <-time.After(time.Minute):
					t.Fatalf("Run had not returned a minute after the signal: it waits for requests stuck in a sender")
				}
				if d := time.Since(signalled); d > drainGrace {
					t.Errorf("Run returned %s after the signal, want within the %s grace", d, drainGrace)
				}
				r := res.r
				if !errors.Is(res.err, errSignal) {
					t.Errorf("error %v, want one wrapping the signal", res.err)
				}
				if r == nil {
					t.Fatal("no partial report")
				}
				if !r.Interrupted {
					t.Error("partial report not marked interrupted")
				}
				stuck := tc.cancelAt - tc.answered
				if r.Requests != tc.cancelAt {
					t.Errorf("%d requests, want the %d sent before the signal", r.Requests, tc.cancelAt)
				}
				if n := r.Count(report.Served); n != tc.answered {
					t.Errorf("served %d, want the %d answered", n, tc.answered)
				}
				te := r.Stats(report.TransportError)
				if te == nil || te.Count != stuck || te.Details["canceled"] != stuck {
					t.Errorf("transport errors %+v, want the %d stuck requests, each once, as canceled", te, stuck)
				}
				var sum int64
				for _, oc := range report.AllOutcomes() {
					sum += r.Count(oc)
				}
				if sum != r.Requests {
					t.Errorf("outcomes sum to %d, requests %d", sum, r.Requests)
				}
				if c := checksByName(r)[report.CheckAllAccounted]; c.Status != report.CheckOK {
					t.Errorf("all_accounted %+v", c)
				}
				before, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				// The stuck requests now end; their answers reach an
				// engine that was finalised.
				releaseStuck()
				synctest.Wait()
				after, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(before, after) {
					t.Errorf("the report changed after Run returned:\nbefore %s\nafter  %s", before, after)
				}
			})
		})
	}
}

// The finalisation's own accounting, one request at a time: a request in
// flight when the run is finalised is counted once, as cancelled; its
// answer coming afterwards (here while the report could be being built)
// is dropped, not counted a second time as served; and a send the
// finalised run is asked for afterwards is neither made nor counted.
func TestFinalisedRunCountsEachRequestOnce(t *testing.T) {
	o := Options{Target: "http://router.test", Mode: Burst, Requests: 2, ActorCount: 2,
		RoundTripper: stuckRoundTripper(func(*http.Request) (*http.Response, error) {
			t.Error("a request was sent after the run was finalised")
			return nil, errors.New("no")
		})}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	e, err := newEngine(&o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	e.ctxs = make([]context.Context, len(e.rec.shards))
	for i := range e.ctxs {
		e.ctxs[i] = context.Background()
	}
	start := time.Now()
	flying := &sentRequest{shard: 0, idx: 0, start: start}
	if !e.noteSend(flying) {
		t.Fatal("a send before the finalisation was refused")
	}
	if n := e.abandonInFlight(); n != 1 {
		t.Errorf("abandonInFlight counted %d requests, want the 1 in flight", n)
	}
	e.finishSend(flying, Answer{Status: 200, Body: []byte("actor default/actor-0001 served by worker-01 (10.0.0.1)")})
	e.send(1, 1, 1, start, 0)
	r := e.report(start, time.Second)
	if r.Requests != 1 || r.Count(report.TransportError) != 1 || r.Stats(report.TransportError).Details["canceled"] != 1 {
		t.Errorf("requests %d, transport errors %+v: want the one request, as canceled", r.Requests, r.Stats(report.TransportError))
	}
	if n := r.Count(report.Served); n != 0 {
		t.Errorf("served %d: the late answer was counted too", n)
	}
}

// After Ctrl-C the run also waited for the router's scrapes: the
// sampler's parking_active read in progress (2 s timeout, on a context of
// its own) and the one look after the load (3 s). A router too busy to
// answer its metrics (here every scrape after the first waits for its
// context) kept an interrupted run 5 s. Now the run's context ends the
// sampler's read and the look after an interrupt is bounded: Run is back
// within drainGrace + scrapeAfterInterrupt of the signal, on the virtual
// clock. The signal comes as the sampler's first read begins.
func TestInterruptDoesNotWaitForABusyRoutersScrapes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errSignal := errors.New("test signal")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		parked := stuckRoundTripper(func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done()
			return nil, r.Context().Err()
		})
		var scrapes atomic.Int64
		metrics := stuckRoundTripper(func(r *http.Request) (*http.Response, error) {
			if scrapes.Add(1) == 2 {
				cancel(errSignal)
			} else if scrapes.Load() == 1 {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/plain; version=0.0.4"}},
					Body:    io.NopCloser(strings.NewReader("# TYPE atenet_router_parking_active gauge\natenet_router_parking_active 0\n")),
					Request: r, ProtoMajor: 1, ProtoMinor: 1}, nil
			}
			<-r.Context().Done()
			return nil, r.Context().Err()
		})
		type result struct {
			r   *report.Report
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := Run(ctx, Options{Target: "http://router.test", Mode: Burst, Requests: 20, ActorCount: 2,
				RoundTripper: parked, ScrapeTransport: metrics, MetricsURL: "http://metrics.test/metrics"})
			done <- result{r, err}
		}()
		<-ctx.Done()
		signalled := time.Now()
		var res result
		select {
		case res = <-done:
		case <-time.After(time.Minute):
			t.Fatal("Run had not returned a minute after the signal")
		}
		if d, bound := time.Since(signalled), drainGrace+scrapeAfterInterrupt; d > bound {
			t.Errorf("Run returned %s after the signal, want within %s", d, bound)
		}
		if !errors.Is(res.err, errSignal) || res.r == nil || !res.r.Interrupted {
			t.Fatalf("want the interrupted partial report, got %v, %+v", res.err, res.r)
		}
		if res.r.Requests != 20 || res.r.Stats(report.TransportError).Details["canceled"] != 20 {
			t.Errorf("requests %d, transport errors %+v: want the 20 parked ones cancelled", res.r.Requests, res.r.Stats(report.TransportError))
		}
		if res.r.Metrics == nil || res.r.Metrics.Before == nil {
			t.Errorf("the report lost the scrape before the load: %+v", res.r.Metrics)
		}
	})
}
