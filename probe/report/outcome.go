package report

import "fmt"

// Outcome is how one request ended, in the fixed vocabulary of
// vocabulary.go (names and meanings). The same names appear in the text
// report, the JSON report, the report's JSON Schema and --expect.
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

	// NumOutcomes is how many outcomes there are, for arrays indexed by one.
	NumOutcomes = int(Other) + 1
)

// String is the outcome's name in the vocabulary, e.g. "budget_exhausted".
func (o Outcome) String() string {
	if int(o) < NumOutcomes {
		return outcomeTerms[o].Name
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Valid reports whether o is one of the vocabulary's outcomes.
func (o Outcome) Valid() bool { return int(o) < NumOutcomes }

// AllOutcomes lists the vocabulary in report order.
func AllOutcomes() []Outcome {
	out := make([]Outcome, NumOutcomes)
	for i := range out {
		out[i] = Outcome(i)
	}
	return out
}

// ParseOutcome reads an outcome's name.
func ParseOutcome(name string) (Outcome, bool) {
	for i, t := range outcomeTerms {
		if t.Name == name {
			return Outcome(i), true
		}
	}
	return 0, false
}

// OutcomeNames lists the vocabulary's names in report order.
func OutcomeNames() []string {
	out := make([]string, NumOutcomes)
	for i, t := range outcomeTerms {
		out[i] = t.Name
	}
	return out
}
