package probe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The fasthttp sender must hand classification what net/http's does: the
// Host per actor, the status, the x-envoy headers, the body's start, and
// faults as EOF or client timeouts.
func TestFastSenderAnswersClassifyLikeNetHTTP(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/overflow":
			w.Header().Set("X-Envoy-Overloaded", "true")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/proxy":
			w.Header().Set("x-envoy-upstream-service-time", "3")
			w.WriteHeader(http.StatusBadGateway)
		case "/host":
			w.Write([]byte(r.Host))
		case "/reset":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		case "/park":
			<-release
		}
	}))
	defer srv.Close()
	defer close(release)
	s := newFastSender(4, 200*time.Millisecond)
	send := func(path, host string) Answer {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Host = host
		return s.Send(req, func() []byte { return make([]byte, bodyPrefix) })
	}
	if a := send("/host", "actor-7.atespace.test"); string(a.Body) != "actor-7.atespace.test" || a.Status != 200 {
		t.Errorf("Host: got %d %q, want the actor's host", a.Status, a.Body)
	}
	if o := Classify(send("/overflow", "")); o != EnvoyOverflow {
		t.Errorf("503 with x-envoy-overloaded: %v, want %v", o, EnvoyOverflow)
	}
	if o := Classify(send("/proxy", "")); o != ProxyError {
		t.Errorf("502 with x-envoy-*: %v, want %v", o, ProxyError)
	}
	if a := send("/reset", ""); a.Err == nil || Classify(a) != TransportError {
		t.Errorf("reset: %+v, want a transport error", a)
	}
	a := send("/park", "")
	if !a.ClientTimeout || Classify(a) != ClientTimeout {
		t.Errorf("parked past the timeout: %+v, want client_timeout", a)
	}
	// A cancelled run ends a parked request at once, not at its deadline.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/park", nil)
	slow := newFastSender(4, time.Hour)
	done := make(chan Answer)
	go func() { done <- slow.Send(req, func() []byte { return nil }) }()
	cancel()
	if a := <-done; a.Err == nil || a.ClientTimeout {
		t.Errorf("cancelled: %+v, want a transport error that is not a client timeout", a)
	}
}
