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
	"syscall"
	"time"
)

// Transport names, as the report's "transport" field spells them.
const (
	transportNetHTTP = "net/http"
	transportWire    = "wire"
)

// transportEnv set to "net/http" forces net/http, so tests and benchmarks
// can run the same load through both.
const transportEnv = "SHAKECTL_PROBE_TRANSPORT"

// chooseTransport picks the sender for a run: the wire sender for plain http://
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
	return transportWire
}

// wireSender sends HTTP/1.1 over connections it dials and keeps itself:
// each request is written as the bytes net/http's Request.Write rendered,
// and the answer is read with net/http's ReadResponse. Owning the
// connection is what neither net/http's client nor valyala/fasthttp's
// allows, and it is what issue 15 needed:
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

	// dials bounds the dials in progress: when answers lag, an open run
	// would otherwise dial a connection for every request that finds none
	// idle, and the storm of handshakes (the target's as much as the
	// probe's) slows answers further. A request that finds the dials at
	// their limit takes the first connection handed back instead
	// (handoff), or the first free dial slot.
	dials   chan struct{}
	handoff chan *wireConn

	mu     sync.Mutex
	idle   []*wireConn
	open   map[*wireConn]struct{}
	closed bool
}

// wireConn is one connection and the bytes read from it before a reader
// was attached.
type wireConn struct {
	net.Conn
	// raw is the socket under Conn; x and step are exchange's state and
	// its poller callback, bound once per connection.
	raw     syscall.RawConn
	x       exchangeState
	step    func(fd uintptr) bool
	head    [512]byte
	pending []byte
	// idleSince is when the connection went back to the idle pool.
	idleSince time.Time
	// left is how many more bytes the answer being read may take: like
	// net/http's MaxResponseHeaderBytes, it stops a server that never ends
	// its header from filling the probe's memory.
	left int
}

// maxAnswerBytes bounds one answer's header and drained body together:
// net/http's default header limit plus the drain limit.
const maxAnswerBytes = 10<<20 + maxDrain + 1

var errAnswerTooLong = errors.New("malformed HTTP response: answer longer than 11 MiB")

// Read hands out the head bytes first, then reads the connection: the
// pooled bufio.Reader sees the answer whole.
func (c *wireConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	if c.left <= 0 {
		return 0, errAnswerTooLong
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.Conn.Read(p)
	c.left -= n
	return n, err
}

// exchangeState is one exchange's progress through the poller's callback.
type exchangeState struct {
	rest       []byte
	wrote      time.Time
	n          int
	werr, rerr error
}

// exchangeConn writes req and reads the answer's first bytes into c.head
// through net.Conn. wrote is zero when the request was not written whole.
func (c *wireConn) exchangeConn(req []byte) (n int, wrote time.Time, err error) {
	if _, err := c.Conn.Write(req); err != nil {
		return 0, time.Time{}, err
	}
	wrote = time.Now()
	n, err = c.Conn.Read(c.head[:])
	return n, wrote, err
}

// wireReaders are the readers answers are parsed through, taken only once
// an answer's first bytes are in; net/http's parser reads a header of any
// length through them.
var wireReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

func newWireSender(addr string, timeout time.Duration, predial *preDialer) *wireSender {
	return &wireSender{
		addr:       addr,
		dialer:     net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		timeout:    timeout,
		predial:    predial,
		staleAfter: time.Second,
		dials:      make(chan struct{}, maxDials),
		handoff:    make(chan *wireConn),
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
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
		return a, time.Time{}
	}
	if err := c.SetDeadline(deadline); err != nil {
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
		return a, time.Time{}
	}
	// Park in exchange, on the connection alone, until the answer starts.
	n, wrote, err := c.exchange(wire)
	return s.answer(ctx, c, deadline, n, wrote, err, head, buf)
}

// answer reads the answer whose first n bytes exchange put in c.head, and
// keeps or drops c. wrote is when the request was written whole (zero when
// it was not), err what the exchange ended with.
func (s *wireSender) answer(ctx context.Context, c *wireConn, deadline time.Time, n int, wrote time.Time, err error, head bool, buf func() []byte) (Answer, time.Time) {
	var a Answer
	if wrote.IsZero() {
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
		return a, time.Time{}
	}
	if n == 0 {
		if err == nil {
			err = io.ErrNoProgress
		}
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
		return a, wrote
	}
	c.pending = c.head[:n]
	c.left = maxAnswerBytes - n

	br := wireReaders.Get().(*bufio.Reader)
	br.Reset(c)
	status, header, body, keep, err := readAnswer(br, head, buf)
	keep = keep && br.Buffered() == 0 && len(c.pending) == 0
	br.Reset(nil)
	wireReaders.Put(br)
	if err != nil {
		s.discard(c)
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
		return a, wrote
	}
	if keep {
		s.release(c)
	} else {
		s.discard(c)
	}
	a.Status, a.Header, a.Body = status, header, body
	return a, wrote
}

// pendingWrite is what writeNow left of a request: rest the socket did
// not take at once, wrote when it took the whole request, err a failed
// write.
type pendingWrite struct {
	rest  []byte
	wrote time.Time
	err   error
}

// idleFresh takes the idle connection used last, if it went idle within
// staleAfter: one that needs no check and no dial, so an open run's
// dispatcher can write on it without waiting. It returns nil otherwise.
func (s *wireSender) idleFresh() *wireConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.idle)
	if s.closed || n == 0 {
		return nil
	}
	c := s.idle[n-1]
	if c.raw == nil || time.Since(c.idleSince) >= s.staleAfter {
		return nil
	}
	s.idle[n-1] = nil
	s.idle = s.idle[:n-1]
	return c
}

