// Package client is the typed Shakenfist API client: authentication with one
// re-login, resources with the server's field names, typed errors for every
// non-2xx answer, and the opt-in transient-capacity retry of package retry.
package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/httpurl"
	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/retry"
)

// Client talks to one Shakenfist API as one namespace. It is safe for
// concurrent use; concurrent calls that meet an expired token share one
// re-login.
type Client struct {
	opts Options
	base string // APIURL without a trailing slash
	// shownBase is base as url.URL.Redacted prints it: the form every
	// error and message uses, so a password in the API URL is never shown.
	shownBase string
	hc        *http.Client
	auth      *authTransport
	debug     *debugLog
	public    *http.Client

	extraMu sync.Mutex
	extra   []string // further secrets to scrub: keys being added

	caps  capabilityCache
	nodes nodeNameCache
}

// New checks the options and builds a client. It sends nothing: the first
// call logs in.
func New(o Options) (*Client, error) {
	base, err := checkAPIURL(o.APIURL)
	if err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.UserAgent == "" {
		o.UserAgent = "shakectl"
	}
	c := &Client{opts: o, base: base, shownBase: redact.URL(base)}
	if o.Debug != nil {
		c.debug = &debugLog{w: o.Debug, mask: c.maskSecrets}
	}
	transport := o.Transport
	if transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 8
		if o.Dial != nil {
			t.DialContext = o.Dial
		}
		if o.Insecure {
			t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure, and the command warns
		}
		transport = t
	}
	logged := &debugTransport{next: transport, log: c.debug, waiting: o.Waiting}
	// The root page (capabilities) is public: it goes without a token.
	c.public = &http.Client{Transport: logged, Timeout: o.Timeout, CheckRedirect: noRedirects}
	c.auth = &authTransport{next: logged, c: c}
	c.hc = &http.Client{
		Transport:     c.auth,
		Timeout:       o.Timeout,
		CheckRedirect: noRedirects,
	}
	return c, nil
}

// APIURLForms names the API URLs a real deployment answers on: gunicorn
// serves the routes at / on port 13000; a 2024 deployment's bundled Apache
// front end proxies /api to it (shakenfist da448b1a,
// deploy/ansible/files/apache-site-primary.conf), and 2026 removed that
// front end for the operator's own load balancer, whose path is the
// operator's choice (PLAN-remove-apache-lb, docs/plans/index.md
// @0107dd7c). "http://host:13000/api" is none of them.
const APIURLForms = "http://HOST:13000 (the API server itself), or the URL your load balancer serves it at (http://HOST/api behind a 2024 deployment's Apache)"

// checkAPIURL accepts an absolute http(s) URL with a host, to which paths
// are joined. Its error never repeats a password that the URL may carry.
func checkAPIURL(raw string) (string, error) {
	u, err := httpurl.Check(strings.TrimSpace(raw), httpurl.Rules{Base: true})
	var ue *httpurl.Error
	switch {
	case errors.As(err, &ue) && ue.Problem == httpurl.Empty:
		// The command checks first, and says where a URL comes from.
		return "", errors.New("no API URL given")
	case ue != nil && ue.Problem == httpurl.NoScheme:
		return "", fmt.Errorf("invalid API URL %q: %s; want %s", ue.URL, ue.Reason(), APIURLForms)
	case ue != nil:
		return "", fmt.Errorf("invalid API URL %q: %s", ue.URL, ue.Reason())
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// noRedirects stops the http.Client from following a redirect: an API call
// redirected to a login page must fail loudly, not parse HTML.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func (c *Client) endpoint(path string) string {
	return c.base + "/" + strings.TrimLeft(path, "/")
}

// shownEndpoint is endpoint without the API URL's password: what every
// error, message and hook the client produces names.
func (c *Client) shownEndpoint(path string) string {
	return c.shownBase + "/" + strings.TrimLeft(path, "/")
}

// Raw is the `shakectl api` call: any method and path, body sent as is (may
// be nil), the same auth, retry and typed errors as the resource methods. On
// a non-2xx answer it returns the *Response and an *APIError.
func (c *Client) Raw(ctx context.Context, method, path string, body []byte) (*Response, error) {
	method = strings.ToUpper(strings.TrimSpace(method))
	if method == "" {
		return nil, errors.New("no HTTP method")
	}
	return c.do(ctx, method, path, body)
}

// do sends one call (one request, or several under the transient-capacity
// retry) and returns the answer: for a 2xx its body (bounded by
// MaxResponseBody), otherwise the *Response and an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body []byte) (*Response, error) {
	call := c.policy(method, path).NewCall()
	defer call.Finish()
	return c.send(ctx, call, method, path, body)
}

