package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/output/termtext"
	"github.com/shakenfist/shakectl/retry"
)

// debugBodyMax bounds each body --debug prints; the rest is counted, as in
// "… 812 bytes more".
const debugBodyMax = 4 << 10

// debugLog writes --debug lines. Headers and bodies reach it only through
// redactHeaders and redactBody, so the key and the bearer token cannot.
type debugLog struct {
	mu sync.Mutex
	w  io.Writer
	// redact, when set, removes the key and every token the client holds
	// from a line, in case a hostile server echoes them in a body.
	redact func(string) string
}

func (d *debugLog) line(s string) {
	if d == nil {
		return
	}
	if d.redact != nil {
		s = d.redact(s)
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
		if d.redact != nil {
			l = d.redact(l)
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
				t.waiting(req.Method, redactURL(req))
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
	lines := []string{fmt.Sprintf("> %s %s%s", req.Method, redactURL(req), attempt)}
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

// redactURL is the full URL without a password a user put in --api-url
// and without a token in its query (a Kerbside exchange URL).
func redactURL(req *http.Request) string {
	u := *req.URL
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = nil
		}
	}
	return redactTokenQuery(u.Redacted())
}

var (
	tokenQuery = regexp.MustCompile(`([?&]token=)[^&#\s"]+`)
	vvPassword = regexp.MustCompile(`(?m)^(password=)[^\r\n]*`)
)

// redactTokenQuery hides the value of a "token" query parameter wherever
// a URL appears in s: the console token a 2026 server mints into
// Kerbside's exchange URL (GET /instances/{ref}/vdiconsoleproxy) is a
// credential for the instance's console.
func redactTokenQuery(s string) string {
	return tokenQuery.ReplaceAllString(s, "${1}[redacted]")
}

// secretHeaders are replaced by [redacted] in --debug output.
var secretHeaders = map[string]bool{"Authorization": true, "Cookie": true, "Set-Cookie": true, "Proxy-Authorization": true}

func headerLines(prefix string, h http.Header) []string {
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		for _, v := range h[n] {
			if secretHeaders[http.CanonicalHeaderKey(n)] {
				scheme, _, _ := strings.Cut(v, " ")
				v = scheme + " [redacted]"
			}
			out = append(out, fmt.Sprintf("%s%s: %s", prefix, n, oneLine(v)))
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
	shown := redactBody(body)
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

// secretFields are JSON fields whose values --debug never prints: the key
// sent to /auth and the token it answers with (shakenfist
// external_api/app.py, da448b1a: {"namespace", "key"} in,
// {"access_token", "token_type", "expires_in"} out).
var secretFields = map[string]bool{"key": true, "access_token": true, "token": true, "password": true, "refresh_token": true}

// redactBody replaces the values of secret fields anywhere in a JSON body.
// A body that is not JSON, or is cut short, is shown only when it has no
// field that looks secret.
func redactBody(body []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		// A .vv file from Kerbside carries a console password.
		body = []byte(redactTokenQuery(vvPassword.ReplaceAllString(string(body), "${1}[redacted]")))
		lower := strings.ToLower(string(body))
		for f := range secretFields {
			if strings.Contains(lower, `"`+f+`"`) {
				return []byte(fmt.Sprintf("[%d bytes, not shown: may hold a secret]", len(body)))
			}
		}
		return body
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(redactValue(v)); err != nil {
		return []byte("[body not shown]")
	}
	// Escaped, a C1 control stays visible as \u009b rather than becoming
	// the space termtext.Writer would make of it.
	return []byte(redactTokenQuery(string(bytes.TrimRight(termtext.JSON(b.Bytes()), "\n"))))
}

func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if secretFields[strings.ToLower(k)] {
				t[k] = "[redacted]"
				continue
			}
			t[k] = redactValue(x)
		}
	case []any:
		for i, x := range t {
			t[i] = redactValue(x)
		}
	}
	return v
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
