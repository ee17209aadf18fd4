package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/retry"
)

// debugBodyMax bounds each body --debug prints; the rest is counted, as in
// "… 812 bytes more".
const debugBodyMax = 4 << 10

// debugLog writes --debug lines. URLs, headers and bodies reach it only
// through the redactor (redact.URL, redact.Header, redact.Body), so the key
// and the bearer token cannot.
type debugLog struct {
	mu sync.Mutex
	w  io.Writer
	// mask, when set, removes the key and every token the client holds
	// from a line, in case a hostile server echoes them in a body.
	mask func(string) string
}

func (d *debugLog) line(s string) {
	if d == nil {
		return
	}
	if d.mask != nil {
		s = d.mask(s)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.w, "debug: %s\n", s)
}

func (d *debugLog) linef(format string, a ...any) {
	if d == nil {
		return
	}
	d.line(fmt.Sprintf(format, a...))
}

// block writes a request's or answer's details as one locked write, so the
// lines of concurrent requests do not interleave.
func (d *debugLog) block(lines []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var b strings.Builder
	for _, l := range lines {
		if d.mask != nil {
			l = d.mask(l)
		}
		b.WriteString("debug: ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(d.w, b.String())
}

// debugTransport logs what gh's GH_DEBUG=api and kubectl -v=8 show: method
// and full URL, the request's headers and body, then the answer's status,
// headers, body and the attempt's duration. It sits below the
// authentication, so it sees the Authorization header and the /auth body:
// both are redacted here.
//
// It also says, once a request has gone a second without an answer, what
// is being waited for (Options.Waiting), so a server that accepts and never
// answers does not look like a hung shakectl.
type debugTransport struct {
	next    http.RoundTripper
	log     *debugLog
	waiting func(method, url string)
}

// waitNoticeAfter is how long a request goes unanswered before Waiting is
// called.
const waitNoticeAfter = time.Second

func (t *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.waiting != nil {
		// The notice is written before RoundTrip returns, never after or
		// during the lines the command prints next.
		answered, noticed := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(noticed)
			timer := time.NewTimer(waitNoticeAfter)
			defer timer.Stop()
			select {
			case <-timer.C:
				t.waiting(req.Method, redact.URL(req.URL.String()))
			case <-answered:
			}
		}()
		defer func() { close(answered); <-noticed }()
	}
	if t.log == nil {
		return t.next.RoundTrip(req)
	}
	attempt := ""
	if call := callFrom(req.Context()); call != nil && call.Enabled() {
		attempt = fmt.Sprintf(" (attempt %d/%d)", call.Attempt(), retry.MaxAttempts)
	}
	lines := []string{fmt.Sprintf("> %s %s%s", req.Method, redact.URL(req.URL.String()), attempt)}
	lines = append(lines, headerLines("> ", req.Header)...)
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		lines = append(lines, bodyLines("> ", body)...)
	}
	t.log.block(lines)

	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	took := time.Since(start).Round(100 * time.Microsecond)
	if err != nil {
		t.log.linef("< %s %s failed after %s: %v", req.Method, req.URL.EscapedPath(), took, err)
		return resp, err
	}
	if resp.Request == nil {
		resp.Request = req
	}
	rid := resp.Header.Get("X-Request-ID")
	if rid == "" {
		rid = "-"
	}
	lines = []string{fmt.Sprintf("< %s %s %d %s in %s request-id=%s", req.Method, req.URL.EscapedPath(), resp.StatusCode,
		http.StatusText(resp.StatusCode), took, oneLine(rid))}
	lines = append(lines, headerLines("< ", resp.Header)...)
	if resp.Body != nil {
		// Only what is printed (and one byte to know there is more) is
		// read ahead; the caller still reads the whole body as sent.
		head, rerr := io.ReadAll(io.LimitReader(resp.Body, debugBodyMax+1))
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		if rerr == nil {
			lines = append(lines, bodyLinesFrom("< ", head, resp.ContentLength)...)
		}
	}
	t.log.block(lines)
	return resp, err
}

func headerLines(prefix string, h http.Header) []string {
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		for _, v := range h[n] {
			out = append(out, fmt.Sprintf("%s%s: %s", prefix, n, oneLine(redact.Header(n, v))))
		}
	}
	return out
}

func bodyLines(prefix string, body []byte) []string {
	return bodyLinesFrom(prefix, body, int64(len(body)))
}

// bodyLinesFrom prints at most debugBodyMax bytes of a (redacted) body and
// says how much more there was when the total is known.
func bodyLinesFrom(prefix string, body []byte, total int64) []string {
	if len(body) == 0 {
		return nil
	}
	shown := redact.Body(body)
	more := ""
	if len(shown) > debugBodyMax {
		shown = shown[:debugBodyMax]
		if total > int64(debugBodyMax) {
			more = fmt.Sprintf(" … %d bytes more", total-int64(debugBodyMax))
		} else {
			more = " … more"
		}
	}
	return []string{prefix + oneLine(string(shown)) + more}
}

type callKey struct{}

func withCall(ctx context.Context, call *retry.Call) context.Context {
	// The call also carries where a failed login is recorded (auth.go).
	return context.WithValue(context.WithValue(ctx, callKey{}, call), loginFailureKey{}, &loginFailure{})
}

func callFrom(ctx context.Context) *retry.Call {
	call, _ := ctx.Value(callKey{}).(*retry.Call)
	return call
}
