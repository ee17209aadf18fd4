package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Transport names, as the report's "transport" field spells them.
const (
	transportNetHTTP  = "net/http"
	transportFastHTTP = "fasthttp"
)

// transportEnv forces one transport ("net/http" or "fasthttp") so tests
// and benchmarks can run the same load through both.
const transportEnv = "SHAKECTL_PROBE_TRANSPORT"

// chooseTransport picks the sender for a run: fasthttp (the HTTP/1.1
// client bombardier is built on, about a third faster per request than
// net/http on loopback; BENCHMARKS.md, issue 15) for plain http:// loads
// in closed and open mode; net/http for https (TLS, HTTP/2 targets) and
// for bursts, whose pre-dialled connections and write-time trace the
// budget check relies on.
func chooseTransport(o *Options) string {
	target := o.Target
	if o.URLTemplate != "" {
		target = o.URLTemplate
	}
	switch os.Getenv(transportEnv) {
	case transportNetHTTP:
		return transportNetHTTP
	case transportFastHTTP:
		if strings.HasPrefix(target, "http://") {
			return transportFastHTTP
		}
	}
	if o.Mode == Burst || !strings.HasPrefix(target, "http://") {
		return transportNetHTTP
	}
	return transportFastHTTP
}

// fastSender sends through a fasthttp.Client. fasthttp has no contexts:
// the per-request deadline is its own (DoDeadline), and a cancelled run
// closes every connection so parked requests end at once.
type fastSender struct {
	c       *fasthttp.Client
	timeout time.Duration
	conns   *connSet
}

func newFastSender(conns int, timeout time.Duration) *fastSender {
	set := &connSet{open: map[*trackedConn]struct{}{}}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &fastSender{
		timeout: timeout,
		conns:   set,
		c: &fasthttp.Client{
			Dial: func(addr string) (net.Conn, error) {
				return set.dial(dialer, addr)
			},
			// Every parked request holds its own connection.
			MaxConnsPerHost:     max(conns, 2),
			MaxIdleConnDuration: 90 * time.Second,
			// Router answers and probe requests are a few hundred bytes;
			// small buffers keep 10,000 parked connections affordable.
			// fasthttp's read buffer also bounds a response's header.
			ReadBufferSize:  4096,
			WriteBufferSize: 512,
			// Like net/http's drain limit: a longer body is not the
			// router's answer to a probe.
			MaxResponseBodySize: maxDrain,
			// Every request is sent once and accounted once; a retry
			// would hide a reset.
			MaxIdemponentCallAttempts: 1,
			RetryIfErr:                func(*fasthttp.Request, int, error) (bool, bool) { return false, false },
			DisablePathNormalizing:    true,
			NoDefaultUserAgentHeader:  true,
		},
	}
}

func (s *fastSender) Send(req *http.Request, buf func() []byte) Answer {
	var a Answer
	ctx := req.Context()
	if ctx.Err() != nil {
		a.Err = context.Cause(ctx)
		return a
	}
	// A run cancelled mid-request closes the connections: the request
	// then fails like net/http's cancelled one.
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(context.Cause(ctx), errClientTimeout) {
			s.conns.closeAll()
		}
	})
	defer stop()

	freq := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(freq)
	defer fasthttp.ReleaseResponse(resp)
	freq.SetRequestURI(req.URL.String())
	freq.Header.SetMethod(req.Method)
	for k, vs := range req.Header {
		for _, v := range vs {
			freq.Header.Add(k, v)
		}
	}
	if req.Host != "" {
		freq.Header.SetHost(req.Host)
		freq.UseHostHeader = true
	}
	if req.Body != nil {
		if _, err := io.Copy(freq.BodyWriter(), req.Body); err != nil {
			a.Err = err
			return a
		}
	}
	err := s.c.DoDeadline(freq, resp, time.Now().Add(s.timeout))
	if err != nil {
		a.Err, a.ClientTimeout = fastErr(err)
		if ctx.Err() != nil && !a.ClientTimeout {
			a.Err = context.Cause(ctx)
		}
		return a
	}
	a.Status = resp.StatusCode()
	a.Header = neededHeaders(&resp.Header)
	b := buf()
	a.Body = b[:copy(b, resp.Body())]
	return a
}

// fastErr maps fasthttp's errors onto the ones net/http gives for the same
// fault, so classification and details read alike whichever sender ran.
func fastErr(err error) (error, bool) {
	switch {
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, fasthttp.ErrDialTimeout):
		return errClientTimeout, true
	case errors.Is(err, fasthttp.ErrConnectionClosed):
		// The server closed the connection before any answer.
		return io.EOF, false
	case strings.Contains(err.Error(), "error when reading response headers"):
		// net/http's word for an answer that is not HTTP.
		return fmt.Errorf("malformed HTTP response: %w", err), false
	}
	return err, false
}

// neededHeaders copies the headers classification reads (x-envoy-*,
// Server); nil when there are none, which is the common answer and costs
// no map.
func neededHeaders(h *fasthttp.ResponseHeader) http.Header {
	var out http.Header
	for k, v := range h.All() {
		if (len(k) > 8 && bytes.EqualFold(k[:8], []byte("x-envoy-"))) || bytes.EqualFold(k, []byte("server")) {
			if out == nil {
				out = http.Header{}
			}
			out.Add(string(k), string(v))
		}
	}
	return out
}

// connSet tracks the open connections so a cancelled run can close them.
type connSet struct {
	mu     sync.Mutex
	closed bool
	open   map[*trackedConn]struct{}
}

var errRunCancelled = errors.New("run cancelled")

func (s *connSet) dial(d *net.Dialer, addr string) (net.Conn, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, errRunCancelled
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	t := &trackedConn{Conn: c, set: s}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.Close()
		return nil, errRunCancelled
	}
	s.open[t] = struct{}{}
	s.mu.Unlock()
	return t, nil
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	s.closed = true
	open := s.open
	s.open = map[*trackedConn]struct{}{}
	s.mu.Unlock()
	for c := range open {
		c.Conn.Close()
	}
}

type trackedConn struct {
	net.Conn
	set  *connSet
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.set.mu.Lock()
		delete(c.set.open, c)
		c.set.mu.Unlock()
	})
	return c.Conn.Close()
}
