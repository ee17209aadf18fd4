package router

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// Over real loopback TCP: the URLs, the fast path, an invalid host,
// /metrics and /statusz.
func TestLoopbackEndToEnd(t *testing.T) {
	h := startTCP(t, testConfig())
	for _, u := range []string{h.s.URL(), h.s.MetricsURL(), h.s.StatusURL()} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Errorf("URL %s not on loopback", u)
		}
	}
	for _, a := range h.s.Addrs() {
		if !IsLoopback(a) {
			t.Errorf("%v is not loopback", a)
		}
	}
	served(t, h.get("actor-0001"), "actor-0001")
	expect(t, h.get("example.com"), http.StatusNotFound, `invalid host "example.com": not under actors.resources.substrate.ate.dev: want <actor>.<atespace>.actors.resources.substrate.ate.dev`)
	pm := h.metrics()
	if pm.count(OutcomeServed) != 1 || pm.active != 0 || pm.rejected != 0 {
		t.Errorf("metrics after one cold request: %+v", pm)
	}
	if p := h.statusJSON()["parking"]; p["enabled"] != true || p["max_parked"] != 1024.0 {
		t.Errorf("statusz: %v", p)
	}
	resp, err := http.Get(strings.TrimSuffix(h.s.StatusURL(), "statusz"))
	if err != nil || resp.Request.URL.Path != "/statusz" {
		t.Errorf("/ does not lead to /statusz: %v", err)
	}
	if resp != nil {
		resp.Body.Close()
	}
}

// A second simulator on the same address fails to start, naming the
// setting (the command names its flag).
func TestListenConflict(t *testing.T) {
	h := startTCP(t, testConfig())
	cfg := testConfig()
	cfg.MetricsListen = strings.TrimPrefix(strings.TrimSuffix(h.s.MetricsURL(), "/metrics"), "http://")
	if _, err := Start(context.Background(), cfg); err == nil || !strings.HasPrefix(fielderr.Render(err, braces), "{MetricsListen} ") || !errors.As(err, new(*net.OpError)) {
		t.Fatalf("Start on a busy port: %v", err)
	}
}

// Hostile clients leak nothing: huge headers are refused by the server,
// raw garbage is answered 400, and clients that hang up while parked give
// their slot, their breaker stream and their goroutines back. In a bubble
// over in-memory connections, so that "the server has noticed the
// hang-ups" is synctest.Wait, not a poll of the clock.
func TestHostileClientsLeakNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 8
		cfg.ExtprocMaxRequests = 16
		cfg.ParkedRequestBudget = time.Second
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)
		dial := func() net.Conn {
			c, err := h.router.Dial(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		synctest.Wait()
		baseline := runtime.NumGoroutine()

		r := h.get("actor-0001", "X-Big", strings.Repeat("x", 100<<10))
		if r.code != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("100 KiB header: %v, want 431", r)
		}

		for _, raw := range []string{"GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\x00b\r\n\r\n", "GET / HTTP/9.9\r\n\r\n"} {
			c := dial()
			go fmt.Fprint(c, raw)
			line, _ := bufio.NewReader(c).ReadString('\n')
			if !strings.HasPrefix(line, "HTTP/1.1 4") && !strings.HasPrefix(line, "HTTP/1.1 5") {
				t.Errorf("%q answered %q", raw, line)
			}
			c.Close()
		}

		// Eight clients park, then hang up.
		var conns []net.Conn
		for i := 2; i < 10; i++ {
			c := dial()
			go fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", hostFor(ActorName(i)))
			conns = append(conns, c)
		}
		synctest.Wait()
		if n := h.s.Status().Parking.Active; n != 8 {
			t.Fatalf("parked %d, want 8", n)
		}
		expect(t, h.get("actor-0010"), http.StatusServiceUnavailable, `actor "actor-0010" unavailable: router at capacity`)
		for _, c := range conns {
			c.Close()
		}
		synctest.Wait()
		if st := h.s.Status(); st.Parking.Active != 0 || st.Extproc.Active != 0 {
			t.Fatalf("after the hang-ups: %+v", st)
		}
		if pm := h.metrics(); pm.count(OutcomeCanceled) != 8 || pm.active != 0 {
			t.Errorf("canceled %d (want 8), active %v", pm.count(OutcomeCanceled), pm.active)
		}
		// The orphaned flights end with their budget, then the goroutines
		// are back to what they were (a little slack for the client's
		// own connections).
		time.Sleep(cfg.ParkedRequestBudget)
		synctest.Wait()
		if n := runtime.NumGoroutine(); n > baseline+4 {
			buf := make([]byte, 1<<16)
			t.Errorf("goroutines %d, baseline %d:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
		}
	})
}
