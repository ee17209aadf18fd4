package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/probe/transport"
)

// Answer is what one request got back (the transport's own vocabulary).
type Answer = transport.Answer

// Reading is what an answer says before its timing is weighed: its
// outcome, whether it is a capacity refusal (whose outcome depends on when
// it came), the router's own reason, and whether only an atenet router
// sends such an answer.
type Reading struct {
	// Outcome is the answer's outcome; for a capacity refusal it is
	// BudgetExhausted, which Judge turns into Unavailable when the refusal
	// came at once.
	Outcome report.Outcome
	// Capacity marks an answer whose outcome depends on when it came: a
	// 503 `actor <id> unavailable…` other than the lot's `router at
	// capacity`, or a 504 `actor <id> request timed out`. The dataplane
	// gave up resuming the actor, after its park budget (budget_exhausted)
	// or at once (AtOnce).
	Capacity bool
	// AtOnce is a capacity answer's outcome when it came at once:
	// unavailable for the 503, deadline_exceeded for the 504.
	AtOnce report.Outcome
	// Reason is the router's text after the actor id ("unavailable: no
	// free workers available"), or the `invalid host` reason without the
	// Host; "" when the body is not the router's.
	Reason string
	// Router says the body is one only a Substrate dataplane writes:
	// `actor <id> …`, `error resuming actor <id>`, `invalid host "<h>": …`
	// or `invalid "<header>": expected …`.
	Router bool
	// GRPC is set for a gRPC answer (HTTP 200 with a grpc-status other
	// than OK): "grpc-status N: <grpc-message>", the answer's detail.
	GRPC string
}

// Read reads one answer. Rules, first match wins:
//
//   - no answer: client_timeout when the probe's --timeout fired, else
//     transport_error (this includes requests cancelled by Ctrl-C);
//   - Envoy's circuit breaker: 503 with x-envoy-overloaded, or a 5xx whose body
//     says "reset reason: overflow" → envoy_overflow;
//   - 2xx → served; 3xx → other (a redirect is nobody's actor answering);
//     404 → not_found; 401 → unauthenticated; 403 → permission_denied;
//   - 503 with the router's body `actor <id> unavailable: router at
//     capacity` → shed; any other `actor <id> unavailable` (with or without
//     `: <ateapi's message>`, the id quoted or not, with or without the
//     atespace) is a capacity refusal, whose outcome Judge sets from when it
//     came: budget_exhausted after the park budget, unavailable at once;
//   - 503 `actor <id> request parking capacity exhausted` (agentgateway's
//     full lot) → shed;
//   - 429 `actor <id> rate limited` → rate_limited;
//   - 504 `actor <id> request timed out` is timed like a capacity
//     refusal: budget_exhausted after at least half the park budget
//     (agentgateway's spent budget, or the router's budget cutting its
//     first ResumeActor call), deadline_exceeded sooner (ateapi's own
//     DeadlineExceeded);
//   - any other 504 with an `actor <id> …` body → deadline_exceeded;
//   - 500 `actor <id> routing failed` → routing_failed;
//   - 500 `error resuming actor <id>` or other `actor <id> …` → resume_error;
//   - 500 or 504 with an EMPTY body and no x-envoy-* header naming another
//     cause → ext_proc_error: Envoy's own status_on_error (500) when the
//     ext_proc stream fails, including its circuit breaker overflowing, or
//     its message timeout (504; 500 before Envoy's ext_proc_timeout_error
//     flag). Read from Envoy v1.30's
//     source/extensions/filters/http/ext_proc/ext_proc.cc, the image
//     (envoyproxy/envoy:v1.30-latest) and filter that agent-substrate/substrate
//     PR #221 at 4a8f978b configures (manifests/ate-install/atenet-router.yaml,
//     cmd/atenet/internal/router.go);
//   - 502, and 500/503/504 that carry no actor body but come from the proxy
//     (Envoy's texts such as "no healthy upstream" or "upstream request
//     timeout", x-envoy-* headers, or any 500/504) → proxy_error;
//   - everything else → other.
//
// A gRPC answer, HTTP 200 with a grpc-status other than 0 (agentgateway
// answers a gRPC client's refusal so), is read by its grpc-status and
// grpc-message as the HTTP answer it stands for, never as served.
//
// The rule reads the form of a body, never one version's wording of
// ateapi's message: the seed, PR #221, main 86e138f6, upstream main
// 6210ad86, the newer code and agentgateway all write their refusals in
// these forms (testdata/routers holds each version's bytes).
func Read(a Answer) Reading {
	if a.ClientTimeout {
		return Reading{Outcome: report.ClientTimeout}
	}
	if a.Err != nil {
		return Reading{Outcome: report.TransportError}
	}
	if a.Status >= 200 && a.Status < 300 {
		// One map lookup on the served path, and no body read.
		if gs := a.Header[grpcStatusKey]; len(gs) > 0 && gs[0] != "0" {
			return readGRPC(a, gs[0])
		}
		return Reading{Outcome: report.Served}
	}
	body := bytes.TrimSpace(a.Body)
	status := a.Status
	if status >= 500 && isEnvoyOverflow(status, a.Header, body) {
		return Reading{Outcome: report.EnvoyOverflow}
	}
	kind, reason, isActor := parseActorBody(body)
	rd := Reading{Router: isActor, Reason: reason}
	if !isActor {
		rd.Reason = ""
		if h, ok := invalidHostReason(body); ok {
			rd.Router, rd.Reason = true, h
		} else if h, ok := invalidHeaderReason(body); ok {
			rd.Router, rd.Reason = true, h
		}
	}
	rd.Outcome = classifyStatus(status, a.Header, body, kind, reason, isActor, &rd)
	return rd
}

