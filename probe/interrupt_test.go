package probe_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// Ctrl-C/SIGTERM at every stage before the load: Run must come back at
// once with the partial report marked interrupted and an error wrapping
// the cause, which cmd maps to exit 130. Each test cancels from inside the
// stage (a hook or the virtual clock), never after a sleep.

var errSignal = errors.New("test signal")

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func wantInterrupted(t *testing.T, r *report.Report, err error) {
	t.Helper()
	if !errors.Is(err, errSignal) {
		t.Errorf("error %v, want one wrapping the signal", err)
	}
	if r == nil {
		t.Fatal("no partial report")
	}
	if !r.Interrupted {
		t.Error("partial report not marked interrupted")
	}
	if r.Requests != 0 {
		t.Errorf("%d requests sent after the interrupt", r.Requests)
	}
}

// Interrupted while the preflight dial runs (here: before Run starts).
func TestInterruptDuringPreflight(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("request sent") }))
	defer srv.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errSignal)
	r, err := probe.Run(ctx, probe.Options{Target: srv.URL, Requests: 5, ActorCount: 2})
	wantInterrupted(t, r, err)
}

// Interrupted while reading the router's metrics before the load.
func TestInterruptDuringScrapeBefore(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	scrape := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		cancel(errSignal)
		<-req.Context().Done()
		return nil, req.Context().Err()
	})
	send := roundTripFunc(func(*http.Request) (*http.Response, error) {
		t.Error("request sent")
		return nil, errors.New("no")
	})
	r, err := probe.Run(ctx, probe.Options{
		Target: "http://router.test", Requests: 5, ActorCount: 2, RoundTripper: send,
		ScrapeTransport: scrape, MetricsURL: "http://metrics.test/metrics",
	})
	wantInterrupted(t, r, err)
}

// Interrupted while waiting for --start-at an hour away: on the virtual
// clock, no time passes between the signal and the return.
func TestInterruptWaitingForStartAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tr := startMem(t, router.DefaultConfig())
		defer s.Close()
		defer tr.CloseIdleConnections()
		ctx, cancel := context.WithCancelCause(context.Background())
		type result struct {
			r   *report.Report
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := probe.Run(ctx, probe.Options{
				Target: "http://router.test", Requests: 5, ActorCount: 2, RoundTripper: tr,
				StartAt: time.Now().Add(time.Hour),
			})
			done <- result{r, err}
		}()
		synctest.Wait()
		select {
		case res := <-done:
			t.Fatalf("Run did not wait for --start-at: %+v", res)
		default:
		}
		signalled := time.Now()
		cancel(errSignal)
		res := <-done
		if d := time.Since(signalled); d != 0 {
			t.Errorf("Run returned %s after the signal, want at once", d)
		}
		wantInterrupted(t, res.r, res.err)
	})
}

// Interrupted while a burst opens its connections before the release: the
// server's connection hook sends the signal on the third connection (the
// first is the preflight dial).
func TestInterruptDuringPreDial(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var conns, reqs atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reqs.Add(1) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew && conns.Add(1) == 3 {
			cancel(errSignal)
		}
	}
	srv.Start()
	defer srv.Close()
	r, err := probe.Run(ctx, probe.Options{Target: srv.URL, Mode: probe.Burst, Requests: 2000, ActorCount: 2})
	wantInterrupted(t, r, err)
	if n := reqs.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
