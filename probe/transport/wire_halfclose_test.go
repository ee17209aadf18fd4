//go:build unix

package transport

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/rawserver"
)

// A server that half-closes an idle keep-alive connection (shutdown of its
// write side, as a lingering close does) has put an EOF in the socket
// before the next request is written. The check before reuse sees it, so
// the next request goes out on a fresh connection and is answered, as
// through net/http (not a client_timeout, not a transport error).
func TestWireSenderHalfClosedIdleConnIsNotReused(t *testing.T) {
	shut := make(chan struct{}, 1)
	hold := make(chan struct{})
	defer close(hold)
	ln := rawserver.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		c.(*net.TCPConn).CloseWrite()
		shut <- struct{}{}
		<-hold // keep reading side open: no RST answers the next request
	})
	const timeout = time.Second
	s := newWireSender(ln.Addr().String(), timeout, nil)
	defer s.Close()
	url := "http://" + ln.Addr().String() + "/"
	if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Err != nil || string(a.Body) != "ok" {
		t.Fatalf("first: %+v", a)
	}
	<-shut
	// Wait, through the poller and without sleeping, until the FIN is in
	// the idle connection's socket.
	s.mu.Lock()
	if len(s.idle) != 1 {
		s.mu.Unlock()
		t.Fatalf("%d idle connections, want 1", len(s.idle))
	}
	c := s.idle[0]
	s.mu.Unlock()
	awaitBytesOrEOF(t, c)
	ageIdle(s) // past checkFreeIdle: the check runs
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, "")
	if a.ClientTimeout || a.Err != nil || string(a.Body) != "ok" || a.Resends != 0 {
		t.Errorf("second request after the half-close: %+v; want its answer on a fresh connection, found without a resend", a)
	}
}

// awaitBytesOrEOF waits, through the poller and without sleeping, until
// something (bytes or an end of stream) is waiting in c's socket.
func awaitBytesOrEOF(t *testing.T, c *wireConn) {
	t.Helper()
	var b [1]byte
	if err := c.raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return !(n < 0 && errors.Is(err, syscall.EAGAIN))
	}); err != nil {
		t.Fatal(err)
	}
}
