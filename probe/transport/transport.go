// Package transport is the probe's HTTP client seam: one Sender interface,
// implemented by a net/http sender and by the wire sender (connections of
// its own, read and written with net/http's codec). The engine holds a
// Sender and never asks which one it holds.
//
// The package knows requests, answers and connections; it knows nothing of
// outcomes, checks or reports (it imports neither probe nor probe/report).
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http/httpguts"
)

// idleTimeoutAnswer says an answer is a server's notice that it closed a
// connection it held idle, not an answer to the request written on it: a
// 408 that closes the connection, read on a connection that carried an
// answer before, for a request that may be sent again. A server's idle
// timeout (nginx's, Envoy's) can fire just as a request is written to the
// connection it is closing, and the 408 then arrives where the request's
// answer was expected; RFC 9110 §15.5.9 lets the client repeat the request
// on a new connection. net/http drops such a 408 only when it arrives
// before the request is written, and a peek before the write cannot close
// the race either, so both senders resend on this rule and count it as
// one request (Answer.Resends).
func idleTimeoutAnswer(status int, closes, reused, replayable bool) bool {
	return status == http.StatusRequestTimeout && closes && reused && replayable
}

// Names of the senders, as --transport and the report's "transport" field
// spell them.
const (
	Wire    = "wire"
	NetHTTP = "net/http"
)

// MaxDrain bounds how much of a body is read to keep its connection; a
// bigger body closes the connection instead.
const MaxDrain = 1 << 20

// ErrClientTimeout is the cause of a request whose --timeout fired.
var ErrClientTimeout = errors.New("client timeout")

// ErrClosed is what a request gets from a sender that was closed (the run
// was cancelled).
var ErrClosed = errors.New("run cancelled")

// Answer is what one request got back: an HTTP answer (Status, Header and the
// first bytes of Body), or a failure to get one (Err).
type Answer struct {
	Status int
	Header http.Header
	// Body is the start of the answer's body; classification needs no more
	// than the first few hundred bytes.
	Body []byte
	// Err is set when no complete answer arrived (refused, reset, EOF,
	// cancelled...).
	Err error
	// ClientTimeout is set when the probe's own per-request --timeout fired.
	ClientTimeout bool
	// Done is when the answer was read whole, when the sender read the
	// clock for its own reasons then (the wire sender, handing the
	// connection back); zero otherwise, and the caller reads it.
	Done time.Time
	// Resends is how many times the request was sent again because it
	// provably never reached the server (nothing was written, or the
	// connection ended before any byte of an answer, as net/http's
	// transport resends). It is still one request.
	Resends int
}

// PrefixBuf hands out the buffer an answer body's first bytes go into. An
// interface, not a func: the probe's own request record provides it, so a
// request costs no closure on the heap.
type PrefixBuf interface {
	PrefixBuf() []byte
}

// PrefixBufFunc is a func as a PrefixBuf.
type PrefixBufFunc func() []byte

// PrefixBuf calls f.
func (f PrefixBufFunc) PrefixBuf() []byte { return f() }

// Sender sends prepared requests.
type Sender interface {
	// Send sends r and reads its answer; buf hands out the buffer the
	// body's first bytes go into (asked only once an answer is in). sent
	// is when the caller sent r, by its own clock read: the per-request
	// timeout (the sender's own) runs from it, so the sender reads no
	// clock before the request goes out. It returns the answer (Err set
	// when none arrived) and when the request was written whole: zero
	// when it was not, or when the sender does not note it
	// (Config.WriteTimes). ctx is the run's: once it is done, Send
	// returns.
	Send(ctx context.Context, r *Request, sent time.Time, buf PrefixBuf) (Answer, time.Time)
	// CloseIdle closes the connections no request is using.
	CloseIdle()
	// Close ends every connection: requests in flight return at once,
	// and no new one is sent. It may be called more than once.
	Close()
}

// Config says how to build a Sender.
type Config struct {
	// Kind is Wire or NetHTTP.
	Kind string
	// Addr is the one host:port every request dials; the wire sender
	// needs it (a --url-template with the actor in the host has none).
	Addr string
	// Timeout is the per-request timeout.
	Timeout time.Duration
	// Conns is how many connections the run may hold at once (the size of
	// net/http's idle pool).
	Conns int
	// Predial, when set, hands out connections opened before the load.
	Predial *Predialer
	// RoundTripper, when set, carries the net/http sender's requests
	// instead of its own tuned transport (tests use in-memory ones).
	RoundTripper http.RoundTripper
	// Dial opens the connections; nil is TCPDial (tests dial in-memory
	// listeners).
	Dial DialFunc
	// WriteTimes: Send reports when each request was written whole, a
	// clock read a request that only a run measuring from the write
	// needs.
	WriteTimes bool
}

// DialFunc opens a connection to addr, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// TCPDial is a real run's dialer: 10 s to connect (shorter than the
// default --timeout, so a dial that hangs is a transport error, as it is
// through net/http), and TCP keep-alives every 30 s.
func TCPDial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return d.DialContext(ctx, network, addr)
}