func classifyStatus(status int, h http.Header, body []byte, kind actorBodyKind, reason string, isActor bool, rd *Reading) report.Outcome {
	switch {
	case status >= 200 && status < 300:
		return report.Served
	case status >= 300 && status < 400:
		return report.Other
	case status == http.StatusNotFound:
		return report.NotFound
	case status == http.StatusUnauthorized:
		return report.Unauthenticated
	case status == http.StatusForbidden:
		return report.PermissionDenied
	}
	if len(body) == 0 && (status == http.StatusInternalServerError || status == http.StatusGatewayTimeout) {
		return report.ExtProcError
	}
	switch status {
	case http.StatusTooManyRequests:
		if isActor && kind == actorBodyPlain && strings.HasPrefix(reason, "rate limited") {
			return report.RateLimited
		}
		return report.Other
	case http.StatusServiceUnavailable:
		if isActor && kind == actorBodyPlain {
			switch {
			case strings.HasPrefix(reason, "unavailable: router at capacity"), reason == parkingCapacityExhausted:
				return report.Shed
			case reason == "unavailable" || strings.HasPrefix(reason, "unavailable:") || strings.HasPrefix(reason, "unavailable "):
				rd.Capacity, rd.AtOnce = true, report.Unavailable
				return report.BudgetExhausted
			}
			return report.Other
		}
		if fromProxy(h, body) {
			return report.ProxyError
		}
		return report.Other
	case http.StatusGatewayTimeout:
		if isActor && kind == actorBodyPlain && reason == requestTimedOut {
			rd.Capacity, rd.AtOnce = true, report.DeadlineExceeded
			return report.BudgetExhausted
		}
		if isActor {
			return report.DeadlineExceeded
		}
		return report.ProxyError
	case http.StatusInternalServerError:
		if isActor && kind == actorBodyPlain && strings.HasPrefix(reason, "routing failed") {
			return report.RoutingFailed
		}
		if isActor {
			return report.ResumeError
		}
		return report.ProxyError
	case http.StatusBadGateway:
		return report.ProxyError
	}
	return report.Other
}

