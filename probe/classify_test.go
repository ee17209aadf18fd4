package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/probe/transport"
)

func TestClassify(t *testing.T) {
	envoy := http.Header{"Server": {"envoy"}}
	overloaded := http.Header{"X-Envoy-Overloaded": {"true"}}
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		err    error
		ctmo   bool
		// atOnce: the answer came 50ms after the request, with a 5s
		// budget; else after the budget.
		atOnce bool
		want   report.Outcome
	}{
		{name: "200", status: 200, body: "hello", want: report.Served},
		{name: "204 empty", status: 204, want: report.Served},
		{name: "302 redirect is nobody's actor answering", status: 302, want: report.Other},
		{name: "301", status: 301, body: "moved", want: report.Other},
		{name: "shed quoted", status: 503, body: `actor "default/actor-0001" unavailable: router at capacity`, want: report.Shed},
		{name: "shed unquoted", status: 503, body: `actor default/actor-0001 unavailable: router at capacity`, want: report.Shed},
		{name: "shed with newline", status: 503, body: "actor \"default/a\" unavailable: router at capacity\n", want: report.Shed},
		{name: "shed quoted id with escaped quote", status: 503, body: `actor "default/we\"ird" unavailable: router at capacity`, want: report.Shed},
		{name: "budget exhausted unquoted", status: 503, body: `actor default/actor-0002 unavailable: no free workers available`, want: report.BudgetExhausted},
		{name: "budget exhausted quoted", status: 503, body: `actor "default/actor-0002" unavailable: no free workers available`, want: report.BudgetExhausted},
		{name: "control plane unavailable after the budget", status: 503, body: `actor default/actor-0003 unavailable`, want: report.BudgetExhausted},
		{name: "other unavailable reason after the budget", status: 503, body: `actor default/actor-0003 unavailable: something new`, want: report.BudgetExhausted},
		{name: "shed text on a 500 is not shed", status: 500, body: `actor "default/a" unavailable: router at capacity`, want: report.ResumeError},
		{name: "not found", status: 404, body: `actor default/actor-9999 not found`, want: report.NotFound},
		{name: "404 any body", status: 404, body: `nope`, want: report.NotFound},
		{name: "deadline at once", status: 504, body: `actor default/actor-0004 request timed out`, atOnce: true, want: report.DeadlineExceeded},
		// The router's budget cutting its first ResumeActor call
		// (6210ad86 resumer.go 183-223) and agentgateway's spent budget
		// write the same 504: after the budget it is the budget's end.
		{name: "timed out after the budget", status: 504, body: `actor default/actor-0004 request timed out`, want: report.BudgetExhausted},
		{name: "504 other actor text", status: 504, body: `actor default/actor-0004 gave up`, want: report.DeadlineExceeded},
		{name: "envoy upstream timeout", status: 504, body: `upstream request timeout`, want: report.ProxyError},
		{name: "401", status: 401, body: `actor default/a authentication required`, want: report.Unauthenticated},
		{name: "403", status: 403, body: `actor default/a access denied`, want: report.PermissionDenied},
		{name: "resume error", status: 500, body: `error resuming actor default/actor-0005`, want: report.ResumeError},
		{name: "routing failed", status: 500, body: `actor default/actor-0005 routing failed`, want: report.RoutingFailed},
		// Exact bodies of the real router, captured from
		// agent-substrate/substrate PR #221 at 4a8f978b (written by
		// cmd/atenet/internal/router/errors.go): the id quoted, without the
		// atespace.
		{name: "real shed", status: 503, body: `actor "fp-x3" unavailable: router at capacity`, want: report.Shed},
		{name: "real no free workers after the budget", status: 503, body: `actor "fp-c" unavailable: no free workers available`, want: report.BudgetExhausted},
		{name: "real no free workers at once (main fails fast with it)", status: 503, body: `actor "fp-c" unavailable: no free workers available`, atOnce: true, want: report.Unavailable},
		{name: "real unavailable at once (PR #221 does not park it)", status: 503, body: `actor "unavail-i" unavailable`, atOnce: true, want: report.Unavailable},
		{name: "real not found", status: 404, body: `actor "nf-d" not found`, want: report.NotFound},
		{name: "real invalid host", status: 404, body: `invalid host "foo.example.com": invalid actor_id: must end with actors.resources.substrate.ate.dev, got "foo.example.com"`, want: report.NotFound},
		{name: "real unauthenticated", status: 401, body: `actor "unauth-e" authentication required`, want: report.Unauthenticated},
		{name: "real denied", status: 403, body: `actor "deny-f" access denied`, want: report.PermissionDenied},
		{name: "real deadline", status: 504, body: `actor "dl-g" request timed out`, atOnce: true, want: report.DeadlineExceeded},
		// agentgateway's own texts (crates/agentgateway/src/http/substrate/
		// ingress.rs at 5f96588b7, lines 44-75): the actor's name quoted,
		// without the atespace.
		{name: "agentgateway lot full", status: 503, body: `actor "actor-0001" request parking capacity exhausted`, atOnce: true, want: report.Shed},
		{name: "agentgateway budget spent", status: 504, body: `actor "actor-0001" request timed out`, want: report.BudgetExhausted},
		{name: "agentgateway rate limited", status: 429, body: `actor "actor-0001" rate limited`, atOnce: true, want: report.RateLimited},
		{name: "agentgateway parking off, FailedPrecondition", status: 503, body: `actor "actor-0001" unavailable: no free workers available`, atOnce: true, want: report.Unavailable},
		{name: "header addressing refused", status: 404, body: `invalid "ate-target-actor": expected <atespace>/<actor>`, want: report.NotFound},
		// A gRPC client's refusal: HTTP 200 whose grpc-status says what
		// happened (agentgateway proxy/mod.rs 478-544); never served.
		{name: "grpc lot full", status: 200, header: grpc("14", `actor "a" request parking capacity exhausted`), atOnce: true, want: report.Shed},
		{name: "grpc budget spent", status: 200, header: grpc("14", `actor "a" request timed out`), want: report.BudgetExhausted},
		{name: "grpc rate limited", status: 200, header: grpc("14", `actor "a" rate limited`), atOnce: true, want: report.RateLimited},
		{name: "grpc unavailable, percent-encoded", status: 200, header: grpc("14", `actor "a" unavailable: no%20free workers%25`), want: report.BudgetExhausted},
		{name: "grpc not found", status: 200, header: grpc("12", `actor "a" not found`), want: report.NotFound},
		{name: "grpc denied", status: 200, header: grpc("7", `actor "a" access denied`), want: report.PermissionDenied},
		{name: "grpc unauthenticated", status: 200, header: grpc("16", ""), want: report.Unauthenticated},
		{name: "grpc unknown", status: 200, header: grpc("2", `error resuming actor "a"`), want: report.ResumeError},
		{name: "grpc unavailable without an actor", status: 200, header: grpc("14", "no healthy upstream"), want: report.ProxyError},
		{name: "grpc OK is served", status: 200, header: grpc("0", ""), want: report.Served},
		{name: "real resume error", status: 500, body: `error resuming actor "int-h"`, want: report.ResumeError},
		{name: "real rate limited", status: 429, body: `actor "exh-p" rate limited`, want: report.RateLimited},
		{name: "rate limited with atespace", status: 429, body: `actor "default/exh-p" rate limited`, want: report.RateLimited},
		{name: "real routing failed", status: 500, body: `actor "badip-k" routing failed`, want: report.RoutingFailed},
		{name: "envoy ext_proc stream failure: empty 500", status: 500, header: envoy, body: "", want: report.ExtProcError},
		{name: "envoy ext_proc message timeout: empty 504", status: 504, header: envoy, body: "", want: report.ExtProcError},
		{name: "empty 503 is not ext_proc", status: 503, body: "", want: report.Other},
		{name: "500 without actor body", status: 500, body: `internal server error`, want: report.ProxyError},
		{name: "overflow header", status: 503, header: overloaded, body: "", want: report.EnvoyOverflow},
		{name: "overflow body", status: 503, body: `upstream connect error or disconnect/reset before headers. reset reason: overflow`, want: report.EnvoyOverflow},
		{name: "overflow header beats actor body", status: 503, header: overloaded, body: `actor default/a unavailable: router at capacity`, want: report.EnvoyOverflow},
		{name: "no healthy upstream", status: 503, body: `no healthy upstream`, want: report.ProxyError},
		{name: "upstream connect error", status: 503, body: `upstream connect error or disconnect/reset before headers. reset reason: connection failure`, want: report.ProxyError},
		{name: "503 from envoy, odd body", status: 503, header: envoy, body: `¯\_(ツ)_/¯`, want: report.ProxyError},
		{name: "503 unknown", status: 503, body: `maintenance`, want: report.Other},
		{name: "503 actor body without unavailable", status: 503, body: `actor default/a exploded`, want: report.Other},
		{name: "502", status: 502, body: `bad gateway`, want: report.ProxyError},
		{name: "429", status: 429, body: `slow down`, want: report.Other},
		{name: "400", status: 400, want: report.Other},
		{name: "1xx", status: 101, want: report.Other},
		{name: "refused", err: &netErr{syscall.ECONNREFUSED}, want: report.TransportError},
		{name: "eof", err: io.ErrUnexpectedEOF, want: report.TransportError},
		{name: "canceled by interrupt", err: context.Canceled, want: report.TransportError},
		{name: "client timeout", err: context.DeadlineExceeded, ctmo: true, want: report.ClientTimeout},
		{name: "actor prefix only", status: 503, body: `actor `, want: report.Other},
		{name: "actor unterminated quote", status: 503, body: `actor "default/a unavailable: router at capacity`, want: report.Other},
		{name: "actor empty quotes", status: 503, body: `actor "" unavailable: router at capacity`, want: report.Other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waited := 5 * time.Second
			if tt.atOnce {
				waited = 50 * time.Millisecond
			}
			got := Classify(Answer{Status: tt.status, Header: tt.header, Body: []byte(tt.body), Err: tt.err, ClientTimeout: tt.ctmo}, waited, 5*time.Second)
			if got != tt.want {
				t.Errorf("Classify(%d %q, err=%v) = %s, want %s", tt.status, tt.body, tt.err, got, tt.want)
			}
		})
	}
}

