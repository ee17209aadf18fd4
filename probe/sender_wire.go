package probe

import (
	"bufio"
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

// chooseTransport picks the sender for a run: the wire sender (named
// "fasthttp" after the codec it parses answers with) for plain http://
// targets that dial one address, in every mode; net/http for https (TLS,
// HTTP/2 targets) and for a --url-template that puts the actor in the
// host, which dials many addresses.
func chooseTransport(o *Options, addr string) string {
	target := o.Target
	if o.URLTemplate != "" {
		target = o.URLTemplate
	}
	if !strings.HasPrefix(target, "http://") || addr == "" {
		return transportNetHTTP
	}
	if os.Getenv(transportEnv) == transportNetHTTP {
		return transportNetHTTP
	}
	return transportFastHTTP
}

// wireSender sends HTTP/1.1 over connections it dials and keeps itself:
// each request is written as bytes net/http's Request.Write rendered, and
// the answer is parsed with valyala/fasthttp's response codec. Owning the
// connection is what neither net/http's nor fasthttp's client allows, and
// it is what issue 15 needed:
//
//   - the write time is known exactly (the budget check measures from it);
//   - a parked request costs one goroutine blocked in Read, a 512-byte head
//     buffer and its socket, with no reader or writer goroutines; the
//     bufio.Reader the codec needs is taken from a pool only once the
//     answer's first bytes are in;
//   - a burst's connections are opened before its release (preDialer);
//   - the per-request deadline is the connection's own (no timer, context
//     or goroutine per request), and a cancelled run closes every
//     connection, so parked requests end at once.
//
// Every request is sent once and accounted once: there is no retry, even
// on a reused connection, because a retry would hide a reset.
type wireSender struct {
	addr    string
	dialer  net.Dialer
	timeout time.Duration
	predial *preDialer
	// staleAfter is how long a connection may sit idle before it is
	// checked (alive) on its next use: a server may have closed it
	// meanwhile, and that is not the router's answer to the request.
	// Connections used back to back are not checked, which would cost a
	// system call per request.
	staleAfter time.Duration

	mu     sync.Mutex
	idle   []*wireConn
	open   map[*wireConn]struct{}
	closed bool
}

// wireConn is one connection and the bytes read from it before a reader
// was attached.
type wireConn struct {
	net.Conn
	head    [512]byte
	pending []byte
	// idleSince is when the connection went back to the idle pool.
	idleSince time.Time
}

// Read hands out the head bytes first, then reads the connection: the
// pooled bufio.Reader sees the answer whole.
func (c *wireConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// Readers hold an answer's header while it is parsed: 8 KiB covers
// ordinary answers; a longer header is read again through a 64 KiB reader
// (Envoy's own default limit is 60 KiB).
const (
	wireReadBuffer    = 8 << 10
	wireMaxHeaderSize = 64 << 10
)

var wireReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, wireReadBuffer) }}

func newWireSender(addr string, timeout time.Duration, predial *preDialer) *wireSender {
	return &wireSender{
		addr:       addr,
		dialer:     net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		timeout:    timeout,
		predial:    predial,
		staleAfter: time.Second,
		open:       map[*wireConn]struct{}{},
	}
}

// Send writes wire (one whole request) and reads its answer. ctx is the
// run's: once it is done, Send returns at once. It returns the answer and
// when the request was written (zero when it was not).
func (s *wireSender) Send(ctx context.Context, wire []byte, head bool, buf func() []byte) (Answer, time.Time) {
	var a Answer
	if ctx.Err() != nil {
		a.Err = context.Cause(ctx)
		return a, time.Time{}
	}
	deadline := time.Now().Add(s.timeout)
	c, err := s.conn(ctx, deadline)
	if err != nil {
		a.Err, a.ClientTimeout = s.fault(ctx, err)
		return a, time.Time{}
	}
	if err := c.SetDeadline(deadline); err != nil {
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, err)
		return a, time.Time{}
	}
	if _, err := c.Conn.Write(wire); err != nil {
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, err)
		return a, time.Time{}
	}
	wrote := time.Now()
	// Park here, on the connection alone, until the answer starts.
	n, err := c.Conn.Read(c.head[:])
	if n == 0 {
		if err == nil {
			err = io.ErrNoProgress
		}
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, err)
		return a, wrote
	}
	c.pending = c.head[:n]

	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	resp.SkipBody = head
	br := wireReaders.Get().(*bufio.Reader)
	br.Reset(c)
	err = resp.ReadLimitBody(br, maxDrain)
	keep := err == nil
	var small *fasthttp.ErrSmallBuffer
	if errors.As(err, &small) {
		// A header longer than the pooled reader: read it again through a
		// bigger one stacked on it (the shorter one's bytes are unread).
		err = resp.ReadLimitBody(bufio.NewReaderSize(br, wireMaxHeaderSize), maxDrain)
		keep = false
	}
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		// Like net/http's drain limit: the answer is the status and
		// headers; the connection is not worth draining.
		err, keep = nil, false
	}
	keep = keep && br.Buffered() == 0 && len(c.pending) == 0 && !resp.ConnectionClose()
	br.Reset(nil)
	wireReaders.Put(br)
	if err != nil {
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, wireErr(err))
		return a, wrote
	}
	if keep {
		s.release(c)
	} else {
		s.discard(c)
	}
	a.Status = resp.StatusCode()
	a.Header = neededHeaders(&resp.Header)
	if body := resp.Body(); len(body) > 0 {
		b := buf()
		a.Body = b[:copy(b, body)]
	}
	return a, wrote
}

