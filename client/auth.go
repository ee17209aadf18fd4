package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/shakenfist/shakectl/internal/redact"
)

// authTransport puts the bearer token on every request, logs in when it has
// none, and on a 401 logs in again once and repeats the request once. It
// sits below go-retryablehttp, so a 401 in the middle of a capacity retry is
// recovered inside one attempt and does not count as a capacity attempt.
type authTransport struct {
	next http.RoundTripper
	c    *Client

	mu    sync.Mutex
	token string
	gen   uint64 // bumped by each successful login
	seen  []string
	group singleflight.Group
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	token, gen, err := t.current(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		if lf, ok := req.Context().Value(loginFailureKey{}).(*loginFailure); ok {
			lf.set(err)
		}
		return nil, err
	}
	resp, err := t.send(req, req.Body, token)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		// Without a way to replay the body the request cannot be repeated.
		return resp, nil
	}
	fresh, err := t.relogin(req.Context(), gen)
	if err != nil {
		// The re-login failed: the caller sees the original 401.
		t.c.debug.linef("auth: re-login failed: %v", t.c.maskSecrets(err.Error()))
		return resp, nil
	}
	var body io.ReadCloser
	if req.GetBody != nil {
		if body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	drain(resp)
	resp, err = t.send(req, body, fresh)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		// The login just succeeded: what is refused is the request.
		if lf, ok := req.Context().Value(loginFailureKey{}).(*loginFailure); ok {
			lf.setRefusedAfterLogin()
		}
	}
	return resp, err
}

func (t *authTransport) send(req *http.Request, body io.ReadCloser, token string) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Body = body
	r.Header.Set("Authorization", "Bearer "+token)
	return t.next.RoundTrip(r)
}

