package client_test

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// TestSecretsNeverLeak drives every path that writes a debug line or builds
// an error — login, re-login, a refused re-login, retries, server errors
// that echo the credentials back, a transport error — and greps all of it
// for the key and the bearer tokens.
func TestSecretsNeverLeak(t *testing.T) {
	s := newSF(t)
	echo := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-ID", "rid-1")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error": "you sent %s with key %s", "status": %d}`, r.Header.Get("Authorization"), testKey, status)
		}
	}
	s.handle("GET /nodes", reply(200, `[]`, "X-Request-ID", "rid-0"))
	s.handle("GET /instances/web1", echo(500))
	s.handle("POST /instances", echo(507))
	var debug syncbuf.Buffer
	c := sfClient(t, s, &debug)
	var errs []error
	call := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	_, err := c.ListNodes(t.Context())
	call(err)
	s.expire()
	_, err = c.GetInstance(t.Context(), "web1")
	call(err)
	resp, err := c.Raw(t.Context(), "GET", "/instances/web1", nil)
	call(err)
	s.refuse = func(int) bool { return true }
	s.expire()
	_, err = c.CreateInstance(t.Context(), createReq)
	call(err)
	s.Close()
	_, err = c.ListNodes(t.Context())
	call(err)

	if len(errs) != 4 {
		t.Fatalf("got %d errors, want 4: %v", len(errs), errs)
	}
	out := debug.String()
	var texts []string
	texts = append(texts, out)
	for _, e := range errs {
		texts = append(texts, e.Error(), fmt.Sprintf("%+v", e))
		var apiErr *client.APIError
		if errors.As(e, &apiErr) {
			texts = append(texts, string(apiErr.Body), apiErr.Message)
		}
	}
	if resp != nil {
		texts = append(texts, string(resp.Body))
	}
	secret := regexp.MustCompile(regexp.QuoteMeta(testKey) + "|" + regexp.QuoteMeta(testToken) + `\d`)
	for _, text := range texts {
		if m := secret.FindString(text); m != "" {
			t.Errorf("secret %q leaked in:\n%s", m, text)
		}
	}
	// --debug shows the header (issue 14), its value never.
	if !strings.Contains(out, "Authorization: Bearer [redacted]\n") {
		t.Errorf("debug output lacks the redacted auth header:\n%s", out)
	}

	// The debug lines say what happened: one line per request and per
	// answer with method, path, status, duration and request id.
	for _, want := range []string{
		"/auth\n",
		"/nodes\n",
		"debug: < GET /nodes 200 OK in ",
		" request-id=rid-0\n",
		"debug: < GET /instances/web1 401 Unauthorized in ",
		"debug: < GET /instances/web1 500 Internal Server Error in ",
		"debug: < POST /auth 401 Unauthorized in ",
		"debug: < GET /nodes failed after ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("debug output lacks %q:\n%s", want, out)
		}
	}
}

// TestDebugShowsEveryAttempt checks that with the retry on each attempt and
// each decision has its debug line.
func TestDebugShowsEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newCreateStubs(t, times(refusal507("sufficient_idle_cpu", true, "15"), 3)...)
		var debug syncbuf.Buffer
		c := newClient(t, f, 20*time.Second, nil, &debug)
		_, _ = c.CreateInstance(t.Context(), createReq)
		out := debug.String()
		for _, want := range []string{
			"/instances (attempt 1/5)\n",
			"debug: < POST /instances 507 Insufficient Storage in 0s request-id=-\n",
			"debug: retry: capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 20s left)\n",
			"/instances (attempt 2/5)\n",
			"debug: retry: capacity refused at stage sufficient_idle_cpu (transient); retrying in 5s (attempt 3/5, 5s left)\n",
			"/instances (attempt 3/5)\n",
			"debug: retry: giving up: budget of 20s spent after 3 attempt(s)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("debug output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, testKey) || strings.Contains(out, testToken) {
			t.Errorf("secret in debug output:\n%s", out)
		}
	})
}
