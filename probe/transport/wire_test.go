package transport

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/rawserver"
)

// bodyPrefix is the engine's body prefix size.
const bodyPrefix = 512

func wireSend(t *testing.T, s *wireSender, ctx context.Context, method, url, host string) (Answer, time.Time) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("User-Agent", "shakectl-parking-probe")
	r, err := Prepare(req, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.Send(ctx, r, time.Now(), PrefixBufFunc(func() []byte { return make([]byte, bodyPrefix) }))
}

// The wire sender must hand classification what net/http's does: the
// Host per actor, the status, the x-envoy headers, the body's start, and
// faults as EOF or client timeouts. On loopback (a reset is a real RST)
// with a real 500 ms client timeout: its server is its own, so it waits
// in parallel.
func TestWireSenderAnswersClassifyLikeNetHTTP(t *testing.T) {
	t.Parallel()
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
			w.Write([]byte(strings.Repeat("b", MaxDrain+10)))
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
	s.writeTimes = true
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
	// A run that does not measure from the write reads no clock for it.
	s.writeTimes = false
	if a, wrote := wireSend(t, s, ctx, http.MethodGet, srv.URL+"/host", "x"); a.Status != 200 || !wrote.IsZero() {
		t.Errorf("without write times: %d, write time %v, want 200 and none", a.Status, wrote)
	}
	s.writeTimes = true
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
	if a := send("/overflow", ""); a.Status != 503 || a.Header.Get("X-Envoy-Overloaded") != "true" {
		t.Errorf("503 with x-envoy-overloaded: %+v", a)
	}
	if a := send("/proxy", ""); a.Status != 502 || a.Header.Get("X-Envoy-Upstream-Service-Time") != "3" {
		t.Errorf("502 with x-envoy-*: %+v", a)
	}
	if a := send("/reset", ""); a.Err == nil || a.ClientTimeout {
		t.Errorf("reset: %+v, want a transport error", a)
	}
	if a := send("/garbage", ""); a.Err == nil || Detail(a.Err) != "malformed HTTP response" {
		t.Errorf("not HTTP: %+v (%q), want a malformed HTTP response", a, Detail(a.Err))
	}
	a = send("/park", "")
	<-parked
	if !a.ClientTimeout || a.Err == nil {
		t.Errorf("parked past the timeout: %+v, want client_timeout", a)
	}
	// After all that, plain answers still work.
	if a := send("/host", "y"); a.Status != 200 || string(a.Body) != "y" {
		t.Errorf("after the faults: %+v", a)
	}

	// A cancelled run ends a parked request at once, not at its deadline.
	rctx, cancel := context.WithCancel(context.Background())
	slow := newWireSender(addr, time.Hour, nil)
	stop := context.AfterFunc(rctx, slow.Close)
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
	ln := rawserver.Serve(t, func(c net.Conn) {
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
	// Which connection the request came over, by its client address: the
	// server's accepts of the idle pre-dialled connections may still be
	// pending when the answer is back, so counting accepts would race.
	from := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { from <- r.RemoteAddr }))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	p := NewPredialer(addr, (&net.Dialer{}).DialContext)
	if err := p.Fill(context.Background(), 3, func(string) {}); err != nil {
		t.Fatal(err)
	}
	predialled := map[string]bool{}
	for range 3 {
		c := <-p.conns
		predialled[c.LocalAddr().String()] = true
		p.conns <- c
	}
	s := newWireSender(addr, time.Second, p)
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, srv.URL, "")
	if a.Status != 200 {
		t.Fatalf("%+v", a)
	}
	if len(p.conns) != 2 {
		t.Errorf("%d pre-dialled connections left, want 2: the send took one", len(p.conns))
	}
	if got := <-from; !predialled[got] {
		t.Errorf("the request came from %s, not from a pre-dialled connection %v", got, predialled)
	}
	p.Drain()
}

// ageIdle makes every idle connection look handed back longer ago than
// checkFreeIdle, so the next request checks it before use.
func ageIdle(s *wireSender) {
	s.mu.Lock()
	for _, c := range s.idle {
		c.released = c.released.Add(-time.Second)
	}
	s.mu.Unlock()
}

// closeAfterOne serves one keep-alive answer per connection, then closes
// it (bench/kaclose's server), and signals each close.
func closeAfterOne(t *testing.T) (net.Listener, <-chan struct{}) {
	closed := make(chan struct{}, 4)
	ln := rawserver.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err == nil {
			// Keep-alive by its headers, then closed while idle.
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		}
		c.Close()
		closed <- struct{}{}
	})
	return ln, closed
}

