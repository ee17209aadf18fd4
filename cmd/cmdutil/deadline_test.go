package cmdutil_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Issue 40: every form Go gives a deadline that ran out is exit 124, and
// nothing else is: the command's --timeout, a context deadline, net/http's
// Client.Timeout, a net.Error timeout, a stalled transfer, each however
// wrapped; a cancellation, a refused connection and an interruption are
// not.
func TestEveryDeadlineFormIsExit124(t *testing.T) {
	var clientTimeout, ctxDeadline error
	synctest.Test(t, func(t *testing.T) {
		// A server that never answers, met by net/http's own bounds.
		hang := roundTripper(func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done()
			return nil, r.Context().Err()
		})
		req, _ := http.NewRequest(http.MethodGet, "http://kerbside.test/sf-console.vv", nil)
		_, clientTimeout = (&http.Client{Transport: hang, Timeout: time.Second}).Do(req)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, ctxDeadline = (&http.Client{Transport: hang}).Do(req.WithContext(ctx))
	})
	for _, c := range []struct {
		name     string
		err      error
		deadline bool
	}{
		{"--timeout", &cmdutil.TimeoutError{Timeout: time.Second}, true},
		{"a wait's budget", &cmdutil.WaitTimeoutError{What: "instance web1 did not reach state created"}, true},
		{"net/http Client.Timeout", clientTimeout, true},
		{"a context deadline, through net/http", ctxDeadline, true},
		{"context.DeadlineExceeded", fmt.Errorf("reading: %w", context.DeadlineExceeded), true},
		{"a net.Error timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{"a transport error around one", &client.TransportError{Method: "GET", URL: "http://x", Err: clientTimeout}, true},
		{"a stalled transfer", fmt.Errorf("%w (3s): %w", client.ErrStalled, context.Canceled), true},
		{"a cancellation", context.Canceled, false},
		{"a refused connection", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, false},
		{"Ctrl-C while waiting", fmt.Errorf("%w (%w)", cmdutil.ErrInterrupted, context.Canceled), false},
	} {
		if c.err == nil {
			t.Fatalf("%s: no error to try", c.name)
		}
		code := cmdutil.ExitCode(c.err)
		if got := cmdutil.IsDeadline(c.err); got != c.deadline || (code == cmdutil.ExitTimeout) != c.deadline {
			t.Errorf("%s (%v): IsDeadline %v, exit %d; want a deadline: %v", c.name, c.err, got, code, c.deadline)
		}
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
