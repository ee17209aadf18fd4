package probe

import "fmt"

// Outcome is how one request ended, in the fixed vocabulary of DESIGN.md. The
// same names appear in the text report, the JSON report and --expect.
type Outcome uint8

// The outcomes, in report order. Every answer (and every failure to get one)
// lands in exactly one of them.
const (
	Served Outcome = iota
	Shed
	BudgetExhausted
	Unavailable
	NotFound
	DeadlineExceeded
	Unauthenticated
	PermissionDenied
	ResumeError
	RateLimited
	RoutingFailed
	ExtProcError
	EnvoyOverflow
	ProxyError
	ClientTimeout
	TransportError
	Other

	numOutcomes = int(Other) + 1
)

var outcomeNames = [numOutcomes]string{
	Served:           "served",
	Shed:             "shed",
	BudgetExhausted:  "budget_exhausted",
	Unavailable:      "unavailable",
	NotFound:         "not_found",
	DeadlineExceeded: "deadline_exceeded",
	Unauthenticated:  "unauthenticated",
	PermissionDenied: "permission_denied",
	ResumeError:      "resume_error",
	RateLimited:      "rate_limited",
	RoutingFailed:    "routing_failed",
	ExtProcError:     "ext_proc_error",
	EnvoyOverflow:    "envoy_overflow",
	ProxyError:       "proxy_error",
	ClientTimeout:    "client_timeout",
	TransportError:   "transport_error",
	Other:            "other",
}

// String is the outcome's name in the vocabulary, e.g. "budget_exhausted".
func (o Outcome) String() string {
	if int(o) < numOutcomes {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Valid reports whether o is one of the vocabulary's outcomes.
func (o Outcome) Valid() bool { return int(o) < numOutcomes }

// AllOutcomes lists the vocabulary in report order.
func AllOutcomes() []Outcome {
	out := make([]Outcome, numOutcomes)
	for i := range out {
		out[i] = Outcome(i)
	}
	return out
}

// ParseOutcome reads an outcome's name.
func ParseOutcome(name string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == name {
			return Outcome(i), true
		}
	}
	return 0, false
}

// OutcomeNames lists the vocabulary's names in report order.
func OutcomeNames() []string { return append([]string(nil), outcomeNames[:]...) }
