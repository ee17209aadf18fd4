package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/retry"
)

// A body over the replay bound streams to the upstream as it is sent (the
// upstream sees its first bytes before the client has sent the rest) and a
// transient refusal of it is handed back, never replayed. A chunked body
// likewise. A body at the bound is buffered and replayed.
func TestLargeAndChunkedBodiesStreamAndAreNotReplayed(t *testing.T) {
	const max = DefaultMaxReplayBody
	tests := []struct {
		name     string
		size     int
		chunked  bool
		attempts int
	}{
		{"over 1 MiB", max + 1, false, 1},
		{"chunked", 4096, true, 1},
		{"exactly 1 MiB is replayed", max, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				firstBytes := make(chan struct{}, 8)
				var lengths []int
				r := newRig(t, Options{Budget: time.Second}, nil)
				r.up.answer = func(n int, w http.ResponseWriter, req *http.Request) {
					lengths = append(lengths, len(r.up.got()[n-1].body))
					refusal("sufficient_free_disk", true, "1", n)(w)
				}
				pr, pw := io.Pipe()
				req, _ := http.NewRequestWithContext(t.Context(), "POST", r.base+"/instances", pr)
				if !tt.chunked {
					req.ContentLength = int64(tt.size)
				}
				go func() {
					head := make([]byte, 1024)
					pw.Write(head)
					if tt.size > max {
						// Streamed: the upstream must see these bytes
						// before the rest is written. A buffering proxy
						// would wait here for ever (synctest: deadlock).
						<-firstBytes
					}
					pw.Write(make([]byte, tt.size-len(head)))
					pw.Close()
				}()
				sawFirst := &firstByteSignal{ch: firstBytes}
				r.setUpstreamBodyHook(sawFirst)
				resp, err := r.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 507 || !strings.Contains(string(b), "sufficient_free_disk") {
					t.Errorf("client got %d %q", resp.StatusCode, b)
				}
				if n := r.up.count(); n != tt.attempts {
					t.Errorf("%d attempts, want %d", n, tt.attempts)
				}
				for i, l := range lengths {
					if l != tt.size {
						t.Errorf("attempt %d carried %d bytes, want %d", i+1, l, tt.size)
					}
				}
				if tt.attempts == 1 {
					if s := r.proxy.Summary(); s.HandedBack != 1 || s.Waited != 0 {
						t.Errorf("summary %+v", s)
					}
					if !strings.Contains(r.log.String(), "cannot be replayed") {
						t.Errorf("log %q does not say why the refusal was handed back", r.log.String())
					}
				}
			})
		})
	}
}

type firstByteSignal struct{ ch chan struct{} }

// setUpstreamBodyHook makes the upstream signal once it has read the first
// byte of a body, before it reads the rest.
func (r *rig) setUpstreamBodyHook(sig *firstByteSignal) {
	r.up.mu.Lock()
	r.up.firstByte = sig.ch
	r.up.mu.Unlock()
}

// A redirect to the upstream is pointed back at the proxy; one elsewhere is
// left alone.
func TestRedirectToUpstreamIsRewrittenToTheProxy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Upstream: "http://upstream.test:13000/api"}, func(n int, w http.ResponseWriter, req *http.Request) {
			switch req.URL.Path {
			case "/api/":
				w.Header().Set("Location", "http://upstream.test:13000/api/v2?x=1")
			case "/api/login":
				w.Header().Set("Location", "https://sso.example.com/login")
			case "/api/rel":
				w.Header().Set("Location", "/api/elsewhere")
			}
			w.WriteHeader(http.StatusFound)
		})
		if r.base != "http://127.0.0.1:8080/api" {
			t.Fatalf("URL() = %q, want the upstream's /api prefix kept", r.base)
		}
		for path, want := range map[string]string{
			"/":      "http://127.0.0.1:8080/api/v2?x=1",
			"/login": "https://sso.example.com/login",
			"/rel":   "/api/elsewhere",
		} {
			got := r.do(t.Context(), "GET", path, nil)
			if got.status != http.StatusFound || got.header.Get("Location") != want {
				t.Errorf("GET %s: %d Location %q, want %q", path, got.status, got.header.Get("Location"), want)
			}
		}
	})
}

