//go:build unix

package transport

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The dialer's own 10 s timeout (shorter than the default 15 s --timeout)
// is a transport error, as through net/http, not a client_timeout: only
// the request's own deadline is. A real hanging dial (a full listen
// queue) in real time: its socket is its own, so it waits in parallel.
func TestWireSenderDialerTimeoutIsNotTheClientTimeout(t *testing.T) {
	t.Parallel()
	// A listener that never accepts, with a backlog of 0: once its queue is
	// full, SYNs are dropped and dials hang.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, _ := syscall.Getsockname(fd)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	for range 4 { // fill the queue
		d := net.Dialer{Timeout: 100 * time.Millisecond}
		if c, err := d.Dial("tcp", addr); err == nil {
			defer c.Close()
		}
	}
	s := newWireSender(addr, 5*time.Second, nil)
	// 300 ms stands for TCPDial's 10 s timeout vs the 15 s default --timeout.
	s.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: 300 * time.Millisecond}
		return d.DialContext(ctx, network, addr)
	}
	start := time.Now()
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, "http://"+addr+"/", "")
	el := time.Since(start)
	t.Logf("after %s: err=%v clientTimeout=%v", el, a.Err, a.ClientTimeout)
	if el > 2*time.Second || a.Err == nil {
		t.Skipf("no hanging dial here")
	}
	if a.ClientTimeout {
		t.Errorf("a dial timeout after %s of a 5 s --timeout is reported as client_timeout", el)
	}
}
