package instance_test

import (
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// Issue 34, item 10: an error names the request that failed. A login
// (POST /auth) that hangs, or answers what cannot be read, was reported
// as "GET …/instances", a request never sent. A timeout says which bound
// ran out, and for a POST that it may still have taken effect, as does a
// connection that broke after a POST was sent (not one never made);
// shakectl's own size limit is said as such, not as "truncated JSON",
// for a 2xx answer and an error answer alike. Exact stderr,
// against canned answers (the 507 body is the real server's,
// client/testdata/sf2026/refusals.json, SOURCES.md).
func TestErrorsNameTheRequestThatFailed(t *testing.T) {
	const hang = time.Hour // longer than any bound below
	created := clitest.CreatedInstance("web1", "created")
	refusal := `{"error": "No nodes remaining at scheduling stage sufficient_idle_cpu", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`
	// loginAnswers is a registry whose login (POST /auth) answers r.
	loginAnswers := func(r httpstub.Responder) func(*testing.T) *clitest.Stubs {
		return func(t *testing.T) *clitest.Stubs {
			s := &clitest.Stubs{Registry: httpstub.New(t)}
			s.Register(httpstub.REST("POST", "/auth"), r)
			return s
		}
	}
	// createAnswers is a logged-in registry whose POST /instances answers r.
	createAnswers := func(r httpstub.Responder) func(*testing.T) *clitest.Stubs {
		return func(t *testing.T) *clitest.Stubs {
			s := clitest.NewStubs(t)
			s.Register(clitest.Route("POST", "/instances"), r)
			return s
		}
	}
	for _, tt := range []struct {
		name   string
		stub   func(t *testing.T) *clitest.Stubs
		args   []string
		code   int
		stderr string
	}{
		{"a hung login, per-request timeout",
			loginAnswers(httpstub.Delay(hang, httpstub.String(200, `{}`))),
			[]string{"instance", "list", "--request-timeout", "5s"}, 124,
			"error: POST http://sf.test/auth: no answer within 5s (--request-timeout, the bound on each request)\nhint: give a longer --request-timeout, or check that the server is responding\n"},
		{"a hung login, --timeout",
			loginAnswers(httpstub.Delay(hang, httpstub.String(200, `{}`))),
			[]string{"instance", "list", "--timeout", "3s"}, 124,
			"error: POST http://sf.test/auth: no answer within 3s (--timeout)\nhint: give a longer --timeout, or check that the server is responding\n"},
		{"a malformed login answer",
			loginAnswers(httpstub.String(200, `{"access_tok`)),
			[]string{"instance", "list"}, 1,
			"error: POST /auth: the server answered 200 with truncated JSON (the answer ends early)\nhint: the answer was cut short: a proxy or the server may have failed mid-answer; try again\n"},
		{"a login answer over shakectl's limit",
			loginAnswers(httpstub.String(200, `{"access_token": "`+strings.Repeat("x", 70<<10)+`"}`)),
			[]string{"instance", "list"}, 1,
			"error: POST /auth: the server answered 200 with an answer larger than 64 KiB, the most shakectl reads of it (the rest was not read)\nhint: the server's answer is not what the Shakenfist API sends; check the API URL and the server's version\n"},
		{"a hung create, --timeout",
			createAnswers(httpstub.Delay(hang, httpstub.String(200, created))),
			[]string{"instance", "create", "web1", "1", "512", "-d", "8", "--timeout", "3s"}, 124,
			"error: POST http://sf.test/instances: no answer within 3s (--timeout); the POST may still have taken effect on the server\nhint: give a longer --timeout, or check that the server is responding\n"},
		{"a hung create, per-request timeout",
			createAnswers(httpstub.Delay(hang, httpstub.String(200, created))),
			[]string{"instance", "create", "web1", "1", "512", "-d", "8", "--request-timeout", "5s"}, 124,
			"error: POST http://sf.test/instances: no answer within 5s (--request-timeout, the bound on each request); the POST may still have taken effect on the server\nhint: give a longer --request-timeout, or check that the server is responding\n"},
		{"an error answer over shakectl's limit",
			createAnswers(httpstub.String(500, `{"error": "`+strings.Repeat("x", 70<<10)+`", "status": 500}`)),
			[]string{"instance", "create", "web1", "1", "512", "-d", "8"}, 1,
			"error: POST /instances: 500 Internal Server Error: an answer larger than 64 KiB, the most shakectl reads of it (the rest was not read), beginning {\"error\": \"" + strings.Repeat("x", 189) + "…\nhint: the server failed; try again later\n"},
		{"a refused connection",
			createAnswers(httpstub.TransportError(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})),
			[]string{"instance", "create", "web1", "1", "512", "-d", "8"}, 1,
			"error: POST http://sf.test/instances: dial tcp: connection refused\nhint: check the API URL (--api-url, SHAKENFIST_API_URL) and that the server is running\n"},
		{"a reset create",
			createAnswers(httpstub.TransportError(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET})),
			[]string{"instance", "create", "web1", "1", "512", "-d", "8"}, 1,
			"error: POST http://sf.test/instances: read tcp: connection reset by peer; the POST may have taken effect on the server before the connection broke\nhint: the connection broke after the POST was sent: check whether it took effect before running it again\n"},
		{"an unreadable Retry-After",
			func(t *testing.T) *clitest.Stubs {
				s := clitest.NewStubs(t)
				s.Register(clitest.Route("POST", "/instances"), httpstub.Answer(507, http.Header{"Retry-After": {"soon"}}, refusal)).Times(3)
				return s
			},
			[]string{"instance", "create", "web1", "1", "512", "-d", "8", "--retry-transient-capacity", "--timeout", "20s"}, 75,
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 20s left; Retry-After \"soon\" unreadable, the 15s default used)\n" +
				"capacity refused at stage sufficient_idle_cpu (transient); retrying in 5s (attempt 3/5, 5s left; Retry-After \"soon\" unreadable, the 15s default used)\n" +
				"error: POST /instances: 507 Insufficient Storage: No nodes remaining at scheduling stage sufficient_idle_cpu (gave up after 3 attempts in 20s)\n" +
				"hint: the cluster is still short of capacity at stage sufficient_idle_cpu; try again later or give a longer --timeout\n"},
		{"an empty Retry-After",
			func(t *testing.T) *clitest.Stubs {
				s := clitest.NewStubs(t)
				s.Register(clitest.Route("POST", "/instances"), httpstub.Answer(507, http.Header{"Retry-After": {""}}, refusal)).Times(2)
				s.Register(clitest.Route("POST", "/instances"), httpstub.String(200, created))
				return s
			},
			[]string{"instance", "create", "web1", "1", "512", "-d", "8", "--retry-transient-capacity", "--timeout", "40s", "--async", "continue"}, 0,
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 40s left; Retry-After \"\" empty, the 15s default used)\n" +
				"capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 3/5, 25s left; Retry-After \"\" empty, the 15s default used)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := tt.stub(t)
				res := clitest.StubsInMemory(s).Run(t, tt.args...)
				if res.Code != tt.code || res.Stderr != tt.stderr {
					t.Errorf("shakectl %s: exit %d, want %d\nstderr %q\nwant   %q", strings.Join(tt.args, " "), res.Code, tt.code, res.Stderr, tt.stderr)
				}
				// A login the command stopped waiting for runs on to its
				// own timeout (others may share it); on the bubble's
				// virtual clock, let it end.
				time.Sleep(hang)
			})
		})
	}
}
