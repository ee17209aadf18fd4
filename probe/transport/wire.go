package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"
)

// wireSender sends HTTP/1.1 over connections it dials and keeps itself:
// each request is written as the bytes net/http's Request.Write renders
// (Prepare), and the answer is read with net/http's ReadResponse. Owning
// the connection is what neither net/http's client nor valyala/fasthttp's
// allows:
//
//   - the write time is known exactly (the budget check measures from it);
//   - a parked request costs one goroutine blocked in Read, a 512-byte head
//     buffer and its socket, with no reader or writer goroutines; the
//     bufio.Reader the codec needs is taken from a pool only once the
//     answer's first bytes are in (10,000 parked requests in under 100 MiB);
//   - the per-request deadline is the connection's own (no timer, context
//     or goroutine per request), so --timeout ends any request, a 101's
//     included, and Close ends every request at once; the connection
//     keeps it across requests while it is far enough off (keepDeadline).
//
// Where net/http is right, it behaves as net/http does: a connection is
// kept only when the request and the answer allow it (Connection: close)
// and nothing is left unread on it; a reused or pre-dialled connection is
// checked before the request is written; a request that provably never
// reached the server (nothing written, or for an idempotent request the
// connection ended before any byte of an answer) is resent, and counted
// as a resend of one request (net/http's persistConn.shouldRetryRequest,
// go1.26 src/net/http/transport.go); the answer is read even when the
// write of a large body fails. A request that reached the server is never
// sent again.
type wireSender struct {
	addr string
	// dial opens connections: TCPDial, or Config.Dial.
	dial    DialFunc
	timeout time.Duration
	predial *Predialer

	// dials bounds the dials in progress: when answers lag, an open run
	// would otherwise dial a connection for every request that finds none
	// idle, and the storm of handshakes (the target's as much as the
	// probe's) slows answers further. A request that finds the dials at
	// their limit takes the first connection handed back instead
	// (handoff), or the first free dial slot.
	dials   chan struct{}
	handoff chan *wireConn
	// idleReady is signalled while a connection is idle, so a request
	// waiting in awaitConn does not miss one put there between its look
	// at the idle list and its wait (a handoff finds only a request
	// already waiting): it holds a signal whenever the list is non-empty
	// after a release or a take.
	idleReady chan struct{}
	// checkFree is checkFreeIdle (tests lengthen it, so that a busy
	// machine's scheduling does not decide what they test).
	checkFree time.Duration
	// writeTimes: read the clock when a request is written whole
	// (Config.WriteTimes).
	writeTimes bool

	mu     sync.Mutex
	idle   []*wireConn
	open   map[*wireConn]struct{}
	closed bool
}

// wireConn is one connection and the bytes read from it before a reader
// was attached.
type wireConn struct {
	net.Conn
	raw     syscall.RawConn
	head    [512]byte
	pending []byte
	// reused: the connection carried an answer before; predialled: it was
	// opened before the load. Either way the server may have closed it
	// since, so a request that finds it closed before any answer may be
	// resent (neverAnswered).
	reused, predialled bool
	// released is when the connection was last handed back (the clock
	// read that also ends its answer's latency, Answer.Done), and
	// afterHead says its last answer was a HEAD's: see skipCheck.
	released  time.Time
	afterHead bool
	// left is how many more bytes the answer being read may take: like
	// net/http's MaxResponseHeaderBytes, it stops a server that never ends
	// its header from filling the probe's memory.
	left int
	// deadline is the deadline set on the connection, until the request's
	// own; a deadline after until is moved to until (keepDeadline).
	deadline, until time.Time
}

// keepDeadline gives c the deadline until, for a request sent at now:
// the connection keeps the deadline it has while that is at least half a
// timeout off and no later than until, and otherwise takes until. Moving
// a deadline is a change to the runtime's timers and a clock read, and a
// closed run moved it on every request; now it moves about once every
// half timeout a connection. A read or write the kept deadline ends
// before until goes on to until (extend), so the request ends at its own
// deadline, neither before nor after. (A deadline after until is a
// request's sent later that took c first: a request that waited for a
// connection must not wait past its own deadline on it.)
func (c *wireConn) keepDeadline(now, until time.Time, timeout time.Duration) error {
	c.until = until
	if !c.deadline.After(until) && c.deadline.Sub(now) >= timeout/2 {
		return nil
	}
	return c.setDeadline(until)
}