// grpc is a gRPC answer's status headers.
func grpc(code, msg string) http.Header {
	return http.Header{"Grpc-Status": {code}, "Grpc-Message": {msg}, "Content-Type": {"application/grpc"}}
}

type netErr struct{ errno syscall.Errno }

func (e *netErr) Error() string { return "dial tcp 127.0.0.1:1: " + e.errno.Error() }
func (e *netErr) Unwrap() error { return e.errno }

func TestTransportDetail(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&netErr{syscall.ECONNREFUSED}, "connection refused"},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), "connection reset by peer"},
		{io.ErrUnexpectedEOF, "EOF"},
		{fmt.Errorf("Get x: %w", context.Canceled), "canceled"},
		{errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "SSH-2.0-OpenSSH"`), "malformed HTTP response"},
		{fmt.Errorf("x: %w", syscall.EMFILE), "too many open files"},
	}
	for _, tt := range tests {
		if got := transport.Detail(tt.err); got != tt.want {
			t.Errorf("transport.Detail(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// FuzzClassify: whatever the answer, classification never panics and
// always yields exactly one known outcome.
func FuzzClassify(f *testing.F) {
	seeds := []struct {
		status int
		header string
		body   string
	}{
		{503, "", `actor "default/a" unavailable: router at capacity`},
		{503, "", `actor "`},
		{503, "", `actor "\`},
		{503, "", `actor "\"`},
		{503, "", `actor  unavailable`},
		{503, "x-envoy-overloaded", ""},
		{500, "", "error resuming actor "},
		{504, "", "actor \x00\xff request timed out"},
		{0, "", ""},
		{-1, "", "actor"},
		{999, "server", "envoy"},
		{200, "", string(make([]byte, 600))},
		{200, "Grpc-Status", `actor "a" request timed out`},
	}
	for _, s := range seeds {
		f.Add(s.status, s.header, s.body, false, false)
	}
	f.Add(0, "", "", true, false)
	f.Add(0, "", "", true, true)
	f.Fuzz(func(t *testing.T, status int, header, body string, failed, timeout bool) {
		a := Answer{Status: status, Body: []byte(body), ClientTimeout: timeout}
		if header != "" {
			a.Header = http.Header{header: {"1"}}
		}
		if failed {
			a.Err = errors.New(body)
		}
		rd := Read(a)
		o := rd.Judge(time.Second, 5*time.Second)
		if !o.Valid() {
			t.Fatalf("Classify gave %d, not an outcome", o)
		}
		if _, ok := report.ParseOutcome(o.String()); !ok {
			t.Fatalf("outcome %q does not parse back", o)
		}
		if timeout && o != report.ClientTimeout {
			t.Fatalf("a client timeout classified as %s", o)
		}
		if failed && !timeout && o != report.TransportError {
			t.Fatalf("a transport failure classified as %s", o)
		}
		if !failed && !timeout && status >= 200 && status < 300 && a.Header[grpcStatusKey] == nil && o != report.Served {
			t.Fatalf("a %d classified as %s", status, o)
		}
		if o == report.Served && (status < 200 || status >= 300 || rd.GRPC != "") {
			t.Fatalf("a %d classified as served", status)
		}
		if rd.Capacity && o != rd.AtOnce {
			t.Fatalf("a capacity refusal after 1s of a 5s budget classified as %s", o)
		}
		_ = answerDetail(o, a, rd)
	})
}
