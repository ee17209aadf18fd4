package proxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output"
)

// jsonLog, as a rig's Options.Log, writes the rig's log as under -o json.
var jsonLog Logger = jsonLogMark{}

type jsonLogMark struct{}

func (jsonLogMark) Event(string, any)      {}
func (jsonLogMark) Lines(string) io.Writer { return io.Discard }

// dialTo dials l whatever the address: the rig's clients reach the proxy,
// and the proxy its upstream, by any name.
func dialTo(l *memnet.Listener) func(ctx context.Context, _, _ string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) { return l.Dial(ctx) }
}

// attempt is one request the upstream received.
type attempt struct {
	method, path string
	header       http.Header
	body         []byte
	at           time.Time
}

// upstream is a scripted API server: answer(n, r) answers its n-th request
// (1-based) and every request is recorded.
type upstream struct {
	mu       sync.Mutex
	attempts []attempt
	answer   func(n int, w http.ResponseWriter, r *http.Request)
	// firstByte, if set, is signalled once the first byte of a body has
	// arrived, before the rest is read.
	firstByte chan struct{}
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	sig := u.firstByte
	u.mu.Unlock()
	var body []byte
	if sig != nil {
		one := make([]byte, 1)
		if n, _ := io.ReadFull(r.Body, one); n == 1 {
			body = append(body, one...)
			sig <- struct{}{}
		}
	}
	rest, _ := io.ReadAll(r.Body)
	body = append(body, rest...)
	u.mu.Lock()
	u.attempts = append(u.attempts, attempt{r.Method, r.URL.RequestURI(), r.Header.Clone(), body, time.Now()})
	n := len(u.attempts)
	u.mu.Unlock()
	u.answer(n, w, r)
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.attempts)
}

func (u *upstream) got() []attempt {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]attempt(nil), u.attempts...)
}

// refusal writes a scheduling 507 as the contract spells it, numbered so a
// test can tell which attempt's answer the client was handed.
func refusal(stage string, transient bool, retryAfter string, n int) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Attempt", strconv.Itoa(n))
		w.WriteHeader(http.StatusInsufficientStorage)
		io.WriteString(w, `{"error": "Insufficient Resources (attempt `+strconv.Itoa(n)+`)", "status": 507, "stage": "`+stage+`", "transient": `+strconv.FormatBool(transient)+`}`+"\n")
	}
}

func alwaysRefuse(retryAfter string) func(n int, w http.ResponseWriter, r *http.Request) {
	return func(n int, w http.ResponseWriter, _ *http.Request) {
		refusal("sufficient_idle_cpu", true, retryAfter, n)(w)
	}
}

// rig is a proxy in front of an upstream, both in memory, and a client of
// the proxy; all of it lives inside the synctest bubble that built it.
type rig struct {
	t      *testing.T
	up     *upstream
	proxy  *Server
	log    *syncbuf.Buffer
	client *http.Client
	base   string // the proxy's URL as clients use it
}

func newRig(t *testing.T, opts Options, answer func(n int, w http.ResponseWriter, r *http.Request)) *rig {
	t.Helper()
	up := &upstream{answer: answer}
	upLn := memnet.NewListener("upstream.test:13000")
	upSrv := &http.Server{Handler: up}
	go upSrv.Serve(upLn)

	if opts.Upstream == "" {
		opts.Upstream = "http://upstream.test:13000"
	}
	upTransport := &http.Transport{DialContext: dialTo(upLn), DisableCompression: true}
	opts.Transport = upTransport
	log := &syncbuf.Buffer{}
	// The log as shakectl's notifier writes it: text, or with jsonLog
	// the lines of -o json.
	mode := output.NotifyMode{}
	if opts.Log == jsonLog {
		mode.JSON, opts.Log = true, nil
	}
	if opts.Log == nil {
		opts.Log = output.NewNotifier(log, mode)
	}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	pLn := memnet.NewListener("127.0.0.1:8080")
	served := make(chan struct{})
	go func() { p.Serve(pLn); close(served) }()
	clientTransport := &http.Transport{DialContext: dialTo(pLn)}
	r := &rig{t: t, up: up, proxy: p, log: log, client: &http.Client{
		Transport:     clientTransport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	synctest.Wait() // Serve has recorded its address and waits in Accept
	r.base = r.proxy.URL()
	if r.base == "" {
		t.Fatal("the proxy has no URL after Serve")
	}
	t.Cleanup(func() {
		clientTransport.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		p.Shutdown(ctx)
		<-served
		upTransport.CloseIdleConnections()
		upSrv.Close()
	})
	return r
}

// reply is what a client got: status, headers and every byte of the body.
type reply struct {
	status int
	header http.Header
	body   []byte
	err    error
	at     time.Time
}

func (r *rig) do(ctx context.Context, method, path string, body io.Reader, header ...string) reply {
	r.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, body)
	if err != nil {
		r.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return reply{err: err, at: time.Now()}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, err: err, at: time.Now()}
}

// checkGolden compares got with testdata/name; UPDATE_GOLDEN=1 rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

func lines(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}