// setDeadline sets c's deadline to t.
func (c *wireConn) setDeadline(t time.Time) error {
	if err := c.Conn.SetDeadline(t); err != nil {
		return err
	}
	c.deadline = t
	return nil
}

// extend says whether err is the connection's deadline ending a read or
// write before the request's own, and if so moves the deadline to the
// request's, so the read or write may go on.
func (c *wireConn) extend(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded) && c.deadline.Before(c.until) && c.setDeadline(c.until) == nil
}

// read reads from the connection up to the request's own deadline.
func (c *wireConn) read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		if n > 0 || !c.extend(err) {
			return n, err
		}
	}
}

// write writes b whole, up to the request's own deadline.
func (c *wireConn) write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	for err != nil && n < len(b) && c.extend(err) {
		var m int
		m, err = c.Conn.Write(b[n:])
		n += m
	}
	return n, err
}

// checkFreeIdle is how long a connection handed back may sit idle and still
// be reused without the check (the MSG_PEEK in aliveRaw) for a replayable
// request. In closed mode a connection is reused microseconds after its
// answer, and the check was the one system call a request paid beyond
// bombardier's (4.3 system calls a request against its 3.4). It is far
// below any server's idle timeout (a 408 on idle after 20 ms is tested),
// so bytes a server sends on idle are still found by the check.
const checkFreeIdle = time.Millisecond

// skipCheck says a reused connection may carry the request without the
// check, because the resend rule already covers what the check would find:
// a replayable request written on a reused connection the server had
// closed (a FIN or a reset that raced the request) reads no byte of an
// answer and is resent (neverAnswered), exactly once, and counted as one
// request (bench/kaclose stays exact). The check stays where the resend
// rule does not reach: a request that may not be resent (a POST with a
// body), a pre-dialled connection (a reset on one is not resent), and
// bytes nobody asked for, which a server sends only after the connection
// sat idle (a 408 on its idle timeout, far longer than checkFreeIdle) or after
// a HEAD answer (a body it should not have sent); those would otherwise
// be read as this request's answer. Only a request's first attempt skips
// it (mayskip): its resend checks every connection it takes. now is when
// the request was sent (the caller's clock read its deadline runs from): a
// connection released since then has been idle less than that.
func (s *wireSender) skipCheck(c *wireConn, mayskip bool, now time.Time) bool {
	return mayskip && c.reused && !c.afterHead && now.Sub(c.released) < s.checkFree
}

// maxDials is how many connections a wire sender dials at once.
const maxDials = 64

// maxResends bounds the resends of one request: each needs a connection
// that ended before answering, and a fresh one is never resent on.
const maxResends = 8

// inlineWrite is the largest request written before its answer is read.
// A larger one is written by a goroutine while the answer is read, as
// net/http does, so a server that answers before reading a large body
// (an early 503) is heard, not seen as a reset of the write.
const inlineWrite = 64 << 10

// maxAnswerBytes bounds one answer's header and drained body together:
// net/http's default header limit plus the drain limit.
const maxAnswerBytes = 10<<20 + MaxDrain + 1

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
	n, err := c.read(p)
	c.left -= n
	return n, err
}

// wireReaders are the readers answers are parsed through, taken only once
// an answer's first bytes are in; net/http's parser reads a header of any
// length through them.
var wireReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

func newWireSender(addr string, timeout time.Duration, predial *Predialer) *wireSender {
	return &wireSender{
		addr:    addr,
		dial:    TCPDial,
		timeout: timeout,
		predial: predial,
		dials:   make(chan struct{}, maxDials),
		handoff: make(chan *wireConn),
		open:    map[*wireConn]struct{}{},

		idleReady: make(chan struct{}, 1),

		checkFree: checkFreeIdle,
	}
}