// send sends one request of a call through the transient-capacity retry
// (which may send it again) and reads the answer. Several sends may share
// one call: the repeats after a 406 do (doWhenReady).
func (c *Client) send(ctx context.Context, call *retry.Call, method, path string, body []byte) (*Response, error) {
	u := c.endpoint(path)
	// shown is the URL as errors and messages print it: without the
	// password a user may have put in the API URL.
	shown := c.shownEndpoint(path)
	ctx = withCall(ctx, call)

	req, err := retryablehttp.NewRequestWithContext(ctx, method, u, requestBody(body))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, pathOf(shown), redact.URLError(err))
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.opts.UserAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(body) > 0 {
		// GetBody lets the re-login repeat the request and lets the retry
		// check that each attempt replays the same bytes. An empty body
		// has none: its repeat goes without one too (requestBody).
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		call.SetBody(body)
	}

	resp, err := call.Client(c.hc).Do(req)
	if err != nil {
		return nil, c.callError(ctx, method, shown, err, call)
	}
	defer resp.Body.Close()
	out := &Response{StatusCode: resp.StatusCode, Header: resp.Header, RequestID: resp.Header.Get("X-Request-ID")}

	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if resp.ContentLength > MaxResponseBody {
			return nil, &ResponseError{Method: method, URL: shown, StatusCode: resp.StatusCode, RequestID: out.RequestID,
				Problem: tooLarge(MaxResponseBody)}
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody+1))
		if err != nil {
			return nil, c.callError(ctx, method, shown, fmt.Errorf("reading the answer: %w", err), call)
		}
		if len(b) > MaxResponseBody {
			return nil, &ResponseError{Method: method, URL: shown, StatusCode: resp.StatusCode, RequestID: out.RequestID,
				Problem: tooLarge(MaxResponseBody)}
		}
		out.Body = b
		return out, nil
	default:
		// The rest of an oversized error body is neither read nor kept.
		b := ReadErrorBody(resp.Body)
		apiErr := NewAPIError(method, shown, resp.StatusCode, resp.Header, b, c.opts.Now())
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			apiErr.Message = redirectMessage(resp)
		}
		apiErr.Attempts = call.Attempts()
		apiErr.Elapsed = call.Elapsed()
		markRoute(ctx, apiErr, method, path)
		c.scrub(apiErr)
		out.Body = apiErr.Body
		return out, apiErr
	}
}

// requestBody is body as retryablehttp takes it: nil when it is empty. An
// empty body that is not nil has an unknown length to net/http, which sends
// it chunked (Transfer-Encoding: chunked, no Content-Length), and the 2026
// server refuses every chunked body with 411 Length Required (shakenfist
// tests/external_api/test_body_size_limit.py @86b2eedf,
// test_a_chunked_body_is_refused): `artifact upload --resume` asked the
// upload's size that way and failed there. Without a body, net/http sends
// a POST with Content-Length: 0, which both generations take (the 2024
// server: POST /upload in the captures' u1-upload).
func requestBody(body []byte) any {
	if len(body) == 0 {
		return nil
	}
	return body
}

func redirectMessage(resp *http.Response) string {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "redirected without a Location; the API URL may point at a web page or a login proxy"
	}
	return fmt.Sprintf("redirected to %s; the API URL may point at a web page or a login proxy", oneLine(redact.URL(loc)))
}

// policy is the retry policy of one call of method on path: off unless
// Options.Retry is set, and replaying only what retry.Replayable allows.
func (c *Client) policy(method, path string) retry.Policy {
	p := retry.Policy{
		Now:       c.opts.Now,
		ReadLimit: MaxErrorBody,
		Classify:  classify,
		Method:    method,
		Path:      path,
	}
	if r := c.opts.Retry; r != nil {
		p.Enabled = true
		p.Budget = r.Budget
		p.Notify = r.Notify
	}
	if c.debug != nil {
		p.Log = c.debug.line
	}
	return p
}

