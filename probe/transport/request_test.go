package transport

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// Prepare renders exactly what net/http's Request.Write would send, the
// head apart from the body, and the body is the caller's own bytes (a
// burst of many requests holds one body, not one copy per request).
func TestPrepareRendersNetHTTPsBytesAndSharesTheBody(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 100<<10)
	for _, b := range [][]byte{nil, []byte("{}"), body} {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:9/path?q=1", nil)
		req.Host = "actor-1.default.test"
		req.Header.Set("User-Agent", "shakectl-parking-probe")
		req.Header.Set("X-Extra", "yes")
		r, err := Prepare(req, b)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		w := req.Clone(req.Context())
		if len(b) > 0 {
			w.Body = nopCloser{bytes.NewReader(b)}
			w.ContentLength = int64(len(b))
		}
		if err := w.Write(&want); err != nil {
			t.Fatal(err)
		}
		got := append(append([]byte{}, r.head...), r.body...)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("body %d bytes: rendered\n%.300q\nwant\n%.300q", len(b), got, want.Bytes())
		}
		if len(b) > 0 && &r.Body()[0] != &b[0] {
			t.Errorf("the prepared request holds a copy of the body")
		}
		back, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(got)))
		if err != nil || back.Host != req.Host || back.ContentLength != int64(len(b)) {
			t.Errorf("read back: %v, %+v", err, back)
		}
	}
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// Prepare tells what the senders need to know of a request: whether it
// asks to close the connection (in any spelling of the header), whether
// it may be resent (idempotent methods, as net/http), and whether its
// answer has a body.
func TestPrepareReadsCloseReplayableAndHead(t *testing.T) {
	cases := []struct {
		method, connection  string
		close, replay, head bool
	}{
		{"GET", "", false, true, false},
		{"GET", "close", true, true, false},
		{"GET", "keep-alive, Close", true, true, false},
		{"HEAD", "", false, true, true},
		{"POST", "", false, false, false},
		{"DELETE", "", false, false, false},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, "http://127.0.0.1:9/", nil)
		if c.connection != "" {
			req.Header.Set("Connection", c.connection)
		}
		r, err := Prepare(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.close != c.close || r.replayable != c.replay || r.isHead != c.head {
			t.Errorf("%s Connection %q: close %v replayable %v head %v; want %v %v %v", c.method, c.connection, r.close, r.replayable, r.isHead, c.close, c.replay, c.head)
		}
		if c.close && !strings.Contains(strings.ToLower(string(r.head)), "connection: ") {
			t.Errorf("the Connection header was not sent: %q", r.head)
		}
	}
	for _, h := range []http.Header{{"Bad Name": {"v"}}, {"X-Value": {"a\r\nInjected: yes"}}} {
		bad, _ := http.NewRequest("GET", "http://127.0.0.1:9/", nil)
		bad.Header = h
		if _, err := Prepare(bad, nil); err == nil {
			t.Errorf("header %q, which net/http refuses to send, was prepared", h)
		}
		if _, err := http.DefaultTransport.RoundTrip(bad); err == nil || !strings.Contains(err.Error(), "invalid header") {
			t.Errorf("net/http sent header %q (%v): the test proves nothing", h, err)
		}
	}
}

// Choose picks the wire sender for plain http:// to one address and
// net/http otherwise, and refuses a wire sender it cannot use.
func TestChoose(t *testing.T) {
	cases := []struct {
		kind, scheme, addr, want string
		fails                    bool
	}{
		{"", "http", "127.0.0.1:80", Wire, false},
		{"", "https", "127.0.0.1:443", NetHTTP, false},
		{"", "http", "", NetHTTP, false},
		{NetHTTP, "http", "127.0.0.1:80", NetHTTP, false},
		{Wire, "https", "127.0.0.1:443", "", true},
		{Wire, "http", "", "", true},
		{"fasthttp", "http", "127.0.0.1:80", "", true},
	}
	for _, c := range cases {
		got, err := Choose(c.kind, c.scheme, c.addr)
		if got != c.want || (err != nil) != c.fails {
			t.Errorf("Choose(%q, %q, %q) = %q, %v; want %q, fails %v", c.kind, c.scheme, c.addr, got, err, c.want, c.fails)
		}
	}
}
