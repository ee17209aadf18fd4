package probe

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Sender performs one request and returns what classification needs. It is
// the one seam between the engine and the HTTP client (net/http today; a
// faster client can replace it). The request's context carries the
// per-request deadline (cause errClientTimeout) and the Run's cancellation;
// its Host is the actor's.
type Sender interface {
	// Send sends req and returns the status, the headers and the first
	// bytes of the body, read into the buffer buf returns (called only once
	// an answer is in), or Err when no complete answer arrived. The body
	// is drained (up to maxDrain) so the connection can be reused.
	Send(req *http.Request, buf func() []byte) Answer
}

// roundTripSender sends through an http.RoundTripper.
type roundTripSender struct{ rt http.RoundTripper }

func (s roundTripSender) Send(req *http.Request, buf func() []byte) Answer {
	var a Answer
	resp, err := s.rt.RoundTrip(req)
	if err != nil {
		a.Err = err
		return a
	}
	a.Status, a.Header = resp.StatusCode, resp.Header
	b := buf()
	n, err := readPrefix(resp.Body, b)
	a.Body = b[:n]
	switch err {
	case io.EOF:
		err = nil
	case nil:
		err = drain(resp.Body)
	}
	resp.Body.Close()
	a.Err = err
	return a
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

func drain(body io.Reader) error {
	_, err := io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	return err
}

// preDialer opens a burst's connections before its release, so the burst
// measures the router rather than a storm of TCP handshakes in the accept
// queue.
type preDialer struct {
	addr   string
	dialer *net.Dialer
	conns  chan net.Conn
	// filled is when fill returned.
	filled time.Time
}

// predialStaleAfter is how long after fill a pre-dialled connection is
// checked (alive) before it is handed out: a server may close a connection
// that sent no request (Go's ReadHeaderTimeout, sim router's included, is
// 10 s), and an open run may reach its last pre-dialled connections much
// later. A burst, released at most predialLead after fill, is not checked.
const predialStaleAfter = predialLead + time.Second

// fill dials n connections, 256 at a time. Running out of file descriptors
// stops it early with a warning; the rest dial on demand.
func (p *preDialer) fill(ctx context.Context, n int, warn func(string)) error {
	p.conns = make(chan net.Conn, n)
	sem := make(chan struct{}, 256)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	failed := 0
	for range n {
		if ctx.Err() != nil {
			break
		}
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := p.dialer.DialContext(ctx, "tcp", p.addr)
			if err != nil {
				mu.Lock()
				failed++
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				return
			}
			p.conns <- c
		}()
	}
	wg.Wait()
	p.filled = time.Now()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if firstErr != nil {
		if len(p.conns) == 0 {
			return firstErr
		}
		warn(fmt.Sprintf("opened only %d of %d connections before the burst (%s); the rest connect during it", len(p.conns), n, transportDetail(firstErr)))
	}
	return nil
}

// DialContext hands out a pre-dialled connection when one is left.
func (p *preDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == p.addr {
		if c := p.take(); c != nil {
			return c, nil
		}
	}
	return p.dialer.DialContext(ctx, network, addr)
}

// take hands out a pre-dialled connection that is still open, or nil when
// none is left.
func (p *preDialer) take() net.Conn {
	if p.conns == nil {
		return nil
	}
	for {
		select {
		case c := <-p.conns:
			if time.Since(p.filled) < predialStaleAfter || alive(c) {
				return c
			}
			c.Close()
		default:
			return nil
		}
	}
}

func (p *preDialer) drain() {
	if p.conns == nil {
		return
	}
	for {
		select {
		case c := <-p.conns:
			c.Close()
		default:
			return
		}
	}
}