// markRoute records the route the error answered, whether a 401 came
// after a good login, and on a transient refusal of a call that is not on
// retry.ReplayableRoutes why it is not (and was not) replayed, for its
// hint: the marker alone does not make a replay safe.
func markRoute(ctx context.Context, e *APIError, method, path string) {
	e.Route = path
	e.KeyAccepted = e.StatusCode == http.StatusUnauthorized && refusedAfterLogin(ctx)
	if cr := e.capacity; cr != nil && cr.Transient && !retry.Replayable(method, path) {
		cr.NotReplayable = retry.NotReplayable(method, path)
	}
}

// classify is the retry's view of an answer: retry.ClassifyRefusal, the
// one reader of the 507 body, which the proxy in front of other clients
// uses too, so shakectl and `shakectl proxy` replay exactly the same
// answers.
func classify(status int, header http.Header, body []byte) (string, bool) {
	return retry.ClassifyRefusal(status, header, body)
}

// callError turns what retryablehttp returned (a transport error, a failed
// login, a cancelled wait) into the caller's error.
func (c *Client) callError(ctx context.Context, method, u string, err error, call *retry.Call) error {
	if lerr := loginFailed(ctx); lerr != nil {
		err = lerr
	}
	var (
		apiErr   *APIError
		loginErr *TransportError
		respErr  *ResponseError
	)
	switch {
	case errors.As(err, &apiErr):
		// The login failed: that answer is the error.
		c.scrub(apiErr)
		return apiErr
	case errors.As(err, &loginErr):
		// The login (POST /auth) got no answer: the error names that
		// request, not this call's, which was never sent: naming this
		// call would tell the user it may have acted.
		return loginErr
	case errors.As(err, &respErr):
		// The login's answer could not be used.
		return respErr
	}
	return c.noAnswer(ctx, method, u, err, call.Attempts(), call.Elapsed())
}

// noAnswer is the *TransportError of a request that got no answer (an
// API call's, a Kerbside fetch's): the time bound that ran out, if one
// did, and the context's cause kept beside the transport's error, so that
// errors.Is and errors.As see every deadline form.
func (c *Client) noAnswer(ctx context.Context, method, u string, err error, attempts int, elapsed time.Duration) error {
	bound := c.timeoutBound(ctx, err)
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%w)", cause, err)
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		// net/http names the request's URL, password masked as "***";
		// the client names it one way everywhere.
		ue.URL = redact.URL(ue.URL)
	} else {
		err = &url.Error{Op: opName(method), URL: u, Err: err}
	}
	return &TransportError{Method: method, URL: u, Attempts: attempts, Elapsed: elapsed, Bound: bound, Err: err}
}

// timeoutBound says which time bound ended a request that got no answer:
// the caller's context (its cause names it: --timeout, a wait's budget) or
// the client's own per-request timeout; "" when it did not time out (a
// refused connection, Ctrl-C).
func (c *Client) timeoutBound(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return ""
		}
		if cause := context.Cause(ctx); cause != nil && cause != context.DeadlineExceeded {
			return cause.Error()
		}
		return "no answer before the call's deadline"
	}
	if IsTimeout(err) {
		return requestTimeout(c.opts.Timeout).Error()
	}
	return ""
}

// IsTimeout reports whether err is a time bound running out, in any of the
// forms Go gives one: a context deadline, net/http's Client.Timeout, any
// net.Error whose Timeout() is true (a dial, a read deadline). The
// command's exit code (cmdutil.IsDeadline: 124) and the bound a
// TransportError names both read it here.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// requestTimeout is the client's per-request timeout running out.
type requestTimeout time.Duration

func (d requestTimeout) Error() string {
	return fmt.Sprintf("no answer within %s ({Timeout}, the bound on each request)", time.Duration(d))
}

func opName(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}

// TransportError is a call that got no usable HTTP answer: connection
// refused, reset, a per-request timeout, a cancelled context. It wraps the
// original error (a *url.Error naming the URL), so errors.Is/As still see
// context.DeadlineExceeded and net.Error timeouts.
type TransportError struct {
	Method   string
	URL      string
	Attempts int
	Elapsed  time.Duration
	// Bound, when the request timed out, says which bound ran out: the
	// client's own ("no answer within 30s ({Timeout}, …)", a placeholder
	// Render writes) or the caller's deadline's cause; "" otherwise.
	Bound string
	Err   error
}

// Error reads like an APIError ("POST …/instances: …") so that every
// failed call starts the same way, with the full URL: when no answer came,
// which server was asked is the first question.
func (e *TransportError) Error() string { return e.Render(nil) }

