package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// netHTTPSender sends through an http.RoundTripper: the run's own tuned
// http.Transport, or the caller's.
type netHTTPSender struct {
	rt      http.RoundTripper
	own     *http.Transport
	timeout time.Duration
	closed  atomic.Bool
}

func newNetHTTPSender(c Config) *netHTTPSender {
	s := &netHTTPSender{rt: c.RoundTripper, timeout: c.Timeout}
	if s.rt == nil {
		dial := c.Dial
		if dial == nil {
			dial = TCPDial
		}
		if c.Predial != nil {
			dial = c.Predial.DialContext
		}
		s.own = newTransport(c.Conns, dial)
		s.rt = s.own
	}
	return s
}

// newTransport is the one shared transport of a run: HTTP/1.1 (a parked
// request holds its own connection, as it does through Envoy), keep-alive,
// an idle pool as large as the run's concurrency, no proxy, no compression.
func newTransport(conns int, dial DialFunc) *http.Transport {
	return &http.Transport{
		DialContext:         dial,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: max(conns, 2),
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		DisableCompression:  true,
		// A non-nil empty map turns HTTP/2 off.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
		// Router answers and probe requests are a few hundred bytes; small
		// buffers keep 10,000 parked connections affordable (longer
		// headers and bodies still work, in more reads).
		ReadBufferSize:  1024,
		WriteBufferSize: 512,
	}
}

// Send sends r through the round tripper under a context of its own that
// carries the --timeout (cause ErrClientTimeout).
func (s *netHTTPSender) Send(ctx context.Context, r *Request, sent time.Time, buf PrefixBuf) (Answer, time.Time) {
	var a Answer
	if s.closed.Load() {
		a.Err = ErrClosed
		return a, time.Time{}
	}
	rctx, cancel := context.WithDeadlineCause(ctx, sent.Add(s.timeout), ErrClientTimeout)
	defer cancel()
	// net/http resends a request on a new connection when the reused one
	// provably never took it (nothing written, or closed before the first
	// byte of an answer, for idempotent requests): each attempt takes a
	// connection, so attempts beyond the first are its resends.
	// wrote is when the request was written, from t0 (+1: 0 is unset), so
	// the time keeps its monotonic reading.
	t0 := sent
	var wrote atomic.Int64
	var conns atomic.Int32
	var reused atomic.Bool
	rctx = httptrace.WithClientTrace(rctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			conns.Add(1)
			reused.Store(i.Reused)
		},
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				wrote.Store(int64(time.Since(t0)) + 1)
			}
		},
	})
	req := r.req.WithContext(rctx)
	// net/http's client closes after a request only for its Close field,
	// not for the user's own "Connection: close" header (RFC 9112 §9.6).
	req.Close = r.close
	if len(r.body) > 0 {
		body := r.body
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := s.rt.RoundTrip(req)
	// A server's idle-timeout 408 read where the answer was expected is
	// nobody's answer (idleTimeoutAnswer): send again, on the connection
	// the transport picks next, as the wire sender does.
	for err == nil && rctx.Err() == nil && int(conns.Load())-1 < maxResends &&
		idleTimeoutAnswer(resp.StatusCode, resp.Close, reused.Load(), r.replayable) {
		resp.Body.Close()
		again := req.WithContext(rctx)
		if req.GetBody != nil {
			again.Body, _ = req.GetBody()
		}
		resp, err = s.rt.RoundTrip(again)
	}
	a.Resends = max(int(conns.Load())-1, 0)
	if err == nil {
		a.Status, a.Header = resp.StatusCode, resp.Header
		if resp.StatusCode == http.StatusSwitchingProtocols {
			// The body of a 101 is the switched connection itself, which
			// no longer follows the request's context: reading it would
			// ignore --timeout and the run's cancellation.
			resp.Body.Close()
		} else {
			b := buf.PrefixBuf()
			n, rerr := readPrefix(resp.Body, b)
			a.Body = b[:n]
			switch rerr {
			case io.EOF:
				rerr = nil
			case nil:
				_, rerr = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxDrain))
			}
			resp.Body.Close()
			err = rerr
		}
	}
	if err != nil {
		a = Answer{Err: err, Resends: a.Resends}
		a.ClientTimeout = errors.Is(context.Cause(rctx), ErrClientTimeout)
	}
	var at time.Time
	if d := wrote.Load(); d != 0 {
		at = t0.Add(time.Duration(d - 1))
	}
	return a, at
}

func (s *netHTTPSender) CloseIdle() {
	if s.own != nil {
		s.own.CloseIdleConnections()
	}
}

// Close refuses new requests; those in flight end with the run's context,
// from which every request's context derives.
func (s *netHTTPSender) Close() {
	s.closed.Store(true)
	s.CloseIdle()
}