// Judge gives a capacity refusal its outcome from how long the refused
// request's resume flight waited: budget_exhausted when the refusal came
// after at least half the park budget (the dataplane parked it and gave
// up when the budget ran out), and when it came sooner the outcome of an
// answer at once (unavailable: parking is off, the router has none, or it
// does not park that code; deadline_exceeded for a 504). Other readings
// keep their outcome.
func (rd Reading) Judge(waited, budget time.Duration) report.Outcome {
	if !rd.Capacity {
		return rd.Outcome
	}
	if waited >= AtOnceBound(budget) {
		return report.BudgetExhausted
	}
	return rd.AtOnce
}

// AtOnceBound is how long a capacity refusal's flight may have waited and
// still count as refused at once: half the park budget.
func AtOnceBound(budget time.Duration) time.Duration { return budget / 2 }

// Classify reads an answer and judges it by how long its flight waited
// against the park budget.
func Classify(a Answer, waited, budget time.Duration) report.Outcome {
	return Read(a).Judge(waited, budget)
}

// invalidHostReason reads the router's 404 for a Host it cannot parse,
// `invalid host "<h>": <reason>`, and returns "invalid host: <reason>"
// without the Host itself (nor a `, got "<h>"` tail), so one detail
// stands for every actor's request.
func invalidHostReason(body []byte) (string, bool) {
	s := string(body)
	if !strings.HasPrefix(s, `invalid host "`) {
		return "", false
	}
	rest, ok := skipActorID(s[len("invalid host "):])
	if !ok || !strings.HasPrefix(rest, ": ") {
		return "", false
	}
	rest = rest[2:]
	if i := strings.IndexAny(rest, `,"`); i >= 0 {
		rest = rest[:i]
	}
	return "invalid host: " + strings.TrimSpace(rest), true
}

// The dataplanes' texts after the actor id that classification keys on:
// agentgateway's full lot (ingress.rs 44-47 at agentgateway 5f96588b7)
// and the timeout both dataplanes write (the router's errors.go,
// agentgateway's ingress.rs 60-63).
const (
	parkingCapacityExhausted = "request parking capacity exhausted"
	requestTimedOut          = "request timed out"
)

// invalidHeaderReason reads the 404 of a dataplane that reads the actor
// from a header and got none it could read (substrate #1333,
// agentgateway #3409): `invalid "ate-target-actor": expected
// <atespace>/<actor>`. It returns `invalid header ate-target-actor:
// expected <atespace>/<actor>`.
func invalidHeaderReason(body []byte) (string, bool) {
	s := string(body)
	if !strings.HasPrefix(s, `invalid "`) {
		return "", false
	}
	name, rest, ok := strings.Cut(s[len(`invalid "`):], `"`)
	if !ok || name == "" || !isHeaderToken(name) || !strings.HasPrefix(rest, ": ") {
		return "", false
	}
	return "invalid header " + name + ": " + strings.TrimSpace(rest[2:]), true
}

// isHeaderToken reports whether s can be an HTTP header name.
func isHeaderToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// grpcStatusKey and grpcMessageKey are the gRPC status headers,
// canonicalised as both senders read them.
const (
	grpcStatusKey  = "Grpc-Status"
	grpcMessageKey = "Grpc-Message"
)