// Render is the message with the option its Bound names ({Timeout}, the
// per-request bound) written by name, as internal/fielderr's Render.
func (e *TransportError) Render(name func(field string) string) string {
	cause := e.Err
	// The cause may be a url.Error of its own (the login request's): the
	// innermost one says what went wrong without repeating URLs.
	var ue *url.Error
	for errors.As(cause, &ue) {
		cause = ue.Err
	}
	// A request that got no answer: the connection broke, or (Bound) a
	// time bound ran out after it was sent.
	detail, effect := fmt.Sprint(cause), "; the %s may have taken effect on the server before the connection broke"
	if e.Bound != "" {
		// Bound is the client's own words or the caller's deadline's
		// cause, never a server's text.
		detail, effect = fielderr.Placeholders(e.Bound, name), "; the %s may still have taken effect on the server"
	}
	msg := fmt.Sprintf("%s %s: %s", e.Method, e.URL, detail)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (on attempt %d)", e.Attempts)
	}
	if e.MayHaveActed() {
		// It may have reached the server, which may have acted on it:
		// the user must know before running it again.
		msg += fmt.Sprintf(effect, e.Method)
	}
	return msg
}

// MayHaveActed says whether the request that got no answer may have
// changed something on the server: a method that acts (not GET, HEAD or
// OPTIONS; a login changes nothing worth saying) whose request may have
// been sent, because the connection broke or a bound ran out after it was
// made. A connection never made (refused, a name not found, a certificate
// refused) sent nothing.
func (e *TransportError) MayHaveActed() bool {
	switch {
	case e.Method == http.MethodGet, e.Method == http.MethodHead, e.Method == http.MethodOptions,
		strings.HasSuffix(pathOf(e.URL), "/auth"):
		return false
	}
	return e.Bound != "" || !neverSent(e.Err)
}

// neverSent says the request failed before it could be written: the
// connection was never made.
func neverSent(err error) bool {
	var (
		op   *net.OpError
		dns  *net.DNSError
		cert *tls.CertificateVerificationError
		ua   x509.UnknownAuthorityError
		host x509.HostnameError
		inv  x509.CertificateInvalidError
	)
	return (errors.As(err, &op) && op.Op == "dial") || errors.As(err, &dns) ||
		errors.As(err, &cert) || errors.As(err, &ua) || errors.As(err, &host) || errors.As(err, &inv)
}

func (e *TransportError) Unwrap() error { return e.Err }

// ResponseError is a 2xx answer the client cannot use: an HTML page, an
// empty or truncated body, JSON of the wrong shape.
type ResponseError struct {
	Method     string
	URL        string
	StatusCode int
	RequestID  string
	// Problem says what was wrong, e.g. "an HTML page, not JSON".
	Problem string
	// Advice, when set, is the hint for this answer: what the server's
	// answer means for the object asked about (a console route's null:
	// an instance never placed). Otherwise Hint reads Problem.
	Advice string
	Err    error
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s %s: the server answered %d with %s", e.Method, pathOf(e.URL), e.StatusCode, e.Problem)
}

func (e *ResponseError) Unwrap() error { return e.Err }

// scrub removes the key and any bearer token from an error the server sent
// back, in case a broken or hostile server echoes them, by redact.Secrets'
// rule: a short key ("demo") only where it stands as a word, so a name
// holding it ("sim-demo-net") is printed whole.
func (c *Client) scrub(e *APIError) {
	secrets := c.secretStrings()
	e.Message = redact.Secrets(e.Message, secrets...)
	if b := redact.Secrets(string(e.Body), secrets...); b != string(e.Body) {
		e.Body = []byte(b)
	}
}

// secretStrings are the strings scrubbed: the key, the tokens, the keys
// being added. Short ones too: redact.Secrets masks them as words, where
// a substring rule had to skip keys under four bytes.
func (c *Client) secretStrings() []string {
	c.extraMu.Lock()
	extra := append([]string(nil), c.extra...)
	c.extraMu.Unlock()
	return append(append([]string{c.opts.Key}, c.auth.tokens()...), extra...)
}

// tooLarge is the Problem of an answer over one of shakectl's own read
// limits: said as the limit it is, never as the "truncated JSON" that
// reading only the first part of it would look like.
func tooLarge(limit int) string {
	size := fmt.Sprintf("%d KiB", limit>>10)
	if limit >= 1<<20 {
		size = fmt.Sprintf("%d MiB", limit>>20)
	}
	return "an answer larger than " + size + ", the most shakectl reads of it (the rest was not read)"
}
