package probe

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// A server that half-closes an idle keep-alive connection (shutdown of its
// write side, as a lingering close does) has put an EOF in the socket
// before the next request is written. net.Conn's Read returned that EOF at
// once (transport_error "EOF"). The raw exchange writes inside the poller's
// callback after prepareRead has forgotten that readiness: unless it reads
// once after the write, it parks for an edge that never comes, and the
// request waits out its whole deadline as a client_timeout.
func TestWireSenderReusedHalfClosedConnIsEOFNotClientTimeout(t *testing.T) {
	shut := make(chan struct{}, 1)
	hold := make(chan struct{})
	defer close(hold)
	ln := rawServer(t, func(c net.Conn) {
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
	s.staleAfter = time.Hour // reused back to back, not checked (the default within 1 s)
	defer s.closeAll()
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
	start := time.Now()
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, "")
	el := time.Since(start)
	if a.ClientTimeout || el >= timeout/2 || transportDetail(a.Err) != "EOF" {
		t.Errorf("second request on the half-closed connection: after %s, clientTimeout=%v err=%v (detail %q); want EOF at once, as net.Conn.Read gave",
			el, a.ClientTimeout, a.Err, transportDetail(a.Err))
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