// Either side's /api prefix: the proxy's URL keeps the upstream's prefix,
// and a client configured with the proxy's bare root reaches the same
// routes. The client's Authorization and its own /auth call pass through.
func TestAPIPrefixAndCredentialsPassThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Upstream: "http://upstream.test:13000/api/"}, func(n int, w http.ResponseWriter, req *http.Request) {
			io.WriteString(w, req.URL.RequestURI())
		})
		bare := strings.TrimSuffix(r.base, "/api")
		for _, tt := range []struct{ url, want string }{
			{r.base + "/auth", "/api/auth"},
			{bare + "/auth", "/api/auth"},
			{r.base + "/instances/a%2Fb?x=1", "/api/instances/a%2Fb?x=1"},
			{bare + "/apiary", "/api/apiary"},
			{bare + "/", "/api/"},
		} {
			req, _ := http.NewRequestWithContext(t.Context(), "POST", tt.url, strings.NewReader(`{"namespace": "system", "key": "demo"}`))
			req.Header.Set("Authorization", "Bearer secret-token")
			req.Header.Set("X-Forwarded-For", "10.1.2.3")
			resp, err := r.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != tt.want {
				t.Errorf("%s reached %q, want %q", tt.url, b, tt.want)
			}
		}
		for _, a := range r.up.got() {
			if a.header.Get("Authorization") != "Bearer secret-token" || string(a.body) != `{"namespace": "system", "key": "demo"}` {
				t.Errorf("%s: Authorization %q body %q, want the client's own", a.path, a.header.Get("Authorization"), a.body)
			}
			if a.header.Get("X-Forwarded-For") != "10.1.2.3" {
				t.Errorf("%s: X-Forwarded-For %q: the proxy changed the client's headers", a.path, a.header.Get("X-Forwarded-For"))
			}
		}
	})
}

// A client that disconnects while its request waits: the wait stops and no
// further attempt reaches the upstream.
func TestClientDisconnectDuringWaitSendsNothingMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: time.Hour}, alwaysRefuse("15"))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan reply)
		go func() { done <- r.do(ctx, "POST", "/instances", strings.NewReader(createBody)) }()
		synctest.Wait() // the first refusal is in and the proxy waits
		if n := r.up.count(); n != 1 {
			t.Fatalf("%d attempts before the disconnect, want 1", n)
		}
		time.Sleep(5 * time.Second) // part of the 15 s wait
		cancel()
		if got := <-done; got.err == nil {
			t.Fatalf("the cancelled client got an answer: %d", got.status)
		}
		time.Sleep(time.Hour) // far past every wait the request could have had
		synctest.Wait()
		if n := r.up.count(); n != 1 {
			t.Errorf("%d attempts after the client left, want 1", n)
		}
		if s := r.proxy.Summary(); s.Waited != 0 {
			t.Errorf("summary %+v: a wait was counted as waited out", s)
		}
	})
}

// Concurrent clients each have their own budget, counted from their own
// first attempt: one starting 10 s after the other still gets 20 s.
func TestConcurrentClientsHaveTheirOwnBudgets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: 20 * time.Second}, alwaysRefuse("15"))
		start := time.Now()
		res := make(chan reply, 2)
		go func() { res <- r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody)) }()
		time.Sleep(10 * time.Second)
		go func() { res <- r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody)) }()
		a, b := <-res, <-res
		if got := []time.Duration{a.at.Sub(start), b.at.Sub(start)}; got[0] != 20*time.Second || got[1] != 30*time.Second {
			t.Errorf("answers at %v, want 20s and 30s (each client's own 20 s budget)", got)
		}
		if n := r.up.count(); n != 6 {
			t.Errorf("%d attempts, want 3 per client", n)
		}
		if s := r.proxy.Summary(); s != (Summary{Requests: 2, Waited: 4, HandedBack: 2}) {
			t.Errorf("summary %+v", s)
		}
	})
}

// The summary counts requests, refusals waited out and refusals handed
// back across a mixed run.
func TestSummaryFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: time.Hour}, nil)
		perPath := map[string]int{}
		r.up.answer = func(n int, w http.ResponseWriter, req *http.Request) {
			// Four creates, told apart by their query.
			q := req.URL.RawQuery
			perPath[q]++
			k := perPath[q]
			switch {
			case q == "recovers" && k <= 2, q == "never":
				refusal("sufficient_idle_cpu", true, "1", k)(w)
			case q == "final":
				refusal("cpu_max_per_instance", false, "", k)(w)
			default:
				io.WriteString(w, "{}")
			}
		}
		for _, q := range []string{"recovers", "never", "final", "plain"} {
			r.do(t.Context(), "POST", "/instances?"+q, strings.NewReader(createBody))
		}
		got := r.proxy.Summary()
		if got != (Summary{Requests: 4, Waited: 2 + 4, HandedBack: 1}) {
			t.Errorf("summary %+v", got)
		}
		if s := got.String(); s != "proxy: 4 requests forwarded, 6 refusals waited out, 1 refusal handed back" {
			t.Errorf("summary line %q", s)
		}
	})
}

