package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/retry"
)

// debugLog writes --debug lines. It never sees a header or a body, so the
// key and the bearer token cannot reach it.
type debugLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (d *debugLog) line(s string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.w, "debug: %s\n", s)
}

func (d *debugLog) linef(format string, a ...any) {
	if d == nil {
		return
	}
	d.line(fmt.Sprintf(format, a...))
}

// debugTransport logs one line per request and one per answer: method,
// path, attempt, status, duration and request id.
type debugTransport struct {
	next http.RoundTripper
	log  *debugLog
}

func (t *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.log == nil {
		return t.next.RoundTrip(req)
	}
	attempt := ""
	if call := callFrom(req.Context()); call != nil && call.Enabled() {
		attempt = fmt.Sprintf(" (attempt %d/%d)", call.Attempt(), retry.MaxAttempts)
	}
	t.log.linef("> %s %s%s", req.Method, req.URL.EscapedPath(), attempt)
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	took := time.Since(start).Round(100 * time.Microsecond)
	if err != nil {
		t.log.linef("< %s %s failed after %s: %v", req.Method, req.URL.EscapedPath(), took, err)
		return resp, err
	}
	if resp.Request == nil {
		resp.Request = req
	}
	rid := resp.Header.Get("X-Request-ID")
	if rid == "" {
		rid = "-"
	}
	t.log.linef("< %s %s %d %s in %s request-id=%s", req.Method, req.URL.EscapedPath(), resp.StatusCode,
		http.StatusText(resp.StatusCode), took, oneLine(rid))
	return resp, err
}

type callKey struct{}

func withCall(ctx context.Context, call *retry.Call) context.Context {
	return context.WithValue(ctx, callKey{}, call)
}

func callFrom(ctx context.Context) *retry.Call {
	call, _ := ctx.Value(callKey{}).(*retry.Call)
	return call
}
