package report

import (
	"fmt"
	"strings"

	"github.com/shakenfist/shakectl/internal/textwrap"
)

// The report's vocabulary, defined once: every outcome and every check with
// a one-line meaning. The parking-probe help (OutcomeHelp, CheckHelp), the
// manual's tables (OutcomeMarkdown, CheckMarkdown, in docs/request-parking.md;
// go generate ./docs writes them and a test keeps them in step) and the JSON Schema's enums (a test compares report.v1.schema.json
// with OutcomeNames and CheckNames) all come from these tables, so a new
// outcome or check is one line here, and the tests say what else to update.
//
// The answers named are those of agent-substrate/substrate's atenet router:
// PR #221 at 4a8f978b7f492cc44f83729eb28d82715367760f
// (cmd/atenet/internal/router/errors.go writes "actor %q unavailable: router
// at capacity" and, through the control API's
// cmd/ateapi/internal/controlapi/workflow_resume.go, "no free workers
// available"), and main at 86e138f628e419426be5ac9bbc68507e8333a4c4, which
// does not park. The meanings name no flag: which flag sets a threshold is
// the command's business.

// Term is one word of the vocabulary and what it means.
type Term struct {
	Name    string
	Meaning string
}

// outcomeTerms is indexed by Outcome: the order is the report's.
var outcomeTerms = [NumOutcomes]Term{
	Served:           {"served", "2xx: the actor answered (late, after the budget, too: the report counts those as served_late); never a gRPC answer whose grpc-status is not OK, which is read as the answer it stands for"},
	Shed:             {"shed", `503 "actor … unavailable: router at capacity", or agentgateway's "actor … request parking capacity exhausted": the parking lot was full (at once, or after one resume attempt from the router after #1229)`},
	BudgetExhausted:  {"budget_exhausted", `any other 503 "actor … unavailable…" (whatever ateapi's text after it), or a 504 "actor … request timed out" (agentgateway's spent budget), that came after at least half the park budget: the dataplane parked the request and gave up when the budget ran out`},
	Unavailable:      {"unavailable", `the same 503 "actor … unavailable…" in under half the park budget: refused at once, without parking (parking off, a router without parking, or a code it does not park)`},
	NotFound:         {"not_found", `404, including the dataplane's "invalid host" and "invalid "ate-target-actor""`},
	DeadlineExceeded: {"deadline_exceeded", `504 with an actor body in under half the park budget (ateapi's DeadlineExceeded)`},
	Unauthenticated:  {"unauthenticated", "401"},
	PermissionDenied: {"permission_denied", "403"},
	ResumeError:      {"resume_error", `500 "error resuming actor …"`},
	RateLimited:      {"rate_limited", `429 "actor … rate limited": a ResourceExhausted the dataplane does not retry; at once, parking did not engage (parked fails)`},
	RoutingFailed:    {"routing_failed", `500 "actor … routing failed"`},
	ExtProcError:     {"ext_proc_error", "500 or 504 with an empty body: Envoy's own answer when the ext_proc stream fails or times out"},
	EnvoyOverflow:    {"envoy_overflow", `503 with x-envoy-overloaded, or "reset reason: overflow": Envoy's circuit breaker`},
	ProxyError:       {"proxy_error", "502, or 500/503/504 from the proxy without an actor body (no healthy upstream, upstream request timeout)"},
	ClientTimeout:    {"client_timeout", "the probe's own request timeout fired before the answer was complete"},
	TransportError:   {"transport_error", "no HTTP answer: refused, reset, EOF…; also requests cancelled by an interrupt (detail canceled)"},
	Other:            {"other", "any other answer, 3xx redirects included"},
}

// CheckExpectPrefix starts the name of a check made from a user's
// expectation: "expect served>=0.95".
const CheckExpectPrefix = "expect "