// Choose is the sender a run uses when the user asked for kind ("" for
// the default): the wire sender for plain http:// to one address,
// net/http for https:// (TLS) and for targets that dial many addresses.
// An error says why the requested kind cannot send to that target.
func Choose(kind, scheme, addr string) (string, error) {
	switch kind {
	case "":
		if scheme == "http" && addr != "" {
			return Wire, nil
		}
		return NetHTTP, nil
	case NetHTTP:
		return NetHTTP, nil
	case Wire:
		if scheme != "http" {
			return "", fmt.Errorf("the wire sender speaks plain http:// only, not %s://", scheme)
		}
		if addr == "" {
			return "", errors.New("the wire sender needs one address to dial; this URL template puts the actor in the host")
		}
		return Wire, nil
	}
	return "", fmt.Errorf("unknown transport %q: want %s or %s", kind, Wire, NetHTTP)
}

// New builds the sender c describes.
func New(c Config) (Sender, error) {
	switch c.Kind {
	case Wire:
		if c.Addr == "" {
			return nil, errors.New("the wire sender needs an address")
		}
		s := newWireSender(c.Addr, c.Timeout, c.Predial)
		s.writeTimes = c.WriteTimes
		if c.Dial != nil {
			s.dial = c.Dial
		}
		return s, nil
	case NetHTTP:
		return newNetHTTPSender(c), nil
	}
	return nil, fmt.Errorf("unknown transport %q", c.Kind)
}

// Request is a request prepared once and sent any number of times, by
// either sender: the net/http request (without its body), the same
// request rendered as HTTP/1.1 bytes for the wire sender, and the body,
// shared by every send and never copied (a burst of 10,000 POSTs holds
// one body).
type Request struct {
	req  *http.Request
	head []byte
	body []byte
	// isHead: the answer has no body. close: the request asks the server
	// to close the connection after it (Connection: close). replayable:
	// the method is idempotent, so a request the server closed on before
	// answering may be sent again (net/http's rule).
	isHead, close, replayable bool
}

// Prepare renders req with body (nil for none). req must not be changed
// afterwards; its own Body is ignored. An error is what net/http would
// refuse to send (an invalid Host, say).
func Prepare(req *http.Request, body []byte) (*Request, error) {
	r := &Request{
		req:    req,
		body:   body,
		isHead: req.Method == http.MethodHead,
		close:  req.Close || httpguts.HeaderValuesContainsToken(req.Header["Connection"], "close"),
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		r.replayable = true
	default:
		// net/http treats a request with an idempotency key as replayable.
		_, a := req.Header["Idempotency-Key"]
		_, b := req.Header["X-Idempotency-Key"]
		r.replayable = a || b
	}
	// What net/http's Transport refuses before sending, both senders
	// refuse (go1.26 src/net/http/transport.go, roundTrip).
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Errorf("net/http: invalid header field name %q", k)
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, fmt.Errorf("net/http: invalid header field value for %q", k)
			}
		}
	}
	head, err := renderHead(req, len(body))
	if err != nil {
		return nil, err
	}
	r.head = head
	return r, nil
}

// Body is the request's body (shared: never modify it).
func (r *Request) Body() []byte { return r.body }

// renderHead renders req's request line and header as net/http's
// Request.Write does for a body of n bytes, without the body: the body's
// bytes are counted, never copied.
func renderHead(req *http.Request, n int) ([]byte, error) {
	w := &headWriter{}
	r := *req
	r.Body, r.GetBody, r.ContentLength = nil, nil, int64(n)
	if n > 0 {
		r.Body = io.NopCloser(&bodyMark{w: w, n: n})
	}
	if err := r.Write(w); err != nil {
		return nil, err
	}
	return w.b, nil
}

// headWriter keeps what Request.Write writes until the body starts. It is
// an io.ByteWriter, so Request.Write writes to it directly, not through a
// buffer that would mix the head with the body.
type headWriter struct {
	b    []byte
	body bool
}

func (w *headWriter) Write(p []byte) (int, error) {
	if !w.body {
		w.b = append(w.b, p...)
	}
	return len(p), nil
}

func (w *headWriter) WriteByte(c byte) error {
	if !w.body {
		w.b = append(w.b, c)
	}
	return nil
}

// bodyMark is a body of n bytes that tells w when it is first read.
type bodyMark struct {
	w *headWriter
	n int
}

func (m *bodyMark) Read(p []byte) (int, error) {
	m.w.body = true
	if m.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), m.n)
	m.n -= k
	return k, nil
}

// Detail names a transport failure in a few stable words, so a report can
// say what went wrong without one line per port number.
func Detail(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled), errors.Is(err, ErrClosed):
		return "canceled"
	case errors.Is(err, ErrClientTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "EOF"
	case errors.As(err, &errno):
		return errno.Error()
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "DNS: " + dnsErr.Err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "malformed HTTP"):
		return "malformed HTTP response"
	case strings.Contains(msg, "server gave HTTP response to HTTPS client"):
		return "HTTP response to HTTPS request"
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"):
		return "TLS: " + lastPart(msg)
	}
	return lastPart(msg)
}

// lastPart keeps the innermost clause of a wrapped error message, which is
// the part that does not vary with addresses.
func lastPart(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	if len(msg) > 80 {
		msg = msg[:80]
	}
	return msg
}

// readPrefix reads up to len(buf) bytes of body; io.EOF before that is the
// normal end of a short body.
func readPrefix(body io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := body.Read(buf[n:])
		n += m
		if err == io.EOF {
			return n, io.EOF
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