// A connection the server closed while it sat idle is found before it is
// used, so the next request goes out on a fresh one instead of failing as
// a transport error (net/http retries the same case).
func TestWireSenderSkipsConnectionsClosedWhileIdle(t *testing.T) {
	ln, closed := closeAfterOne(t)
	s := newWireSender(ln.Addr().String(), time.Second, nil)
	url := "http://" + ln.Addr().String() + "/"
	if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Err != nil {
		t.Fatal(a.Err)
	}
	<-closed
	ageIdle(s)
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, "")
	if a.Err != nil || string(a.Body) != "ok" || a.Resends != 0 {
		t.Errorf("after the server closed the idle connection: %+v, want the answer on a new one, found by the check (no resend)", a)
	}
	<-closed // the second connection's
}

// A connection reused at once for a replayable request is not checked
// (issue 33: the check was a system call per request): when the server
// had closed it, the request reads no answer there and is resent once on
// a fresh connection, and is still one request with its one answer.
func TestWireSenderFreshReuseIsCoveredByTheResend(t *testing.T) {
	ln, closed := closeAfterOne(t)
	s := newWireSender(ln.Addr().String(), time.Second, nil)
	s.checkFree = time.Hour // however slow the machine, the reuse is fresh
	url := "http://" + ln.Addr().String() + "/"
	if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Err != nil {
		t.Fatal(a.Err)
	}
	<-closed
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, "")
	if a.Err != nil || string(a.Body) != "ok" || a.Resends != 1 {
		t.Errorf("fresh reuse of a closed connection: %+v, want the answer after one resend", a)
	}
	<-closed
}

// A request that may not be resent (a POST with a body) still has its
// reused connection checked, however fresh: the resend rule does not
// cover it.
func TestWireSenderChecksFreshReuseForUnreplayable(t *testing.T) {
	ln, closed := closeAfterOne(t)
	s := newWireSender(ln.Addr().String(), time.Second, nil)
	s.checkFree = time.Hour
	url := "http://" + ln.Addr().String() + "/"
	post := func() Answer {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader("body"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Prepare(req, []byte("body"))
		if err != nil {
			t.Fatal(err)
		}
		if r.replayable {
			t.Fatal("a POST with a body is replayable")
		}
		a, _ := s.Send(context.Background(), r, time.Now(), PrefixBufFunc(func() []byte { return make([]byte, bodyPrefix) }))
		return a
	}
	if a := post(); a.Err != nil {
		t.Fatal(a.Err)
	}
	<-closed
	if a := post(); a.Err != nil || string(a.Body) != "ok" || a.Resends != 0 {
		t.Errorf("POST on a fresh reuse of a closed connection: %+v, want the answer on a new one, found by the check", a)
	}
	<-closed
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
// timeout, say) are skipped, however soon after they were opened, so a
// burst released after --start-at is not a transport error.
func TestPreDialledConnectionsClosedByTheServerAreSkipped(t *testing.T) {
	var accepted atomic.Int64
	closed := make(chan struct{}, 2)
	ln := rawserver.Serve(t, func(c net.Conn) {
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
	p := NewPredialer(addr, (&net.Dialer{}).DialContext)
	if err := p.Fill(context.Background(), 2, func(string) {}); err != nil {
		t.Fatal(err)
	}
	<-closed
	<-closed
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
		status, _, body, keep, err := readAnswer(br, head, PrefixBufFunc(func() []byte { return make([]byte, bodyPrefix) }))
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

// Idle connections the server closed cost a request one resend at most:
// only its first attempt skips the check, so the resend checks every
// connection it takes and dials a fresh one past the dead (a request that
// walked the pile unchecked ran out of resends against bench/kaclose in
// open mode).
func TestWireSenderDeadIdlePileCostsOneResend(t *testing.T) {
	const n = 4
	hold := make(chan struct{})
	var arrived sync.WaitGroup
	arrived.Add(n)
	closed := make(chan struct{}, n+2)
	ln := rawserver.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err == nil {
			arrived.Done()
			<-hold
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		}
		c.Close()
		closed <- struct{}{}
	})
	s := newWireSender(ln.Addr().String(), time.Second, nil)
	s.checkFree = time.Hour
	url := "http://" + ln.Addr().String() + "/"
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Err != nil {
				t.Error(a.Err)
			}
		})
	}
	arrived.Wait()
	arrived.Add(1) // the request below
	close(hold)
	wg.Wait()
	for range n {
		<-closed
	}
	if len(s.idle) != n {
		t.Fatalf("%d idle connections, want %d", len(s.idle), n)
	}
	a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, "")
	if a.Err != nil || string(a.Body) != "ok" || a.Resends != 1 {
		t.Errorf("with %d dead idle connections: %+v, want the answer after one resend", n, a)
	}
}