// Shutdown cuts every wait short and hands each waiting client the
// refusal it was waiting on, at once.
func TestShutdownHandsBackTheRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: time.Hour}, alwaysRefuse("15"))
		res := make(chan reply, 3)
		for range 3 {
			go func() { res <- r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody)) }()
		}
		synctest.Wait()
		time.Sleep(3 * time.Second)
		start := time.Now()
		if err := r.proxy.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			got := <-res
			if got.status != 507 || !strings.Contains(string(got.body), `"transient": true`) || got.header.Get("Retry-After") != "15" {
				t.Errorf("client got %d %q, want the refusal it waited on", got.status, got.body)
			}
			if !got.at.Equal(start) {
				t.Errorf("answered %s after the shutdown, want at once", got.at.Sub(start))
			}
		}
		if n := r.up.count(); n != 3 {
			t.Errorf("%d attempts, want 1 per client", n)
		}
		if s := r.proxy.Summary(); s != (Summary{Requests: 3, Waited: 0, HandedBack: 3}) {
			t.Errorf("summary %+v", s)
		}
	})
}

// The proxy listens on loopback only, unless AllowRemote.
func TestListenMustBeLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "[::]:0", "example.com:0", "10.0.0.1:8080"} {
		p, err := New(Options{Upstream: "http://192.0.2.10:13000", Listen: addr})
		if err != nil {
			t.Fatal(err)
		}
		err = p.Start()
		if err == nil {
			p.Shutdown(t.Context())
			t.Errorf("listen %q: started, want a refusal", addr)
		} else if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("listen %q: %v, want it to say loopback", addr, err)
		}
	}
	if err := checkListen("0.0.0.0:8080", true); err != nil {
		t.Errorf("with AllowRemote: %v", err)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		if err := checkListen(addr, false); err != nil {
			t.Errorf("listen %q: %v", addr, err)
		}
	}
}

// The proxy refuses to stand in front of itself.
func TestUpstreamIsTheProxyItself(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	for _, up := range []string{"http://127.0.0.1:" + port, "http://localhost:" + port + "/api"} {
		p, err := New(Options{Upstream: up, Listen: "127.0.0.1:" + port})
		if err != nil {
			t.Fatal(err)
		}
		err = p.Start()
		if err == nil {
			p.Shutdown(t.Context())
			t.Errorf("upstream %s on the proxy's own address: started, want a refusal", up)
		} else if !strings.Contains(err.Error(), "the proxy itself") {
			t.Errorf("upstream %s: %v", up, err)
		}
	}
}

// A real loopback round trip through Start, against an httptest upstream.
func TestStartServesOnLoopback(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Method+" "+r.URL.Path)
	}))
	defer up.Close()
	p, err := New(Options{Upstream: up.URL + "/api"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") || !strings.HasSuffix(p.URL(), "/api") {
		t.Fatalf("URL %q", p.URL())
	}
	resp, err := http.Get(p.URL() + "/instances")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "GET /api/instances" {
		t.Errorf("got %q", b)
	}
}

