package transport

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/rawserver"
)

// A server whose idle timeout fires as a request arrives answers it 408
// and closes (nginx does; CI once caught net/http reading that 408 as the
// request's answer under load). The race is made certain here: the server
// answers every second request on a connection 408 + close, after reading
// it. Both senders must resend a replayable request on a new connection
// and count it as one request with one resend; a request that may not be
// resent, and a 408 on a connection's first request, are answers.
func TestIdleTimeout408IsResentNotAnswered(t *testing.T) {
	var answered atomic.Int64
	ln := rawserver.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for n := 0; ; n++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if n == 1 || req.Header.Get("X-First") == "408" {
				c.Write([]byte("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
				return
			}
			answered.Add(1)
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		}
	})
	url := "http://" + ln.Addr().String() + "/"
	prepare := func(method string, body []byte, first string) *Request {
		t.Helper()
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first != "" {
			req.Header.Set("X-First", first)
		}
		r, err := Prepare(req, body)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	buf := PrefixBufFunc(func() []byte { return make([]byte, 64) })
	for _, kind := range []string{Wire, NetHTTP} {
		t.Run(kind, func(t *testing.T) {
			s, err := New(Config{Kind: kind, Addr: ln.Addr().String(), Timeout: 10 * time.Second, Conns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			answered.Store(0)
			if a, _ := s.Send(ctx, prepare(http.MethodGet, nil, ""), time.Now(), buf); a.Err != nil || a.Status != 200 {
				t.Fatalf("first GET: %d %v", a.Status, a.Err)
			}
			a, _ := s.Send(ctx, prepare(http.MethodGet, nil, ""), time.Now(), buf)
			if a.Err != nil || a.Status != 200 || a.Resends != 1 {
				t.Errorf("GET after an idle-timeout 408: status %d, resends %d, err %v; want 200 after one resend", a.Status, a.Resends, a.Err)
			}
			if got := answered.Load(); got != 2 {
				t.Errorf("the server answered %d requests 200, want 2", got)
			}
			// A POST with a body may not be sent twice: its 408 is its answer.
			s.CloseIdle()
			a, _ = s.Send(ctx, prepare(http.MethodPost, []byte("x"), ""), time.Now(), buf)
			if a.Err != nil || a.Status != 200 {
				t.Fatalf("POST on a fresh connection: %d %v", a.Status, a.Err)
			}
			a, _ = s.Send(ctx, prepare(http.MethodPost, []byte("x"), ""), time.Now(), buf)
			if a.Status != http.StatusRequestTimeout || a.Resends != 0 {
				t.Errorf("POST's 408: status %d, resends %d, err %v; want the 408, not resent", a.Status, a.Resends, a.Err)
			}
			// A connection's first answer is never an idle notice.
			s.CloseIdle()
			a, _ = s.Send(ctx, prepare(http.MethodGet, nil, "408"), time.Now(), buf)
			if a.Status != http.StatusRequestTimeout || a.Resends != 0 {
				t.Errorf("408 on a new connection: status %d, resends %d, err %v; want the 408 as the answer", a.Status, a.Resends, a.Err)
			}
		})
	}
}
