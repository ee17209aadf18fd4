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
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// earlyWire writes a POST with the dispatcher's path: an idle connection
// at hand (idleFresh), the write without waiting (writeNow), the answer
// read by a sender (finishEarly).
func earlyWire(t *testing.T, s *wireSender, url string, body []byte) (Answer, bool) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	wire, err := renderWire(req)
	if err != nil {
		t.Fatal(err)
	}
	c := s.idleFresh()
	if c == nil {
		return Answer{}, false
	}
	deadline := time.Now().Add(s.timeout)
	if err := c.SetDeadline(deadline); err != nil {
		t.Fatal(err)
	}
	p := c.writeNow(wire)
	a, _ := s.finishEarly(context.Background(), c, deadline, p, false, func() []byte { return make([]byte, bodyPrefix) })
	return a, true
}

// The dispatcher's early write must see what Send sees on a connection
// the server half-closed while it sat idle: the EOF at once, not a wait
// until the request's deadline (sender_wire_halfclose_test.go).
func TestEarlyWriteOnHalfClosedIdleConnIsEOFNotClientTimeout(t *testing.T) {
	shut := make(chan struct{}, 1)
	hold := make(chan struct{})
	defer close(hold)
	ln := rawServer(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		c.(*net.TCPConn).CloseWrite()
		shut <- struct{}{}
		<-hold
	})
	const timeout = time.Second
	s := newWireSender(ln.Addr().String(), timeout, nil)
	defer s.closeAll()
	url := "http://" + ln.Addr().String() + "/"
	if _, ok := earlyWire(t, s, url, nil); ok {
		t.Fatal("an early write found a connection before any was opened; it must never dial")
	}
	if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Err != nil || string(a.Body) != "ok" {
		t.Fatalf("first: %+v", a)
	}
	<-shut
	s.mu.Lock()
	c := s.idle[0]
	s.mu.Unlock()
	awaitBytesOrEOF(t, c)
	start := time.Now()
	a, ok := earlyWire(t, s, url, nil)
	el := time.Since(start)
	if !ok {
		t.Fatal("the connection used a moment ago was not at hand for an early write")
	}
	if a.ClientTimeout || el >= timeout/2 || transportDetail(a.Err) != "EOF" {
		t.Errorf("early write on the half-closed connection: after %s, clientTimeout=%v err=%v; want EOF at once", el, a.ClientTimeout, a.Err)
	}
}

// An answer that never comes to a request the dispatcher wrote is the
// client timeout at the request's deadline, as on the ordinary path: the
// sender's read must carry the deadline's error, not an empty read.
func TestEarlyWriteUnansweredIsClientTimeout(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	ln := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		http.ReadRequest(br) // the early one: never answered
		<-hold
	})
	const timeout = 300 * time.Millisecond
	s := newWireSender(ln.Addr().String(), timeout, nil)
	defer s.closeAll()
	url := "http://" + ln.Addr().String() + "/"
	if a, _ := wireSend(t, s, context.Background(), http.MethodGet, url, ""); a.Err != nil || string(a.Body) != "ok" {
		t.Fatalf("first: %+v", a)
	}
	start := time.Now()
	a, ok := earlyWire(t, s, url, nil)
	el := time.Since(start)
	if !ok {
		t.Fatal("the connection used a moment ago was not at hand for an early write")
	}
	if !a.ClientTimeout || el < timeout {
		t.Errorf("unanswered early write: after %s, clientTimeout=%v err=%v; want the client timeout at %s", el, a.ClientTimeout, a.Err, timeout)
	}
}

// A connection idle for longer than staleAfter needs a check, which the
// dispatcher must not make: it is left to the ordinary send.
func TestEarlyWriteSkipsStaleConnections(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	s := newWireSender(srv.Listener.Addr().String(), time.Second, nil)
	defer s.closeAll()
	if a, _ := wireSend(t, s, context.Background(), http.MethodGet, srv.URL, ""); a.Err != nil {
		t.Fatal(a.Err)
	}
	s.staleAfter = 0
	if _, ok := earlyWire(t, s, srv.URL, nil); ok {
		t.Error("an early write took a connection idle past staleAfter")
	}
	s.mu.Lock()
	idle := len(s.idle)
	s.mu.Unlock()
	if idle != 1 {
		t.Errorf("%d idle connections after the refused early write, want the 1 left in the pool", idle)
	}
}

// An open run writes from its dispatcher: a request the socket cannot
// take at once (8 MiB, past the loopback buffer) is finished by the
// sender, and every request is served and counted once.
func TestOpenRunWritesRequestsLargerThanTheSocketBuffer(t *testing.T) {
	const size = 8 << 20
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, _ := io.Copy(io.Discard, r.Body); n == size {
			got.Add(1)
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	r, err := Run(context.Background(), Options{Target: srv.URL, Mode: Open, Rate: 20, Duration: time.Second, ActorCount: 1,
		Body: bytes.Repeat([]byte("x"), size), Checks: report.CheckConfig{ShedMax: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Transport != transportWire || r.Requests != 20 || r.Count(report.Served) != 20 || got.Load() != 20 {
		t.Errorf("transport %s, %d requests, %d served, %d whole bodies received; want wire, 20, 20, 20 (outcomes %v)",
			r.Transport, r.Requests, r.Count(report.Served), got.Load(), r.Outcomes)
	}
}

// fakeEarly writes every other request early.
type fakeEarly struct {
	mu       sync.Mutex
	written  map[uint64]bool
	finished map[uint64]int
}

func (f *fakeEarly) writeEarly(key, seq uint64, idx int, start time.Time, due time.Duration) *earlySend {
	if seq%2 == 1 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.written[seq] = true
	return &earlySend{sentRequest: sentRequest{shard: seq}}
}

func (f *fakeEarly) finishEarly(p *earlySend) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished[p.shard]++
}

// The dispatcher hands a request it wrote to a sender to be finished, and
// every other one to the send function: each request once, one way.
func TestOpenShapeFinishesEarlyWritesAndSendsTheRest(t *testing.T) {
	f := &fakeEarly{written: map[uint64]bool{}, finished: map[uint64]int{}}
	var mu sync.Mutex
	sent := map[uint64]int{}
	sh := openShape{rate: 1000, duration: 100 * time.Millisecond, index: func(uint64) int { return 0 }, early: f}
	var wg sync.WaitGroup
	sh.Drive(context.Background(), &wg, time.Now(), func(time.Time) {}, func(key, seq uint64, idx int, start time.Time, due time.Duration, w *worker) {
		mu.Lock()
		sent[seq]++
		mu.Unlock()
	})
	wg.Wait()
	for k := uint64(0); k < 100; k++ {
		early := k%2 == 0
		if early && (f.finished[k] != 1 || sent[k] != 0) || !early && (sent[k] != 1 || f.finished[k] != 0) {
			t.Errorf("request %d (early %v): finished %d times, sent %d times; want once, one way", k, early, f.finished[k], sent[k])
		}
	}
}
