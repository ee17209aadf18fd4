package transport

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/rawserver"
)

// An idle connection whose previous request's deadline has passed is still
// reused when the server kept it open, as net/http would: alive() must not
// mistake the old deadline (RawConn.Read refuses with ErrDeadlineExceeded
// before the peek runs) for a closed connection. A real socket's deadline
// in real time: its server is its own, so it waits in parallel.
func TestWireSenderIdleConnPastOldDeadlineIsReused(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	s := newWireSender(srv.Listener.Addr().String(), 200*time.Millisecond, nil)
	for i := range 2 {
		if a, _ := wireSend(t, s, context.Background(), http.MethodGet, srv.URL, ""); a.Err != nil || string(a.Body) != "ok" {
			t.Fatalf("request %d: %+v", i, a)
		}
		time.Sleep(300 * time.Millisecond) // idle past the old deadline
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("server saw %d connections, want 1: the idle connection was alive but dropped", n)
	}
	s.CloseIdle()
}

// A 101 answer switches the connection to another protocol: like net/http,
// the wire sender never reuses it.
func TestWireSenderSwitchingProtocolsConnIsNotReused(t *testing.T) {
	var accepted atomic.Int64
	ln := rawserver.Serve(t, func(c net.Conn) {
		n := accepted.Add(1)
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		if n == 1 {
			c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
			// now speaking "websocket": whatever comes next is not HTTP
			buf := make([]byte, 4096)
			c.Read(buf)
			c.Write([]byte{0x88, 0x02, 0x03, 0xea}) // a close frame
			return
		}
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	})
	url := "http://" + ln.Addr().String() + "/"
	s := newWireSender(ln.Addr().String(), time.Second, nil)
	if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Status != 101 {
		t.Fatalf("first: %+v", a)
	}
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, "")
	if a.Err != nil || string(a.Body) != "ok" {
		t.Errorf("second request after a 101: %+v (conns accepted %d), want a 200 on a fresh connection", a, accepted.Load())
	}
}
