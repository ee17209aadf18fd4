package probe

import (
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/probe/transport"
)

// memServe serves h as addr (a host:port) over in-memory connections
// (net.Pipe), for a test inside a synctest bubble. The server ends with
// the test.
func memServe(t *testing.T, addr string, h http.Handler) *memnet.Listener {
	t.Helper()
	l := memnet.NewListener(addr)
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() {
		srv.Close()
		l.Close()
	})
	return l
}

// memDialTarget serves h at http://target.test on the bubble's in-memory
// network; Options.Dial set to the returned dialer reaches it from either
// sender, the wire sender included.
//
// Engine tests whose subject is the probe's schedule, counting and
// classification run so, on the bubble's clock: their time bounds are
// exact and cost no wall time. What only a real socket shows (a FIN or a
// reset on an idle connection, a half-close) stays on httptest/rawserver.
func memDialTarget(t *testing.T, h http.Handler) (string, transport.DialFunc) {
	t.Helper()
	return "http://target.test", memnet.Transport(memServe(t, "target.test:80", h)).DialContext
}

// eachSenderInBubble runs test once per sender, each in its own synctest
// bubble.
func eachSenderInBubble(t *testing.T, test func(t *testing.T, kind string)) {
	eachSender(t, func(t *testing.T, kind string) {
		synctest.Test(t, func(t *testing.T) { test(t, kind) })
	})
}