// readGRPC reads a gRPC answer as the HTTP answer it stands for.
// agentgateway maps its refusals so (proxy/mod.rs 478-489, 518-544 at
// 5f96588b7): 503, 504 and 429 are UNAVAILABLE (14), which its message
// tells apart; 404 UNIMPLEMENTED (12); 403 PERMISSION_DENIED (7); 401
// UNAUTHENTICATED (16); anything else UNKNOWN (2). A gRPC server's own
// DEADLINE_EXCEEDED (4) and RESOURCE_EXHAUSTED (8) read as 504 and 429.
func readGRPC(a Answer, code string) Reading {
	msg := grpcDecode(a.Header.Get(grpcMessageKey))
	status := http.StatusInternalServerError
	switch code {
	case "14":
		status = http.StatusServiceUnavailable
		if _, reason, ok := parseActorBody([]byte(msg)); ok {
			switch {
			case reason == requestTimedOut:
				status = http.StatusGatewayTimeout
			case strings.HasPrefix(reason, "rate limited"):
				status = http.StatusTooManyRequests
			}
		}
	case "12":
		status = http.StatusNotFound
	case "7":
		status = http.StatusForbidden
	case "16":
		status = http.StatusUnauthorized
	case "4":
		status = http.StatusGatewayTimeout
	case "8":
		status = http.StatusTooManyRequests
	}
	rd := Read(Answer{Status: status, Body: []byte(msg)})
	if rd.Outcome == report.ExtProcError {
		// An empty grpc-message is no sign of Envoy's ext_proc failing.
		rd.Outcome = report.Other
	}
	d := "grpc-status " + code
	m := strings.TrimSpace(msg)
	if rd.Router && rd.Reason != "" {
		// The dataplane's reason without the actor, so one detail
		// stands for every actor's answer.
		m = rd.Reason
	}
	if m != "" {
		if len(m) > 60 {
			m = m[:60]
		}
		d += ": " + strings.ToValidUTF8(m, "?")
	}
	rd.GRPC = d
	return rd
}

// grpcDecode undoes grpc-message's percent-encoding; a malformed escape
// is kept as it is.
func grpcDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// envoyOverflowText is the body Envoy sends when a cluster's circuit breaker
// rejects a request.
const envoyOverflowText = "reset reason: overflow"

func isEnvoyOverflow(status int, h http.Header, body []byte) bool {
	if status == http.StatusServiceUnavailable && h != nil {
		if _, ok := h[http.CanonicalHeaderKey("x-envoy-overloaded")]; ok {
			return true
		}
	}
	return bytes.Contains(body, []byte(envoyOverflowText))
}

// proxyTexts are the bodies Envoy itself writes for failures upstream of it.
var proxyTexts = []string{
	"no healthy upstream",
	"upstream connect error",
	"upstream request timeout",
	"upstream reset",
	"disconnect/reset before headers",
	"delayed connect error",
	"upstream_reset",
}

func fromProxy(h http.Header, body []byte) bool {
	for _, t := range proxyTexts {
		if bytes.Contains(body, []byte(t)) {
			return true
		}
	}
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "x-envoy-") {
			return true
		}
	}
	return strings.EqualFold(h.Get("Server"), "envoy")
}

type actorBodyKind uint8

const (
	// actorBodyPlain is `actor <id> <reason>`.
	actorBodyPlain actorBodyKind = iota
	// actorBodyResume is `error resuming actor <id>…`.
	actorBodyResume
)

// parseActorBody recognises the router's own answer texts: `actor <id>
// <reason>` with the id quoted (Go %q, escapes allowed) or bare, and `error
// resuming actor <id>`. It returns the reason after the id.
func parseActorBody(body []byte) (actorBodyKind, string, bool) {
	s := string(body)
	kind := actorBodyPlain
	switch {
	case strings.HasPrefix(s, "actor "):
		s = s[len("actor "):]
	case strings.HasPrefix(s, "error resuming actor "):
		s = s[len("error resuming actor "):]
		kind = actorBodyResume
	default:
		return 0, "", false
	}
	rest, ok := skipActorID(s)
	if !ok {
		return 0, "", false
	}
	if kind == actorBodyResume {
		return kind, strings.TrimSpace(rest), true
	}
	if rest == "" || rest[0] != ' ' {
		return 0, "", false
	}
	return kind, strings.TrimSpace(rest), true
}

// skipActorID consumes a quoted or bare actor id and returns what follows it.
func skipActorID(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	if s[0] == '"' {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				if i == 1 {
					return "", false
				}
				return s[i+1:], true
			}
		}
		return "", false
	}
	i := strings.IndexAny(s, " \t\r\n")
	if i == 0 {
		return "", false
	}
	if i < 0 {
		return "", true
	}
	return s[i:], true
}
