package transport

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/internal/rawserver"
)

// deadlineCounter counts the deadlines set on a connection.
type deadlineCounter struct {
	net.Conn
	sets *atomic.Int64
}

func (c deadlineCounter) SetDeadline(t time.Time) error {
	c.sets.Add(1)
	return c.Conn.SetDeadline(t)
}

// A connection keeps the deadline an earlier request set while it is at
// least half a timeout off, and a request whose answer comes after that
// deadline but before its own still gets its answer; one that gets none
// ends at its own deadline, not the connection's. On the bubble's clock,
// with a server that answers each request after the delay its path asks.
func TestWireConnectionKeepsItsDeadlineAndARequestStillEndsAtItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := memnet.NewListener("router.test:80")
		done := make(chan struct{})
		// pause is how long the server waits after its next answer before
		// it reads again: a request written then waits for it (net.Pipe).
		var pause atomic.Int64
		defer close(done)
		rawserver.ServeOn(t, ln, func(c net.Conn) {
			br := bufio.NewReader(c)
			for {
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				d, _ := time.ParseDuration(req.URL.Path[1:])
				select {
				case <-time.After(d):
				case <-done:
					return
				}
				if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
					return
				}
				select {
				case <-time.After(time.Duration(pause.Swap(0))):
				case <-done:
					return
				}
			}
		})
		var sets atomic.Int64
		const timeout = 10 * time.Second
		s := newWireSender("router.test:80", timeout, nil)
		s.dial = func(ctx context.Context, _, _ string) (net.Conn, error) {
			c, err := ln.Dial(ctx)
			return deadlineCounter{Conn: c, sets: &sets}, err
		}
		defer s.Close()
		// sendSent sends path as a request sent at sent (one that waited
		// for a connection was sent before it took one).
		sendSent := func(path string, sent time.Time) (Answer, time.Duration) {
			t.Helper()
			req, err := http.NewRequest(http.MethodGet, "http://router.test"+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Prepare(req, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := s.Send(context.Background(), r, sent, PrefixBufFunc(func() []byte { return make([]byte, 64) }))
			return a, time.Since(sent)
		}
		send := func(path string) (Answer, time.Duration) {
			t.Helper()
			return sendSent(path, time.Now())
		}

		// At 0s the first request dials and sets its deadline, 10s.
		if a, _ := send("/0s"); a.Err != nil || a.Status != 200 {
			t.Fatalf("first request: %+v", a)
		}
		// Back to back, the next requests keep it: one deadline set for
		// all five.
		for range 4 {
			if a, _ := send("/0s"); a.Err != nil {
				t.Fatalf("back to back: %v", a.Err)
			}
		}
		if n := sets.Load(); n != 1 {
			t.Errorf("deadlines set for five requests back to back: %d, want 1", n)
		}
		// At 3s a request is sent with its own deadline at 13s; the
		// connection keeps 10s (7s off), and the answer comes at 11s.
		time.Sleep(3 * time.Second)
		if a, took := send("/8s"); a.Err != nil || a.Status != 200 || took != 8*time.Second {
			t.Errorf("answer after the connection's deadline, before the request's: %+v after %s, want 200 after 8s", a, took)
		}
		// At 11s: the deadline is 13s, 2s off, so the next request takes
		// its own, 21s. Then at 15s one whose answer would come after
		// its own deadline (25s) but is read under the kept 21s.
		if a, _ := send("/0s"); a.Err != nil {
			t.Fatalf("at 11s: %v", a.Err)
		}
		time.Sleep(4 * time.Second)
		a, took := send("/30s")
		if !a.ClientTimeout || took != timeout {
			t.Errorf("no answer: client timeout %v after %s, want a client timeout after %s, the request's own", a.ClientTimeout, took, timeout)
		}
		// The write too: at 25s a new connection takes 35s; the server
		// then reads nothing until 36s. A request written at 28s (its own
		// deadline 38s) waits past the connection's 35s and is answered.
		pause.Store(int64(11 * time.Second))
		if a, _ := send("/0s"); a.Err != nil {
			t.Fatalf("at 25s: %v", a.Err)
		}
		time.Sleep(3 * time.Second)
		if a, took := send("/0s"); a.Err != nil || a.Status != 200 || a.Resends != 0 || took != 8*time.Second {
			t.Errorf("written after the connection's deadline, before the request's: %+v after %s, want 200 after 8s, not resent", a, took)
		}
		// At 36s a request takes 46s (the kept 38s is 2s off). Then one
		// sent at 30s that only now takes the connection: its own deadline
		// is 40s, before the connection's 46s, and it ends there.
		if a, _ := send("/0s"); a.Err != nil {
			t.Fatalf("at 36s: %v", a.Err)
		}
		if a, took := sendSent("/30s", time.Now().Add(-6*time.Second)); !a.ClientTimeout || took != timeout {
			t.Errorf("a request that waited for the connection: client timeout %v after %s, want a client timeout after %s, its own", a.ClientTimeout, took, timeout)
		}
	})
}
