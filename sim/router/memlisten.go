package router

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// MemListener is an in-memory net.Listener whose connections are net.Pipe
// pairs. Tests run the simulator over it inside a testing/synctest bubble,
// where real sockets are not allowed; Transport dials it.
type MemListener struct {
	addr   memAddr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

type memAddr string

func (a memAddr) Network() string { return "mem" }
func (a memAddr) String() string  { return string(a) }

// ErrListenerClosed is returned by Accept and Dial after Close.
var ErrListenerClosed = errors.New("mem listener closed")

// NewMemListener returns a listener known by addr, a host:port such as
// "router.test:80" that URLs will carry.
func NewMemListener(addr string) *MemListener {
	return &MemListener{addr: memAddr(addr), conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept waits for the next Dial.
func (l *MemListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, ErrListenerClosed
	}
}

// Close stops Accept and Dial.
func (l *MemListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr is the address given to NewMemListener.
func (l *MemListener) Addr() net.Addr { return l.addr }

// Dial connects to the listener.
func (l *MemListener) Dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, ErrListenerClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Transport is an http.Transport that reaches each listener by its address
// and nothing else.
func Transport(ls ...*MemListener) *http.Transport {
	byAddr := make(map[string]*MemListener, len(ls))
	for _, l := range ls {
		byAddr[l.addr.String()] = l
	}
	return &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			l, ok := byAddr[addr]
			if !ok {
				return nil, &net.OpError{Op: "dial", Net: "mem", Err: errors.New("no mem listener at " + addr)}
			}
			return l.Dial(ctx)
		},
		MaxIdleConnsPerHost: 64,
	}
}