// finishEarly completes a request the dispatcher wrote on c (writeNow):
// it writes what the socket did not take at once, then reads the answer
// as Send does.
func (s *wireSender) finishEarly(ctx context.Context, c *wireConn, deadline time.Time, p pendingWrite, head bool, buf func() []byte) (Answer, time.Time) {
	n, wrote, err := 0, p.wrote, p.err
	switch {
	case err != nil:
	case len(p.rest) > 0:
		n, wrote, err = c.exchangeConn(p.rest)
	default:
		// The first read is made before any wait: an end of stream that
		// came while the connection sat idle is seen at once.
		n, err = c.readHead(wrote)
	}
	return s.answer(ctx, c, deadline, n, wrote, err, head, buf)
}

// headRequest tells http.ReadResponse that an answer has no body.
var headRequest = &http.Request{Method: http.MethodHead}

// readAnswer reads one answer with net/http's own parser, skipping interim
// 1xx answers as net/http's transport does; its body's first bytes go into
// buf (taken only when there is a body), the rest is drained up to
// maxDrain. keep says whether the connection may carry another request.
func readAnswer(br *bufio.Reader, head bool, buf func() []byte) (status int, header http.Header, body []byte, keep bool, err error) {
	var req *http.Request
	if head {
		req = headRequest
	}
	var resp *http.Response
	for interim := 0; ; interim++ {
		if resp, err = http.ReadResponse(br, req); err != nil {
			return 0, nil, nil, false, wireErr(err)
		}
		if resp.StatusCode < 100 {
			// ReadResponse takes any three digits; 000 is not an answer.
			return 0, nil, nil, false, fmt.Errorf("malformed HTTP response: status %03d", resp.StatusCode)
		}
		if resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		if interim == 99 {
			return 0, nil, nil, false, errors.New("malformed HTTP response: too many 1xx answers")
		}
	}
	// The body is not closed: Close of a body ReadResponse made reads it
	// to its end, which a body over the drain limit must not be. A body
	// read to EOF needs no Close; any other one's connection is dropped.
	if resp.Body != http.NoBody && resp.ContentLength != 0 {
		b := buf()
		n, rerr := readPrefix(resp.Body, b)
		body = b[:n]
		switch rerr {
		case io.EOF:
			rerr = nil
		case nil:
			// Drain one byte past the limit to learn whether the body
			// ended within it; a longer one closes the connection.
			var m int64
			m, rerr = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain+1))
			if rerr == nil && m > maxDrain {
				return resp.StatusCode, resp.Header, body, false, nil
			}
		}
		if rerr != nil {
			return 0, nil, nil, false, wireErr(rerr)
		}
	}
	// A 101 switched the connection to another protocol (net/http never
	// reuses one either).
	return resp.StatusCode, resp.Header, body, !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols, nil
}

// fault names a failure the way net/http names the same one: the probe's
// own deadline is a client timeout, a cancelled run is the run's cause.
func (s *wireSender) fault(ctx context.Context, deadline time.Time, err error) (error, bool) {
	if ctx.Err() != nil {
		return context.Cause(ctx), false
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		// The run was cancelled and closed the connections; its context
		// may not say so yet (closeAll and the shards' contexts are
		// cancelled in no set order).
		return context.Canceled, false
	}
	// A timeout is the client timeout only once the request's deadline
	// has passed: the dialer's own 10 s (shorter than the default
	// --timeout) or a kernel ETIMEDOUT is a transport error, as it is
	// through net/http.
	var ne net.Error
	if (errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) && !time.Now().Before(deadline) {
		return errClientTimeout, true
	}
	return err, false
}

// wireErr names a cut-off answer as net/http's transport does.
func wireErr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
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
		// The previous request's deadline may have passed: RawConn.Read
		// would refuse before peeking, and a live connection look dead.
		c.Conn.SetReadDeadline(deadline)
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
		select {
		case s.dials <- struct{}{}:
		default:
			// Dials are at their limit: the first connection another
			// request hands back is as good as a new one.
			if c, err := s.awaitConn(ctx, deadline); c != nil || err != nil {
				return c, err
			}
		}
		d := s.dialer
		d.Deadline = deadline
		var err error
		nc, err = d.DialContext(ctx, "tcp", s.addr)
		<-s.dials
		if err != nil {
			return nil, err
		}
	}
	c := &wireConn{Conn: nc}
	if sc, ok := nc.(syscall.Conn); ok {
		c.raw, _ = sc.SyscallConn()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		nc.Close()
		return nil, errRunCancelled
	}
	s.open[c] = struct{}{}
	return c, nil
}

// awaitConn waits for a connection another request hands back, or for a
// dial slot (nil, nil), whichever comes first.
func (s *wireSender) awaitConn(ctx context.Context, deadline time.Time) (*wireConn, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case c := <-s.handoff:
		return c, nil
	case s.dials <- struct{}{}:
		return nil, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-t.C:
		return nil, os.ErrDeadlineExceeded
	}
}

func (s *wireSender) release(c *wireConn) {
	select {
	case s.handoff <- c:
		// A request waiting for a connection takes it straight away.
		return
	default:
	}
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

// maxDials is how many connections a wire sender dials at once.
const maxDials = 64

// renderWire renders req as the HTTP/1.1 bytes net/http's transport would
// send for it (with compression off, as newTransport has it).
func renderWire(req *http.Request) ([]byte, error) {
	var b bytes.Buffer
	if err := req.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
