package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func wireSend(t *testing.T, s *wireSender, ctx context.Context, method, url, host string) (Answer, time.Time) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("User-Agent", "shakectl-parking-probe")
	wire, err := renderWire(req)
	if err != nil {
		t.Fatal(err)
	}
	return s.Send(ctx, wire, method == http.MethodHead, func() []byte { return make([]byte, bodyPrefix) })
}

// The wire sender must hand classification what net/http's does: the
// Host per actor, the status, the x-envoy headers, the body's start, and
// faults as EOF or client timeouts.
func TestWireSenderAnswersClassifyLikeNetHTTP(t *testing.T) {
	release := make(chan struct{})
	parked := make(chan struct{}, 1)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/overflow":
			w.Header().Set("X-Envoy-Overloaded", "true")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/proxy":
			w.Header().Set("x-envoy-upstream-service-time", "3")
			w.WriteHeader(http.StatusBadGateway)
		case "/host":
			w.Write([]byte(r.Host))
		case "/chunked":
			w.Write([]byte("actor "))
			w.(http.Flusher).Flush()
			w.Write([]byte("\"x\" not found"))
		case "/long-header":
			w.Header().Set("X-Long", strings.Repeat("a", 20<<10))
			w.Write([]byte("long"))
		case "/big-body":
			w.WriteHeader(http.StatusTeapot)
			w.Write([]byte(strings.Repeat("b", maxDrain+10)))
		case "/reset":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		case "/garbage":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Write([]byte("SSH-2.0-OpenSSH\r\n\r\n"))
			c.Close()
		case "/park":
			select {
			case parked <- struct{}{}:
			default:
			}
			<-release
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	defer close(release)
	addr := srv.Listener.Addr().String()
	s := newWireSender(addr, 500*time.Millisecond, nil)
	ctx := context.Background()
	send := func(path, host string) Answer {
		a, _ := wireSend(t, s, ctx, http.MethodGet, srv.URL+path, host)
		return a
	}

	before := time.Now()
	a, wrote := wireSend(t, s, ctx, http.MethodGet, srv.URL+"/host", "actor-7.atespace.test")
	if string(a.Body) != "actor-7.atespace.test" || a.Status != 200 {
		t.Errorf("Host: got %d %q, want the actor's host", a.Status, a.Body)
	}
	if wrote.Before(before) || time.Since(wrote) < 0 {
		t.Errorf("write time %v is not within the send", wrote)
	}
	// Answers on a kept connection reuse it.
	for range 5 {
		send("/host", "x")
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("6 answers in a row opened %d connections, want 1 (keep-alive)", n)
	}
	if a := send("/chunked", ""); string(a.Body) != `actor "x" not found` || a.Err != nil {
		t.Errorf("chunked body: %+v", a)
	}
	if a, _ := wireSend(t, s, ctx, http.MethodHead, srv.URL+"/host", "x"); a.Status != 200 || a.Err != nil {
		t.Errorf("HEAD: %+v, want 200 with no body read", a)
	}
	if a := send("/long-header", ""); a.Status != 200 || string(a.Body) != "long" {
		t.Errorf("a 20 KiB header: %d %q %v, want the answer", a.Status, a.Body, a.Err)
	}
	if a := send("/big-body", ""); a.Status != http.StatusTeapot || a.Err != nil || !strings.HasPrefix(string(a.Body), "bbb") && a.Body != nil {
		t.Errorf("a body over the drain limit: %d %v, want its status", a.Status, a.Err)
	}
	if o := Classify(send("/overflow", "")); o != report.EnvoyOverflow {
		t.Errorf("503 with x-envoy-overloaded: %v, want %v", o, report.EnvoyOverflow)
	}
	if o := Classify(send("/proxy", "")); o != report.ProxyError {
		t.Errorf("502 with x-envoy-*: %v, want %v", o, report.ProxyError)
	}
	if a := send("/reset", ""); a.Err == nil || Classify(a) != report.TransportError {
		t.Errorf("reset: %+v, want a transport error", a)
	}
	if a := send("/garbage", ""); a.Err == nil || transportDetail(a.Err) != "malformed HTTP response" {
		t.Errorf("not HTTP: %+v (%q), want a malformed HTTP response", a, transportDetail(a.Err))
	}
	a = send("/park", "")
	<-parked
	if !a.ClientTimeout || Classify(a) != report.ClientTimeout {
		t.Errorf("parked past the timeout: %+v, want client_timeout", a)
	}
	// After all that, plain answers still work.
	if a := send("/host", "y"); a.Status != 200 || string(a.Body) != "y" {
		t.Errorf("after the faults: %+v", a)
	}

	// A cancelled run ends a parked request at once, not at its deadline.
	rctx, cancel := context.WithCancel(context.Background())
	slow := newWireSender(addr, time.Hour, nil)
	stop := context.AfterFunc(rctx, slow.closeAll)
	defer stop()
	done := make(chan Answer)
	go func() {
		a, _ := wireSend(t, slow, rctx, http.MethodGet, srv.URL+"/park", "")
		done <- a
	}()
	<-parked // it is parked at the server
	cancel()
	if a := <-done; a.Err == nil || a.ClientTimeout {
		t.Errorf("cancelled: %+v, want a transport error that is not a client timeout", a)
	}
	if a, _ := wireSend(t, slow, rctx, http.MethodGet, srv.URL+"/host", ""); a.Err == nil {
		t.Errorf("a send after the run was cancelled: %+v, want an error", a)
	}
}

