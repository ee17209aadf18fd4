package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// Issue 34, item 9: the bodies kept for replay have one bound across all
// requests in flight. With one request's body held (its answer not yet
// given), a second body that would go over the bound streams to the
// upstream as it is sent (the upstream sees its first bytes before the
// client has sent the rest; a buffering proxy would wait for ever, a
// synctest deadlock), and its transient refusal is handed back unreplayed,
// with a line and a summary that say why. Once the first request is done,
// its memory is free again and the next body is replayed.
func TestReplayMemoryBoundStreamsTheBodiesOverIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size = 1500
		firstBytes := make(chan struct{}, 8)
		release := make(chan struct{})
		r := newRig(t, Options{Budget: 5 * time.Second, MaxReplayTotal: 2048}, nil)
		r.up.answer = func(n int, w http.ResponseWriter, req *http.Request) {
			// Three creates, told apart by their query: every one is
			// on the list of calls a refusal may replay.
			switch req.URL.RawQuery {
			case "hold":
				<-release
				io.WriteString(w, "held")
			case "again":
				if n == 3 {
					refusal("sufficient_idle_cpu", true, "1", n)(w)
					return
				}
				io.WriteString(w, "created")
			default:
				refusal("sufficient_idle_cpu", true, "1", n)(w)
			}
		}
		r.setUpstreamBodyHook(&firstByteSignal{ch: firstBytes})

		held := make(chan reply, 1)
		go func() {
			held <- r.do(context.Background(), "POST", "/instances?hold", strings.NewReader(strings.Repeat("h", size)))
		}()
		<-firstBytes
		synctest.Wait() // the held request's answer is waiting on release

		pr, pw := io.Pipe()
		req, _ := http.NewRequestWithContext(t.Context(), "POST", r.base+"/instances?streamed", pr)
		req.ContentLength = size
		go func() {
			pw.Write(make([]byte, 1000))
			<-firstBytes // streamed: the upstream reads before the rest is sent
			pw.Write(make([]byte, size-1000))
			pw.Close()
		}()
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 507 || resp.Header.Get("X-Attempt") != "2" {
			t.Errorf("the streamed request got %d %q (attempt %s), want its one refusal", resp.StatusCode, b, resp.Header.Get("X-Attempt"))
		}
		want := "POST /instances: capacity refused at stage sufficient_idle_cpu (transient); handing the refusal back after 1 attempt, 0s: the request body (1500 bytes) was streamed because the replay memory (2 KiB for all requests in flight) was full, so it cannot be replayed\n"
		if got := r.log.String(); got != want {
			t.Errorf("log:\n%s\nwant:\n%s", got, want)
		}

		close(release)
		if h := <-held; h.status != 200 || string(h.body) != "held" {
			t.Errorf("the held request got %d %q", h.status, h.body)
		}
		// Its memory is given back: the next body is kept and replayed.
		if a := r.do(context.Background(), "POST", "/instances?again", strings.NewReader(strings.Repeat("a", size))); a.status != 200 || string(a.body) != "created" {
			t.Errorf("after the held request, a body of the same size got %d %q, want it replayed to success", a.status, a.body)
		}
		if n := r.up.count(); n != 4 {
			t.Errorf("the upstream saw %d requests, want 4 (held, streamed, refused, replayed)", n)
		}
		s := r.proxy.Summary()
		if s.OverReplayMemory != 1 || s.HandedBack != 1 || s.Waited != 1 {
			t.Errorf("summary %+v", s)
		}
		if want := "proxy: 3 requests forwarded, 1 refusal waited out, 1 refusal handed back, 1 request body streamed without replay (the replay memory was full)"; s.String() != want {
			t.Errorf("summary line %q, want %q", s, want)
		}
	})
}