// Send writes r and reads its answer, resending it (up to maxResends)
// while it provably never reached the server.
func (s *wireSender) Send(ctx context.Context, r *Request, sent time.Time, buf PrefixBuf) (Answer, time.Time) {
	if ctx.Err() != nil {
		return Answer{Err: context.Cause(ctx)}, time.Time{}
	}
	deadline := sent.Add(s.timeout)
	for resends := 0; ; resends++ {
		// Only a first attempt may skip the check of a reused connection:
		// a resend checks every connection it takes, so a pile of idle
		// connections the server closed costs one resend, not all of them.
		a, wrote, again := s.attempt(ctx, r, sent, deadline, buf, resends == 0)
		if !again || resends == maxResends {
			a.Resends = resends
			return a, wrote
		}
	}
}

// written is how a request's write ended.
type written struct {
	n   int64
	err error
	at  time.Time
}

// attempt sends r once on one connection. again says the request never
// reached the server and may be sent again on another.
func (s *wireSender) attempt(ctx context.Context, r *Request, now, deadline time.Time, buf PrefixBuf, first bool) (a Answer, wrote time.Time, again bool) {
	c, err := s.conn(ctx, now, deadline, r.replayable && first)
	if err != nil {
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
		return a, time.Time{}, false
	}
	if len(r.body) > 0 && !c.deadline.Equal(deadline) {
		// A request with a body takes its own deadline before it is
		// written: the write of a large one runs beside the read, and a
		// deadline is moved only by the request's own goroutine.
		if err := c.setDeadline(deadline); err != nil {
			s.discard(c)
			a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
			return a, time.Time{}, false
		}
	}
	var w written
	var background chan written
	switch size := len(r.head) + len(r.body); {
	case size <= inlineWrite && len(r.body) == 0:
		// A request without a body (most are) is one plain write: no
		// net.Buffers on the heap for it.
		var n int
		n, w.err = c.write(r.head)
		w.n = int64(n)
		s.noteWrite(&w)
	case size <= inlineWrite:
		bufs := net.Buffers{r.head, r.body}
		w.n, w.err = bufs.WriteTo(c.Conn)
		s.noteWrite(&w)
	default:
		background = make(chan written, 1)
		go s.writeAll(c.Conn, net.Buffers{r.head, r.body}, background)
	}
	// awaitWrite ends a background write: at once when the answer came
	// before the body was taken whole (closing the connection).
	awaitWrite := func(force bool) {
		if background == nil {
			return
		}
		if force {
			select {
			case w = <-background:
			default:
				c.Conn.Close()
				w = <-background
			}
		} else {
			w = <-background
		}
		background = nil
	}

	var n int
	var rerr error
	if w.err == nil || w.n > 0 {
		// Even when the write failed part way, the server may have
		// answered (an early 503 before a large body): read it.
		n, rerr = c.read(c.head[:])
	}
	if n == 0 {
		awaitWrite(true)
		s.discard(c)
		if rerr == nil || w.err != nil && w.n == 0 {
			rerr = w.err
		}
		if w.err == nil && rerr == nil {
			rerr = io.ErrNoProgress
		}
		again = ctx.Err() == nil && (c.reused || c.predialled) &&
			(w.n == 0 && w.err != nil || r.replayable && neverAnswered(rerr, c.reused))
		if w.err == nil {
			wrote = w.at
		}
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, wireErr(rerr))
		return a, wrote, again
	}
	c.pending = c.head[:n]
	c.left = maxAnswerBytes - n

	br := wireReaders.Get().(*bufio.Reader)
	br.Reset(c)
	status, header, body, keep, err := readAnswer(br, r.isHead, buf)
	keep = keep && !r.close && br.Buffered() == 0 && len(c.pending) == 0
	br.Reset(nil)
	wireReaders.Put(br)
	awaitWrite(!keep || err != nil)
	if w.err == nil {
		wrote = w.at
	}
	// Read before release: a released connection is another request's.
	reused := c.reused
	if err != nil || w.err != nil || !keep {
		s.discard(c)
	} else {
		c.afterHead = r.isHead
		// The one clock read after the answer: when it was read whole,
		// for the latency (Answer.Done), and when c was handed back.
		a.Done = time.Now()
		s.release(c, a.Done)
	}
	if err != nil {
		a.Err, a.ClientTimeout = s.fault(ctx, deadline, err)
		return a, wrote, false
	}
	a.Status, a.Header, a.Body = status, header, body
	return a, wrote, ctx.Err() == nil && idleTimeoutAnswer(status, !keep, reused, r.replayable)
}

