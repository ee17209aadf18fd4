// Package memnet is the project's one in-memory network: listeners whose
// connections are net.Pipe pairs, and a Network that hands them out by
// address and dials them. A test runs servers and clients over it inside a
// testing/synctest bubble, where real sockets are not allowed (a goroutine
// waiting on a socket is not durably blocked, so the bubble's clock would
// stop), and the servers' timings then run on the bubble's virtual clock
// however busy the machine is.
package memnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// ErrListenerClosed is returned by Accept and Dial after Close; it is a
// net.ErrClosed, as a closed TCP listener's error is.
var ErrListenerClosed = fmt.Errorf("mem listener closed: %w", net.ErrClosed)

// Listener is an in-memory net.Listener whose connections are net.Pipe
// pairs; Dial connects to it.
type Listener struct {
	addr   addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	// net, when the listener came from Network.Listen, frees its address
	// on Close.
	net *Network
}

type addr string

func (a addr) Network() string { return "mem" }
func (a addr) String() string  { return string(a) }

// NewListener returns a listener known by address, a host:port such as
// "router.test:80" that URLs will carry.
func NewListener(address string) *Listener {
	return &Listener{addr: addr(address), conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept waits for the next Dial.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, ErrListenerClosed
	}
}

// Close stops Accept and Dial.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.closed)
		if l.net != nil {
			l.net.remove(l)
		}
	})
	return nil
}

// Addr is the listener's address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Dial connects to the listener.
func (l *Listener) Dial(ctx context.Context) (net.Conn, error) {
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

// Network is an in-memory network: Listen opens an address, DialContext
// reaches it (a network.Network, as a test's cmdutil.Factory.Net). Its
// zero value is empty and ready.
type Network struct {
	mu        sync.Mutex
	listeners map[string]*Listener
	lastPort  int
}

// firstPort is the first port Listen picks for a ":0" address.
const firstPort = 40000

// Listen opens address (host:port) on the network; port 0 picks a free
// one, as TCP does. The network argument is not looked at.
func (n *Network) Listen(_ context.Context, network, address string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners == nil {
		n.listeners = map[string]*Listener{}
	}
	if port == "0" {
		for {
			n.lastPort++
			address = net.JoinHostPort(host, strconv.Itoa(firstPort+n.lastPort))
			if n.listeners[address] == nil {
				break
			}
		}
	}
	if n.listeners[address] != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr(address), Err: errors.New("address already in use")}
	}
	l := NewListener(address)
	l.net = n
	n.listeners[address] = l
	return l, nil
}

// Add makes a listener made by NewListener reachable on the network.
func (n *Network) Add(l *Listener) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners == nil {
		n.listeners = map[string]*Listener{}
	}
	n.listeners[l.addr.String()] = l
}

func (n *Network) remove(l *Listener) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners[l.addr.String()] == l {
		delete(n.listeners, l.addr.String())
	}
}

// DialContext connects to the listener at address, as net.Dialer's does;
// an address nobody listens on is refused.
func (n *Network) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[address]
	n.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: addr(address), Err: fmt.Errorf("connection refused (no mem listener at %s)", address)}
	}
	return l.Dial(ctx)
}

// Transport is an http.Transport that dials the network and nothing else.
func (n *Network) Transport() *http.Transport {
	return &http.Transport{DialContext: n.DialContext, MaxIdleConnsPerHost: 64}
}

// Transport is an http.Transport that reaches each listener by its address
// and nothing else.
func Transport(ls ...*Listener) *http.Transport {
	n := &Network{}
	for _, l := range ls {
		n.Add(l)
	}
	return n.Transport()
}