// rawExchange sends raw bytes to the proxy on a connection of its own and
// reads one answer.
func (r *rig) rawExchange(raw string) (*http.Response, string) {
	r.t.Helper()
	conn, err := r.client.Transport.(*http.Transport).DialContext(context.Background(), "tcp", "proxy")
	if err != nil {
		r.t.Fatal(err)
	}
	defer conn.Close()
	go io.WriteString(conn, raw)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		r.t.Fatalf("%q: %v", raw, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// Issue 34, item 9: a request addressed to a name that is not loopback is
// refused with a 403 that says why (DNS rebinding: a web page whose own
// name resolves to 127.0.0.1 sends that name as its Host); CONNECT and
// HTTP/2's "PRI *" preface get a 405 with an Allow header. None of them
// reaches the upstream or counts as forwarded; each is one line. Loopback
// names, and those --accept-hosts names, pass.
func TestFrontDoorRefusesForeignHostsAndTunnels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The page names the option as the caller does (shakectl: its
		// flag).
		flag := func(field string) string { return map[string]string{"AcceptHosts": "--accept-hosts"}[field] }
		r := newRig(t, Options{AcceptHosts: []string{`proxy\.example\.com`}, OptionName: flag}, func(n int, w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, "ok")
		})
		refused := []struct {
			raw, status, allow, body string
		}{
			{"GET /instances HTTP/1.1\r\nHost: evil.example\r\n\r\n", "403 Forbidden", "",
				"shakectl proxy: Host \"evil.example\" is not accepted: only loopback names (localhost, 127.0.0.1, [::1]) are, so that no web page can reach the API through this proxy by DNS rebinding; start the proxy with --accept-hosts to accept other names\n"},
			{"GET /instances HTTP/1.1\r\nHost: evil.proxy.example.com:8080\r\n\r\n", "403 Forbidden", "",
				"shakectl proxy: Host \"evil.proxy.example.com:8080\" is not accepted: only loopback names (localhost, 127.0.0.1, [::1]) are, so that no web page can reach the API through this proxy by DNS rebinding; start the proxy with --accept-hosts to accept other names\n"},
			{"GET /instances HTTP/1.0\r\n\r\n", "403 Forbidden", "",
				"shakectl proxy: Host \"\" is not accepted: only loopback names (localhost, 127.0.0.1, [::1]) are, so that no web page can reach the API through this proxy by DNS rebinding; start the proxy with --accept-hosts to accept other names\n"},
			{"CONNECT upstream.test:443 HTTP/1.1\r\nHost: upstream.test:443\r\n\r\n", "405 Method Not Allowed", allowedMethods,
				"shakectl proxy: CONNECT is not forwarded: this is a reverse proxy in front of one Shakenfist API, not a forward proxy\n"},
			{"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "405 Method Not Allowed", allowedMethods,
				"shakectl proxy: PRI * (HTTP/2 with prior knowledge) is not supported: send HTTP/1.1\n"},
		}
		for _, tt := range refused {
			resp, body := r.rawExchange(tt.raw)
			if resp.Status != tt.status || body != tt.body || resp.Header.Get("Allow") != tt.allow {
				t.Errorf("%q: %s (Allow %q) %q\nwant %s (Allow %q) %q", tt.raw, resp.Status, resp.Header.Get("Allow"), body, tt.status, tt.allow, tt.body)
			}
		}
		for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST", "127.1.2.3:1", "[::1]:8080", "proxy.example.com:13001"} {
			resp, body := r.rawExchange("GET /instances HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
			if resp.StatusCode != 200 || body != "ok" {
				t.Errorf("Host %s: %s %q, want it forwarded", host, resp.Status, body)
			}
		}
		if n := r.up.count(); n != 6 {
			t.Errorf("the upstream saw %d requests, want only the 6 accepted", n)
		}
		wantLog := `GET /instances: refused (403): Host "evil.example" is not accepted
GET /instances: refused (403): Host "evil.proxy.example.com:8080" is not accepted
GET /instances: refused (403): Host "" is not accepted
CONNECT upstream.test:443: refused (405): CONNECT is not forwarded
PRI *: refused (405): the HTTP/2 preface (PRI *) is not forwarded
`
		if got := r.log.String(); got != wantLog {
			t.Errorf("log:\n%s\nwant:\n%s", got, wantLog)
		}
		if s := r.proxy.Summary(); s.Requests != 6 || s.Refused != 5 || !strings.HasSuffix(s.String(), ", 5 requests refused unforwarded") {
			t.Errorf("summary %+v %q", s, s)
		}
	})
}

func TestAcceptHostsMustCompile(t *testing.T) {
	_, err := New(Options{Upstream: "http://h/api", AcceptHosts: []string{"a(b"}})
	var oe *OptionError
	if !errors.As(err, &oe) || !strings.HasPrefix(oe.Render(func(f string) string { return "{" + f + "}" }), `{AcceptHosts} "a(b" is not a regular expression: missing closing )`) {
		t.Errorf("%v (%T), want an OptionError naming {AcceptHosts}", err, err)
	}
}
