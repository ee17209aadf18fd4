package transport

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Predialer opens a burst's (or an open run's first) connections before
// the load, so the load measures the router rather than a storm of TCP
// handshakes in the accept queue. Both senders take connections from it.
type Predialer struct {
	addr  string
	dial  DialFunc
	conns chan net.Conn
}

// NewPredialer dials addr with dial.
func NewPredialer(addr string, dial DialFunc) *Predialer {
	return &Predialer{addr: addr, dial: dial}
}

// Fill dials n connections, 256 at a time. Running out of file
// descriptors (or any other failure after the first success) stops it
// early with a warning; the rest dial on demand.
func (p *Predialer) Fill(ctx context.Context, n int, warn func(string)) error {
	p.conns = make(chan net.Conn, n)
	sem := make(chan struct{}, 256)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
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
			c, err := p.dial(ctx, "tcp", p.addr)
			if err != nil {
				mu.Lock()
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
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if firstErr != nil {
		if len(p.conns) == 0 {
			return firstErr
		}
		warn(fmt.Sprintf("opened only %d of %d connections before the burst (%s); the rest connect during it", len(p.conns), n, Detail(firstErr)))
	}
	return nil
}

// DialContext hands out a pre-dialled connection when one is left, else
// dials: it is what the net/http sender's transport dials with.
func (p *Predialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == p.addr {
		if c := p.take(); c != nil {
			return c, nil
		}
	}
	return p.dial(ctx, network, addr)
}

// take hands out a pre-dialled connection that is still open, or nil when
// none is left. Every one is checked: a server may close a connection
// that sent no request (nginx's client_header_timeout, Go's
// ReadHeaderTimeout) while it waits for --start-at, and net/http does not
// resend a request on a connection it thinks is new.
func (p *Predialer) take() net.Conn {
	if p.conns == nil {
		return nil
	}
	for {
		select {
		case c := <-p.conns:
			if alive(c) {
				return c
			}
			c.Close()
		default:
			return nil
		}
	}
}

// Drain closes the connections nobody took.
func (p *Predialer) Drain() {
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
