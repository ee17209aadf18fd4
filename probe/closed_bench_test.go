package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkClosedMode runs closed mode with 64 workers against a bare
// loopback server for one second per iteration and reports requests a
// second: the probe's per-request path (render, send, classify, record)
// under a profiler (-cpuprofile), next to bench/probe-throughput.sh's
// side-by-side figures. The server shares the process, so compare runs of
// this benchmark with each other, not with the script.
func BenchmarkClosedMode(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var sent int64
	var took time.Duration
	for b.Loop() {
		r, err := Run(context.Background(), Options{
			Target: srv.URL, Mode: Closed, Concurrency: 64, Duration: time.Second,
			ActorCount: 1, Checks: report.CheckConfig{ShedMax: time.Hour},
		})
		if err != nil {
			b.Fatal(err)
		}
		sent += r.Requests
		took += time.Duration(r.DurationSeconds * float64(time.Second))
	}
	b.ReportMetric(float64(sent)/took.Seconds(), "req/s")
}