// noteWrite reads the clock for a write that just ended, when the
// sender notes write times.
func (s *wireSender) noteWrite(w *written) {
	if s.writeTimes {
		w.at = time.Now()
	}
}

// writeAll writes a large request while its answer is read (attempt).
func (s *wireSender) writeAll(c net.Conn, bufs net.Buffers, done chan<- written) {
	w := written{}
	w.n, w.err = bufs.WriteTo(c)
	s.noteWrite(&w)
	done <- w
}

// neverAnswered says a read that got no byte of an answer failed because
// the server closed the connection (a clean end of stream), or, on a
// connection that carried an answer before, reset it: net/http resends an
// idempotent request on a reused connection then (errServerClosedIdle and
// transportReadFromServerError). A reset of a connection that carried
// nothing yet is the server's answer to this request (a router that
// aborts it), and is not hidden by a resend.
func neverAnswered(err error, reused bool) bool {
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	return reused && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED))
}

// headRequest tells http.ReadResponse that an answer has no body.
var headRequest = &http.Request{Method: http.MethodHead}

// readAnswer reads one answer with net/http's own parser, skipping interim
// 1xx answers as net/http's transport does; its body's first bytes go into
// buf (taken only when there is a body), the rest is drained up to
// MaxDrain. keep says whether the answer lets the connection carry
// another request.
func readAnswer(br *bufio.Reader, head bool, buf PrefixBuf) (status int, header http.Header, body []byte, keep bool, err error) {
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
	// A 101 switched the connection to another protocol: what follows is
	// not this answer's body, and net/http never reuses one either.
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return resp.StatusCode, resp.Header, nil, false, nil
	}
	// The body is not closed: Close of a body ReadResponse made reads it
	// to its end, which a body over the drain limit must not be. A body
	// read to EOF needs no Close; any other one's connection is dropped.
	if resp.Body != http.NoBody && resp.ContentLength != 0 {
		b := buf.PrefixBuf()
		n, rerr := readPrefix(resp.Body, b)
		body = b[:n]
		switch rerr {
		case io.EOF:
			rerr = nil
		case nil:
			// Drain one byte past the limit to learn whether the body
			// ended within it; a longer one closes the connection.
			var m int64
			m, rerr = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxDrain+1))
			if rerr == nil && m > MaxDrain {
				return resp.StatusCode, resp.Header, body, false, nil
			}
		}
		if rerr != nil {
			return 0, nil, nil, false, wireErr(rerr)
		}
	}
	return resp.StatusCode, resp.Header, body, !resp.Close, nil
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
		// may not say so yet (Close and the shards' contexts are
		// cancelled in no set order).
		return context.Canceled, false
	}
	// A timeout is the client timeout only once the request's deadline
	// has passed: the dialer's own 10 s (shorter than the default
	// --timeout) or a kernel ETIMEDOUT is a transport error, as it is
	// through net/http.
	var ne net.Error
	if (errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) && !time.Now().Before(deadline) {
		return ErrClientTimeout, true
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

// conn takes a connection for a request: an idle one that is still
// usable, else a pre-dialled one, else one another request hands back or
// leaves idle, else it dials. Its deadline is set to deadline; mayskip
// says the resend rule covers the request, so a freshly reused connection
// needs no check (skipCheck).
func (s *wireSender) conn(ctx context.Context, now, deadline time.Time, mayskip bool) (*wireConn, error) {
	for {
		c, err := s.idleConn(now, deadline, mayskip)
		if c != nil || err != nil {
			return c, err
		}
		if s.predial != nil {
			if nc := s.predial.take(); nc != nil {
				c, err := s.adopt(nc, true)
				if err != nil {
					return nil, err
				}
				if s.usable(c, now, deadline, mayskip) {
					return c, nil
				}
				continue
			}
		}
		select {
		case s.dials <- struct{}{}:
			return s.dialConn(ctx, deadline)
		default:
		}
		// Dials are at their limit: the first connection another request
		// hands back or leaves idle is as good as a new one.
		c, slot, err := s.awaitConn(ctx, deadline)
		switch {
		case err != nil:
			return nil, err
		case slot:
			return s.dialConn(ctx, deadline)
		case c != nil && s.usable(c, now, deadline, mayskip):
			return c, nil
		}
	}
}

// idleConn takes the most recently idle connection that is still usable;
// nil when none is.
func (s *wireSender) idleConn(now, deadline time.Time, mayskip bool) (*wireConn, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		n := len(s.idle)
		if n == 0 {
			s.mu.Unlock()
			return nil, nil
		}
		c := s.idle[n-1]
		s.idle[n-1] = nil
		s.idle = s.idle[:n-1]
		more := n > 1
		s.mu.Unlock()
		if more {
			// The signal this take may have used stays for the rest.
			s.signalIdle()
		}
		if s.usable(c, now, deadline, mayskip) {
			return c, nil
		}
	}
}