// checkTerms are the built-in checks in the order a report lists them;
// sources_passed is added by Merge only.
var checkTerms = []Term{
	{CheckBudgetBound, "no budget_exhausted answer came later than the park budget plus slack after its request was written"},
	{CheckShedFast, "the p99 latency of shed answers is under the shed bound (" + DefaultShedMax.String() + " unless set), which leaves room for the one resume attempt the router after #1229 makes before it sheds"},
	{CheckRejectedMatchesShed, "the router's parking_rejected_total grew by exactly the shed count (needs its metrics; not judged on agentgateway, which has no such counter)"},
	{CheckActiveDrains, "the dataplane's parked count is back to 0 after the run: the router's parking_active or statusz active, agentgateway's agentgateway_substrate_request_parking_active (needs its metrics or statusz)"},
	{CheckNoEnvoyOverflow, "no envoy_overflow and no ext_proc_error answers: Envoy would truncate the parking lot"},
	{CheckAllAccounted, "the outcomes add up to the requests sent"},
	{CheckSenderOnSchedule, "the probe kept its own schedule: an open run sent at least 99% of the requests it scheduled, with its sends' p99 lateness under 100ms (or half the shed bound, if less); when it fails, budget_bound, shed_fast, parked and latency expectations are not judged (the machine limited the run)"},
	{CheckWaitMatchesBudgetExhausted, `the router's parking_wait grew by the budget_exhausted count (label budget_exhausted), or by at least it (PR #221's label error); needs its metrics; not judged on agentgateway, which has no such histogram`},
	{CheckParked, "no capacity refusal came at once (unavailable, or a 429 rate limited under half the budget): a dataplane that parks holds a refused request for its budget"},
	{CheckReachedParking, "something identified the target as a Substrate dataplane (its metrics, its statusz or an answer only one writes), parking is on (unless expected off), some answer came from the parking path (served, shed or budget_exhausted), and at most a fifth were not_found; a run of only 404s, timeouts or transport errors fails, as does one whose load was aimed at actors the router does not have"},
	{CheckSourcesPassed, "merge only: every merged run passed its own checks"},
}

// expectTerm describes the checks the user's expectations make.
var expectTerm = Term{CheckExpectPrefix + "EXPR", "a user expectation, such as served>=0.95, p99(served)<6s or parking=off (the router is meant not to park: the checks that need parking are not judged)"}

// OutcomeTerms lists the outcomes with their meanings, in report order.
func OutcomeTerms() []Term { return append([]Term(nil), outcomeTerms[:]...) }

// CheckTerms lists the built-in checks with their meanings, in report
// order, then the expectation checks' form (expect EXPR).
func CheckTerms() []Term { return append(append([]Term(nil), checkTerms...), expectTerm) }

// CheckNames lists the built-in checks' names, in report order; a check's
// name is one of these or starts with CheckExpectPrefix.
func CheckNames() []string {
	out := make([]string, len(checkTerms))
	for i, t := range checkTerms {
		out[i] = t.Name
	}
	return out
}

// helpWidth is the width the command's help is laid out for.
const helpWidth = 80

// OutcomeHelp is the outcome table of the parking-probe help: each
// outcome, indented, with its meaning wrapped under itself.
func OutcomeHelp() string { return helpTable(OutcomeTerms()) }

// CheckHelp is the check table of the parking-probe help.
func CheckHelp() string { return helpTable(CheckTerms()) }

func helpTable(terms []Term) string {
	const indent = "  "
	width := 0
	for _, t := range terms {
		width = max(width, len(t.Name))
	}
	// A name much longer than the rest goes on its own line, so one long
	// name does not push every meaning to the right.
	col := min(width, 22)
	// Written piece by piece, not with Fprintf: the tables are the
	// parking-probe's help, which every start-up builds.
	var b strings.Builder
	for _, t := range terms {
		lines := textwrap.Lines(t.Meaning, "", "", helpWidth-len(indent)-col-2, nil)
		b.WriteString(indent)
		b.WriteString(t.Name)
		if len(t.Name) > col {
			b.WriteByte('\n')
		} else {
			b.WriteString(textwrap.Blank(col - len(t.Name) + 2))
			b.WriteString(lines[0])
			b.WriteByte('\n')
			lines = lines[1:]
		}
		for _, l := range lines {
			b.WriteString(indent)
			b.WriteString(textwrap.Blank(col + 2))
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// OutcomeMarkdown is the manual's outcome table (docs/request-parking.md).
func OutcomeMarkdown() string { return markdownTable("outcome", OutcomeTerms()) }

// CheckMarkdown is the manual's check table (docs/request-parking.md).
func CheckMarkdown() string { return markdownTable("check", CheckTerms()) }

func markdownTable(what string, terms []Term) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | meaning |\n|---|---|\n", what)
	for _, t := range terms {
		fmt.Fprintf(&b, "| `%s` | %s |\n", t.Name, strings.ReplaceAll(t.Meaning, "|", `\|`))
	}
	return b.String()
}
