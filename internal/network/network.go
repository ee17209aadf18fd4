// Package network is where commands listen and dial: the machine's TCP
// (TCP) when shakectl runs, an in-memory network (internal/memnet) when a
// test runs a command inside a testing/synctest bubble, where real sockets
// are not allowed. cmdutil.Factory holds a Network, so the production
// kernel names no test type.
package network

import (
	"context"
	"net"
	"time"
)

// Network opens addresses and reaches them, as net.ListenConfig and
// net.Dialer do.
type Network interface {
	Listen(ctx context.Context, network, address string) (net.Listener, error)
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// TCP is the machine's own network.
type TCP struct{}

// Listen listens as net.ListenConfig does: it gives up when ctx ends.
func (TCP) Listen(ctx context.Context, network, address string) (net.Listener, error) {
	var lc net.ListenConfig
	return lc.Listen(ctx, network, address)
}

// DialContext dials as http.DefaultTransport's dialer does.
func (TCP) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d := net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return d.DialContext(ctx, network, address)
}

// onTCP reports whether n is the machine's network (nil is).
func onTCP(n Network) bool {
	_, tcp := n.(TCP)
	return n == nil || tcp
}

// Listener opens address on n for a server that takes a listener (a
// simulator's or the proxy's Options.Listener), or is nil on the machine's
// TCP: the server then listens itself, with its own checks first (the
// proxy refuses a remote address before anything binds it) and its own
// words for a busy port.
func Listener(ctx context.Context, n Network, address string) (net.Listener, error) {
	if onTCP(n) {
		return nil, nil
	}
	return n.Listen(ctx, "tcp", address)
}

// Dialer is n's DialContext for a library's Dial option, or nil on the
// machine's TCP: the library then dials with its own tuned dialer (and the
// probe's open mode waits on a kernel timer only then).
func Dialer(n Network) func(ctx context.Context, network, address string) (net.Conn, error) {
	if onTCP(n) {
		return nil
	}
	return n.DialContext
}
