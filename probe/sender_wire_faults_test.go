package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// An idle connection whose previous request's deadline has passed is still
// reused when the server kept it open, as net/http would: alive() must not
// mistake the old deadline (RawConn.Read refuses with ErrDeadlineExceeded
// before the peek runs) for a closed connection.
func TestWireSenderIdleConnPastOldDeadlineIsReused(t *testing.T) {
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
	s.staleAfter = 100 * time.Millisecond
	for i := range 2 {
		if a, _ := wireSend(t, s, context.Background(), http.MethodGet, srv.URL, ""); a.Err != nil || string(a.Body) != "ok" {
			t.Fatalf("request %d: %+v", i, a)
		}
		time.Sleep(300 * time.Millisecond) // idle past staleAfter and past the old deadline
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("server saw %d connections, want 1: the idle connection was alive but dropped", n)
	}
	s.closeIdle()
}

// A 101 answer switches the connection to another protocol: like net/http,
// the wire sender never reuses it.
func TestWireSenderSwitchingProtocolsConnIsNotReused(t *testing.T) {
	var accepted atomic.Int64
	ln := rawServer(t, func(c net.Conn) {
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

// The dialer's own 10 s timeout (shorter than the default 15 s --timeout)
// is a transport error, as through net/http, not a client_timeout: only
// the request's own deadline is.
func TestWireSenderDialerTimeoutIsNotTheClientTimeout(t *testing.T) {
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
	s.dialer.Timeout = 300 * time.Millisecond // stands for the 10 s dial timeout vs the 15 s default --timeout
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

// Ctrl-C with many parked requests: every one ends at once, counted
// once, as transport_error "canceled".
func TestWireSenderCancelEndsParkedRequestsAsCanceled(t *testing.T) {
	hold := make(chan struct{})
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hold)
	for round := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(400 * time.Millisecond)
			cancel()
		}()
		t0 := time.Now()
		r, _ := Run(ctx, Options{Target: srv.URL, Mode: Open, Rate: 500, Duration: 10 * time.Second,
			Actors: GeneratedActors(50), Timeout: 30 * time.Second, Checks: report.CheckConfig{ShedMax: time.Hour}})
		if el := time.Since(t0); el > 3*time.Second {
			t.Errorf("round %d: Run took %s after cancel", round, el)
		}
		st := r.Stats(report.TransportError)
		t.Logf("round %d: %d requests via %s, details %v", round, r.Requests, r.Transport, st.Details)
		var total int64
		for o := range report.Outcome(report.NumOutcomes) {
			total += r.Count(o)
		}
		if total != r.Requests {
			t.Errorf("round %d: outcomes %d != requests %d", round, total, r.Requests)
		}
		if r.Count(report.TransportError) != r.Requests || len(st.Details) != 1 || st.Details["canceled"] != r.Requests {
			t.Errorf("round %d: requests %d transport %d details %v", round, r.Requests, r.Count(report.TransportError), st.Details)
		}
	}
}