// A connection the server closes after its answer is not reused, and one
// left with unread bytes is not either: the next request gets a fresh one.
func TestWireSenderDropsConnectionsItCannotReuse(t *testing.T) {
	var accepted atomic.Int64
	ln := rawServer(t, func(c net.Conn) {
		n := accepted.Add(1)
		br := bufio.NewReader(c)
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			switch n {
			case 1: // answers, then says it closes
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
				return
			case 2: // answers with a stray byte after the body
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokX"))
			default:
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
			}
		}
	})
	s := newWireSender(ln.Addr().String(), time.Second, nil)
	for i := range 4 {
		a, _ := wireSend(t, s, context.Background(), http.MethodGet, "http://"+ln.Addr().String()+"/", "")
		if a.Err != nil || string(a.Body) != "ok" {
			t.Fatalf("request %d: %+v", i, a)
		}
	}
	if n := accepted.Load(); n != 3 {
		t.Errorf("4 requests opened %d connections, want 3 (close, stray byte, then kept)", n)
	}
}

// A burst's pre-dialled connections are used before any new dial.
func TestWireSenderUsesPreDialledConnections(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	p := &preDialer{addr: addr, dialer: &net.Dialer{}}
	if err := p.fill(context.Background(), 3, func(string) {}); err != nil {
		t.Fatal(err)
	}
	s := newWireSender(addr, time.Second, p)
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, srv.URL, "")
	if a.Status != 200 {
		t.Fatalf("%+v", a)
	}
	if len(p.conns) != 2 {
		t.Errorf("%d pre-dialled connections left, want 2: the send took one", len(p.conns))
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("server saw %d connections, want the 3 pre-dialled", n)
	}
	p.drain()
}

// The engine's table of rendered requests is shared by actors whose
// numbers differ by its size: each must still get its own Host.
func TestWireRequestCacheKeepsActorsApart(t *testing.T) {
	o := Options{Target: "http://127.0.0.1:1", Mode: Burst, Requests: 1, ActorCount: 3 * wireCacheSlots,
		Body: []byte("{}"), Checks: report.CheckConfig{ShedMax: time.Hour}}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	e, err := newEngine(&o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	for _, idx := range []int{0, wireCacheSlots, 0, 2 * wireCacheSlots, 7, 7} {
		wire, err := e.wireRequest(idx)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(string(wire))))
		if err != nil {
			t.Fatalf("actor %d: %v\n%s", idx, err, wire)
		}
		want := e.mustRequest(idx).Host
		if req.Host != want || req.ContentLength != 2 || req.UserAgent() != "shakectl-parking-probe" {
			t.Errorf("actor %d: Host %q, length %d, agent %q; want Host %q, length 2, the probe's agent", idx, req.Host, req.ContentLength, req.UserAgent(), want)
		}
	}
}

// A connection the server closed while it sat idle is found before it is
// used, so the next request goes out on a fresh one instead of failing as
// a transport error (net/http retries the same case).
func TestWireSenderSkipsConnectionsClosedWhileIdle(t *testing.T) {
	closed := make(chan struct{}, 1)
	ln := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err == nil {
			// Keep-alive by its headers, then closed while idle.
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		}
		c.Close()
		closed <- struct{}{}
	})
	for _, check := range []bool{true, false} {
		s := newWireSender(ln.Addr().String(), time.Second, nil)
		if check {
			s.staleAfter = 0 // every reused connection is checked
		} else {
			s.staleAfter = time.Hour
		}
		url := "http://" + ln.Addr().String() + "/"
		if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Err != nil {
			t.Fatal(a.Err)
		}
		<-closed
		a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, "")
		if check && (a.Err != nil || string(a.Body) != "ok") {
			t.Errorf("after the server closed the idle connection: %+v, want the answer on a new one", a)
		}
		if !check && a.Err == nil {
			t.Errorf("without the check the closed connection was reused and still answered: the test proves nothing")
		}
		if check {
			<-closed // the second connection's
		}
	}
}