// Run serves until its context ends, then hands the waiting client its
// refusal and reports the summary.
func TestRunUntilCancelled(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refusal("sufficient_idle_cpu", true, "60", 1)(w)
	}))
	defer up.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	urls := make(chan string, 1)
	waiting := make(chan struct{}, 1)
	type result struct {
		s   Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Run(ctx, Options{Upstream: up.URL, Notify: func(retry.Notice) { waiting <- struct{}{} }}, func(u string) { urls <- u })
		done <- result{s, err}
	}()
	u := <-urls
	got := make(chan int, 1)
	go func() {
		resp, err := http.Post(u+"/instances", "application/json", strings.NewReader(createBody))
		if err != nil {
			got <- 0
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	<-waiting
	cancel()
	if code := <-got; code != 507 {
		t.Errorf("the waiting client got %d, want its 507", code)
	}
	r := <-done
	if r.err != nil || r.s != (Summary{Requests: 1, HandedBack: 1}) {
		t.Errorf("Run: %+v, %v", r.s, r.err)
	}
}

// FuzzUpstreamPath: whatever path a client sends, the proxy forwards it
// under the upstream's prefix, and a path already there unchanged.
func FuzzUpstreamPath(f *testing.F) {
	for _, p := range []string{"", "/", "/api", "/api/", "/api/auth", "/apiary", "/auth", "//api", "/api//x", "/%2Fapi", "/api%2F", "api"} {
		f.Add("/api", p)
		f.Add("", p)
		f.Add("/a/b", p)
	}
	f.Fuzz(func(t *testing.T, prefix, path string) {
		if prefix != "" && (!strings.HasPrefix(prefix, "/") || strings.HasSuffix(prefix, "/")) {
			return // New trims the prefix to "" or "/x…" without a trailing slash
		}
		s := &Server{prefix: prefix}
		got := s.upstreamPath(path)
		if prefix == "" {
			if got != path {
				t.Fatalf("no prefix: %q became %q", path, got)
			}
			return
		}
		if got != prefix && !strings.HasPrefix(got, prefix+"/") {
			t.Fatalf("prefix %q: %q became %q, outside the prefix", prefix, path, got)
		}
		if (path == prefix || strings.HasPrefix(path, prefix+"/")) && got != path {
			t.Fatalf("prefix %q: %q, already under it, became %q", prefix, path, got)
		}
	})
}

// Bad options are OptionErrors (usage, exit 2) and never repeat a password.
func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Upstream: ""},
		{Upstream: "127.0.0.1:13000"},
		{Upstream: "ftp://h/api"},
		{Upstream: "http:///api"},
		{Upstream: "http://h/api?x=1"},
		{Upstream: "http://admin:hunter2@h/api"},
		{Upstream: "http://h/api", Budget: -time.Second},
		{Upstream: "http://h/api", RetryWait: -time.Second},
	} {
		_, err := New(o)
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%+v: %v, want an OptionError", o, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error repeats the password: %v", err)
		}
	}
	p, _ := New(Options{Upstream: "http://h/api", Listen: "0.0.0.0:0"})
	var oe *OptionError
	if err := p.Start(); !errors.As(err, &oe) {
		t.Errorf("non-loopback listen: %v, want an OptionError", err)
	}
}

// client-python#420, in front of other clients: the proxy replays a
// refusal marked transient only on the calls a replay cannot double
// (retry.ReplayableRoutes, the list shakectl's own retry follows), read
// under the upstream's /api prefix. An upload chunk (which may already
// have been appended), a delete, a power action get the server's refusal
// at once, byte for byte, with a line that says why; a create and a read
// are replayed.
func TestOnlyTheReplayableRoutesAreReplayed(t *testing.T) {
	for _, tt := range []struct {
		method, path string
		body         string
		replayed     bool
	}{
		// Under the proxy's URL, http://127.0.0.1:PORT/api.
		{"POST", "/instances", createBody, true},
		{"GET", "/instances/web1", "", true},
		{"POST", "/upload/0c4a3c9e-8e1f-4b8e-9a51-2b7c3d4e5f60", "chunk", false},
		{"DELETE", "/instances/web1", "", false},
		{"POST", "/instances/web1/poweron", "", false},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Options{Upstream: "http://upstream.test:13000/api", Budget: time.Minute}, func(n int, w http.ResponseWriter, _ *http.Request) {
					if n == 1 {
						refusal("sufficient_idle_cpu", true, "1", n)(w)
						return
					}
					io.WriteString(w, `{"ok": true}`)
				})
				var body io.Reader
				if tt.body != "" {
					body = strings.NewReader(tt.body)
				}
				start := time.Now()
				got := r.do(t.Context(), tt.method, tt.path, body)
				if tt.replayed {
					if got.status != 200 || r.up.count() != 2 || time.Since(start) != time.Second {
						t.Errorf("got %d after %d attempts in %s, want it replayed once after 1s", got.status, r.up.count(), time.Since(start))
					}
					if s := r.proxy.Summary(); s.Waited != 1 || s.HandedBack != 0 {
						t.Errorf("summary %q", s)
					}
					return
				}
				want := `{"error": "Insufficient Resources (attempt 1)", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}` + "\n"
				if got.status != 507 || string(got.body) != want || got.header.Get("Retry-After") != "1" || r.up.count() != 1 || !got.at.Equal(start) {
					t.Errorf("got %d %q after %d attempts and %s, want the server's refusal at once", got.status, got.body, r.up.count(), got.at.Sub(start))
				}
				wantLog := tt.method + " /api" + tt.path + ": capacity refused at stage sufficient_idle_cpu (transient); handing the refusal back after 1 attempt, 0s: " +
					tt.method + " " + tt.path + " is not a call a replay cannot double: only POST /instances (instance create) and reads (GET, HEAD) are replayed\n"
				if l := r.log.String(); l != wantLog {
					t.Errorf("log\n%s\nwant\n%s", l, wantLog)
				}
				if s := r.proxy.Summary().String(); s != "proxy: 1 request forwarded, 0 refusals waited out, 1 refusal handed back" {
					t.Errorf("summary %q", s)
				}
			})
		})
	}
}
