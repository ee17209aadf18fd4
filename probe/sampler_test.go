package probe_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"
)

func answer(r *http.Request, body string) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/plain; version=0.0.4"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r, ProtoMajor: 1, ProtoMinor: 1}
}

// A router whose parked count is high only between 300 ms and 700 ms of
// the run, as a burst's lot fills and its short budget empties it, is
// seen at its peak: the sampler reads parking_active four times a second,
// where once a second (and once at 100 ms) read 0 each time. The report
// calls what it read the highest scraped. On the virtual clock.
func TestSamplerSeesAShortPeak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		target := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			select {
			case <-time.After(1500 * time.Millisecond):
			case <-r.Context().Done():
				return nil, r.Context().Err()
			}
			return answer(r, "ok"), nil
		})
		metrics := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			active := 0
			if d := time.Since(start); d >= 300*time.Millisecond && d < 700*time.Millisecond {
				active = 40
			}
			return answer(r, fmt.Sprintf("# TYPE atenet_router_parking_active gauge\natenet_router_parking_active %d\n", active)), nil
		})
		r, err := probe.Run(context.Background(), probe.Options{
			Target: "http://router.test", Mode: probe.Burst, Requests: 40, Actors: probe.GeneratedActors(4),
			RoundTripper: target, ScrapeTransport: metrics, MetricsURL: "http://metrics.test/metrics",
			Checks: report.CheckConfig{Budget: time.Second}, Seed: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if p := r.Metrics.ActivePeak; p == nil || *p != 40 {
			t.Fatalf("highest scraped parking_active %v, want the 40 held from 300 ms to 700 ms", p)
		}
		var text strings.Builder
		if err := report.WriteText(&text, r, nil); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "parking_active highest scraped 40") {
			t.Errorf("the report does not call 40 the highest scraped:\n%s", text.String())
		}
	})
}