// current returns the token, logging in first when there is none yet.
func (t *authTransport) current(ctx context.Context) (string, uint64, error) {
	t.mu.Lock()
	token, gen := t.token, t.gen
	t.mu.Unlock()
	if token != "" {
		return token, gen, nil
	}
	token, err := t.relogin(ctx, gen)
	if err != nil {
		return "", 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return token, t.gen, nil
}

// relogin replaces the token that failed (generation gen). Concurrent
// callers share one login; a caller whose token was already replaced by
// someone else's login just takes the new one.
func (t *authTransport) relogin(ctx context.Context, gen uint64) (string, error) {
	ch := t.group.DoChan("login", func() (any, error) {
		t.mu.Lock()
		if t.gen != gen && t.token != "" {
			token := t.token
			t.mu.Unlock()
			return token, nil
		}
		t.mu.Unlock()
		// One caller's cancellation must not fail the login the others wait
		// for; the login has its own timeout.
		lctx, cancel := context.WithTimeoutCause(context.WithoutCancel(ctx), t.c.opts.Timeout, requestTimeout(t.c.opts.Timeout))
		defer cancel()
		token, err := t.login(lctx)
		if err != nil {
			return "", err
		}
		t.mu.Lock()
		t.token = token
		t.gen++
		t.seen = append(t.seen, token)
		t.mu.Unlock()
		return token, nil
	})
	// The shared login outlives any one caller, but a caller does not wait
	// for it past its own context: Ctrl-C and --timeout act at once.
	select {
	case res := <-ch:
		if res.Err != nil {
			return "", res.Err
		}
		return res.Val.(string), nil
	case <-ctx.Done():
		// The login is what was waited for: the error names it, and which
		// bound ended the wait.
		cause := context.Cause(ctx)
		bound := t.c.timeoutBound(ctx, cause)
		if cause == context.DeadlineExceeded {
			// A deadline with no cause of its own is the per-request
			// timeout (http.Client.Timeout) of the request that needed
			// the login.
			bound = requestTimeout(t.c.opts.Timeout).Error()
		}
		return "", &TransportError{Method: http.MethodPost, URL: t.c.shownEndpoint("/auth"), Attempts: 1, Bound: bound, Err: cause}
	}
}

// login sends POST /auth. Its failure is an *APIError (a refused login) or
// a transport error; neither names the key.
func (t *authTransport) login(ctx context.Context) (string, error) {
	c := t.c
	body, err := json.Marshal(map[string]string{"namespace": c.opts.Namespace, "key": c.opts.Key})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint("/auth"), bytes.NewReader(body))
	// u names the login in errors, without the API URL's password.
	u := c.shownEndpoint("/auth")
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.opts.UserAgent)
	hc := &http.Client{Transport: t.next, Timeout: c.opts.Timeout, CheckRedirect: noRedirects}
	resp, err := hc.Do(req)
	if err != nil {
		return "", &TransportError{Method: http.MethodPost, URL: u, Attempts: 1, Bound: c.timeoutBound(ctx, err), Err: redact.URLError(err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b := ReadErrorBody(resp.Body)
		apiErr := NewAPIError(http.MethodPost, u, resp.StatusCode, resp.Header, b, c.opts.Now())
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			apiErr.Message = redirectMessage(resp)
		}
		c.scrub(apiErr)
		return "", apiErr
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody+1))
	if err != nil {
		return "", &TransportError{Method: http.MethodPost, URL: u, Attempts: 1, Bound: c.timeoutBound(ctx, err), Err: fmt.Errorf("reading the answer: %w", err)}
	}
	if len(b) > MaxErrorBody {
		return "", &ResponseError{Method: http.MethodPost, URL: u, StatusCode: resp.StatusCode,
			RequestID: resp.Header.Get("X-Request-ID"), Problem: tooLarge(MaxErrorBody)}
	}
	var answer struct {
		AccessToken string `json:"access_token"`
	}
	if problem := jsonProblem(b); problem != "" {
		return "", &ResponseError{Method: http.MethodPost, URL: u, StatusCode: resp.StatusCode,
			RequestID: resp.Header.Get("X-Request-ID"), Problem: problem}
	}
	if err := json.Unmarshal(b, &answer); err != nil || answer.AccessToken == "" {
		return "", &ResponseError{Method: http.MethodPost, URL: u, StatusCode: resp.StatusCode,
			RequestID: resp.Header.Get("X-Request-ID"), Problem: "no access_token in its JSON"}
	}
	return answer.AccessToken, nil
}

// loginFailure records, for one call, the error of the login its request
// needed: net/http may hand the call back only the text of it (a
// Client.Timeout that fires while the login hangs makes its own error
// from the login's string), and the call's error must name the login
// (POST /auth), the request that failed, not its own, never sent.
type loginFailure struct {
	mu  sync.Mutex
	err error
	// refused says a request repeated with a fresh token (its login
	// succeeded) was refused with 401 again.
	refused bool
}

func (f *loginFailure) setRefusedAfterLogin() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused = true
}

// refusedAfterLogin says the call's 401 came to a request repeated right
// after a login that succeeded.
func refusedAfterLogin(ctx context.Context) bool {
	f, ok := ctx.Value(loginFailureKey{}).(*loginFailure)
	if !ok {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

type loginFailureKey struct{}

func (f *loginFailure) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// loginFailed is the error of the login a call's request needed, or nil.
func loginFailed(ctx context.Context) error {
	f, ok := ctx.Value(loginFailureKey{}).(*loginFailure)
	if !ok {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// tokens lists every token this client was given, to scrub them from errors.
func (t *authTransport) tokens() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.seen...)
}

// addSecret makes the client scrub a secret it was given to send (a key
// being added or rotated) from every error and debug line, as it does the
// login key.
func (c *Client) addSecret(s string) {
	if s == "" {
		return
	}
	c.extraMu.Lock()
	defer c.extraMu.Unlock()
	c.extra = append(c.extra, s)
}

// maskSecrets is s without the key or any token the client holds.
func (c *Client) maskSecrets(s string) string {
	return redact.Secrets(s, c.secretStrings()...)
}

// drain reads a little of a body we are done with, so the connection can be
// reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
}