// fault names a failure the way net/http names the same one: the probe's
// own deadline is a client timeout, a cancelled run is the run's cause.
func (s *wireSender) fault(ctx context.Context, err error) (error, bool) {
	if ctx.Err() != nil {
		return context.Cause(ctx), false
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, fasthttp.ErrTimeout) {
		return errClientTimeout, true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errClientTimeout, true
	}
	return err, false
}

// wireErr maps the codec's errors onto net/http's words for the same fault,
// so classification and details read alike whichever sender ran.
func wireErr(err error) error {
	var broken fasthttp.ErrBrokenChunk
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &broken):
		return io.ErrUnexpectedEOF
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, fasthttp.ErrTimeout):
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return err
	}
	// Anything else is the codec refusing what it read.
	return fmt.Errorf("malformed HTTP response: %w", err)
}

// conn takes an idle connection, else a pre-dialled one, else dials.
func (s *wireSender) conn(ctx context.Context, deadline time.Time) (*wireConn, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errRunCancelled
	}
	for n := len(s.idle); n > 0; n = len(s.idle) {
		c := s.idle[n-1]
		s.idle[n-1] = nil
		s.idle = s.idle[:n-1]
		if time.Since(c.idleSince) < s.staleAfter {
			s.mu.Unlock()
			return c, nil
		}
		s.mu.Unlock()
		if alive(c.Conn) {
			return c, nil
		}
		s.discard(c)
		s.mu.Lock()
	}
	s.mu.Unlock()
	var nc net.Conn
	if s.predial != nil {
		nc = s.predial.take()
	}
	if nc == nil {
		d := s.dialer
		d.Deadline = deadline
		var err error
		if nc, err = d.DialContext(ctx, "tcp", s.addr); err != nil {
			return nil, err
		}
	}
	c := &wireConn{Conn: nc}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		nc.Close()
		return nil, errRunCancelled
	}
	s.open[c] = struct{}{}
	return c, nil
}

func (s *wireSender) release(c *wireConn) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.Conn.Close()
		return
	}
	c.idleSince = time.Now()
	s.idle = append(s.idle, c)
	s.mu.Unlock()
}

func (s *wireSender) discard(c *wireConn) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
	c.Conn.Close()
}

// closeAll ends the run's connections: requests blocked on them return at
// once, and no new one is opened.
func (s *wireSender) closeAll() {
	s.mu.Lock()
	s.closed = true
	open := s.open
	s.open = map[*wireConn]struct{}{}
	s.idle = nil
	s.mu.Unlock()
	for c := range open {
		c.Conn.Close()
	}
}

// closeIdle closes the connections nobody is using (the run is over).
func (s *wireSender) closeIdle() {
	s.mu.Lock()
	idle := s.idle
	s.idle = nil
	for _, c := range idle {
		delete(s.open, c)
	}
	s.mu.Unlock()
	for _, c := range idle {
		c.Conn.Close()
	}
}

var errRunCancelled = errors.New("run cancelled")

// renderWire renders req as the HTTP/1.1 bytes net/http's transport would
// send for it (with compression off, as newTransport has it).
func renderWire(req *http.Request) ([]byte, error) {
	var b bytes.Buffer
	if err := req.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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
