package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A router that misbehaves on every other request: each request is still
// counted exactly once, under the outcome that says what happened, and the
// report's all_accounted check holds.
//
// Real sockets (a reset is SO_LINGER 0) and a real 300 ms client timeout:
// its servers are its own, so it waits in parallel with the other
// loopback tests.
func TestFaultyRouterEveryRequestAccountedOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		fault   func(w http.ResponseWriter, r *http.Request)
		outcome report.Outcome
	}{
		{"stops answering", func(_ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // holds the request until the probe gives up
		}, report.ClientTimeout},
		{"resets connections", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = conn.Close()
		}, report.TransportError},
	}
	const requests = 40
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1)%2 == 0 {
					c.fault(w, r)
					return
				}
				_, _ = w.Write([]byte("ok"))
			}))
			defer srv.Close()
			r, err := Run(context.Background(), Options{
				Target: srv.URL, Mode: Burst, Requests: requests,
				Actors: GeneratedActors(4), Timeout: 300 * time.Millisecond,
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			served, faulty := r.Count(report.Served), r.Count(c.outcome)
			var sum int64
			for _, o := range report.AllOutcomes() {
				sum += r.Count(o)
			}
			if sum != requests || served+faulty != requests {
				t.Errorf("outcomes sum %d (served %d, %s %d), want %d, all served or %s",
					sum, served, c.outcome, faulty, requests, c.outcome)
			}
			if served == 0 || faulty == 0 {
				t.Errorf("served %d, %s %d: want both", served, c.outcome, faulty)
			}
			if ch := checksByName(r)[report.CheckAllAccounted]; ch.Status != report.CheckOK {
				t.Errorf("all_accounted %+v", ch)
			}
		})
	}
}