// dialConn dials a connection in the dial slot the caller holds.
func (s *wireSender) dialConn(ctx context.Context, deadline time.Time) (*wireConn, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	nc, err := s.dial(dctx, "tcp", s.addr)
	cancel()
	<-s.dials
	if err != nil {
		return nil, err
	}
	c, err := s.adopt(nc, false)
	if err != nil {
		return nil, err
	}
	c.until = deadline
	if err := c.setDeadline(deadline); err != nil {
		s.discard(c)
		return nil, err
	}
	return c, nil
}

// usable gives c the request's deadline (keepDeadline) and checks,
// without waiting, that the server has not closed c nor left bytes on
// it; a connection that fails is dropped.
func (s *wireSender) usable(c *wireConn, now, deadline time.Time, mayskip bool) bool {
	if c.keepDeadline(now, deadline, s.timeout) == nil && (c.raw == nil || s.skipCheck(c, mayskip, now) || aliveRaw(c.raw)) {
		return true
	}
	s.discard(c)
	return false
}

// adopt makes nc one of the sender's open connections.
func (s *wireSender) adopt(nc net.Conn, predialled bool) (*wireConn, error) {
	c := &wireConn{Conn: nc, predialled: predialled}
	if sc, ok := nc.(syscall.Conn); ok {
		c.raw, _ = sc.SyscallConn()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		nc.Close()
		return nil, ErrClosed
	}
	s.open[c] = struct{}{}
	return c, nil
}

// awaitConn waits for a connection another request hands back (c), for
// a dial slot (slot), or for a connection left idle (neither: the caller
// looks at the idle list again), whichever comes first.
func (s *wireSender) awaitConn(ctx context.Context, deadline time.Time) (c *wireConn, slot bool, err error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case c := <-s.handoff:
		return c, false, nil
	case s.dials <- struct{}{}:
		return nil, true, nil
	case <-s.idleReady:
		return nil, false, nil
	case <-ctx.Done():
		return nil, false, context.Cause(ctx)
	case <-t.C:
		return nil, false, os.ErrDeadlineExceeded
	}
}

// signalIdle notes that a connection is idle, for a request waiting in
// awaitConn; one signal at most is kept.
func (s *wireSender) signalIdle() {
	select {
	case s.idleReady <- struct{}{}:
	default:
	}
}

// release hands c, whose answer was read whole at at, to the next request.
func (s *wireSender) release(c *wireConn, at time.Time) {
	c.reused = true
	c.released = at
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
	s.idle = append(s.idle, c)
	s.mu.Unlock()
	s.signalIdle()
}

func (s *wireSender) discard(c *wireConn) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
	c.Conn.Close()
}

// Close ends the sender's connections: requests blocked on them return at
// once, and no new one is opened.
func (s *wireSender) Close() {
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

// CloseIdle closes the connections nobody is using (the run is over).
func (s *wireSender) CloseIdle() {
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