// rawServer serves TCP on loopback with handle, a goroutine per
// connection, each closed once handle returns; for answers no HTTP server
// would give.
func rawServer(t *testing.T, handle func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln
}

// With its dials at their limit, a request takes the first connection
// another request hands back rather than waiting for a dial slot.
func TestWireSenderHandsBackConnectionsWhenDialsAreAtTheirLimit(t *testing.T) {
	release := make(chan struct{})
	parked := make(chan struct{}, 1)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/park" {
			parked <- struct{}{}
			<-release
		}
		w.Write([]byte(r.URL.Path))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	s := newWireSender(srv.Listener.Addr().String(), 10*time.Second, nil)
	first := make(chan Answer)
	go func() {
		a, _ := wireSend(t, s, context.Background(), http.MethodGet, srv.URL+"/park", "")
		first <- a
	}()
	<-parked
	for range maxDials {
		s.dials <- struct{}{} // every dial slot taken
	}
	second := make(chan Answer)
	go func() {
		a, _ := wireSend(t, s, context.Background(), http.MethodGet, srv.URL+"/next", "")
		second <- a
	}()
	close(release)
	if a := <-first; string(a.Body) != "/park" {
		t.Fatalf("first: %+v", a)
	}
	if a := <-second; string(a.Body) != "/next" || a.Err != nil {
		t.Errorf("second: %+v, want its answer on the handed-back connection", a)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1: the second request waited for the first's", n)
	}
}

// Pre-dialled connections the server closed before any request (a header
// timeout, say) are skipped once they may have gone stale, so a late
// request of an open run is not a transport error.
func TestPreDialledConnectionsClosedByTheServerAreSkipped(t *testing.T) {
	var accepted atomic.Int64
	closed := make(chan struct{}, 2)
	ln := rawServer(t, func(c net.Conn) {
		if accepted.Add(1) <= 2 {
			c.Close() // the two pre-dialled ones: closed unused
			closed <- struct{}{}
			return
		}
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		}
	})
	addr := ln.Addr().String()
	p := &preDialer{addr: addr, dialer: &net.Dialer{}}
	if err := p.fill(context.Background(), 2, func(string) {}); err != nil {
		t.Fatal(err)
	}
	<-closed
	<-closed
	p.filled = time.Now().Add(-predialStaleAfter) // long enough ago to be checked
	s := newWireSender(addr, time.Second, p)
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, "http://"+addr+"/", "")
	if a.Err != nil || string(a.Body) != "ok" {
		t.Errorf("%+v, want the answer on a fresh connection", a)
	}
	if n := len(p.conns); n != 0 {
		t.Errorf("%d pre-dialled connections left, want both dropped", n)
	}
}

// FuzzReadAnswer feeds the wire sender's answer reader whatever a hostile
// or broken server might send. It must not panic, must hand back at most
// the body prefix, and must never keep a connection whose answer it did
// not read to its end.
func FuzzReadAnswer(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 503 Service Unavailable\r\nX-Envoy-Overloaded: true\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nactor \r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"SSH-2.0-OpenSSH_9.6\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
		"",
	} {
		f.Add([]byte(seed), false)
	}
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"), true)
	f.Fuzz(func(t *testing.T, answer []byte, head bool) {
		br := bufio.NewReaderSize(strings.NewReader(string(answer)), 4096)
		status, _, body, keep, err := readAnswer(br, head, func() []byte { return make([]byte, bodyPrefix) })
		if len(body) > bodyPrefix {
			t.Fatalf("body of %d bytes, over the %d-byte prefix", len(body), bodyPrefix)
		}
		if err != nil && (keep || status != 0) {
			t.Fatalf("error %v with status %d, keep %v", err, status, keep)
		}
		if err == nil && (status < 100 || status > 999) {
			t.Fatalf("status %d accepted", status)
		}
		if keep && head && len(body) > 0 {
			t.Fatalf("a HEAD answer kept %d body bytes", len(body))
		}
	})
}

// A request larger than the socket's buffer cannot be written in one
// go without waiting: the wire sender finishes it through the poller and
// the answer still counts (sender_wire_linux.go's fallback).
func TestWireSenderWritesRequestsLargerThanTheSocketBuffer(t *testing.T) {
	const size = 8 << 20
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n == size {
			got.Add(1)
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	r, err := Run(context.Background(), Options{Target: srv.URL, Mode: Burst, Requests: 3, ActorCount: 1,
		Body: bytes.Repeat([]byte("x"), size), Checks: report.CheckConfig{ShedMax: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Transport != transportWire || r.Count(report.Served) != 3 || got.Load() != 3 {
		t.Errorf("transport %s, %d served, %d whole bodies received; want wire, 3 and 3 (outcomes %v)", r.Transport, r.Count(report.Served), got.Load(), r.Outcomes)
	}
}
