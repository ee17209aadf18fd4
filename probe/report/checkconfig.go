package report

import "time"

// Defaults of the check thresholds.
const (
	DefaultBudget  = 5 * time.Second
	DefaultSlack   = time.Second
	DefaultShedMax = 250 * time.Millisecond
)

// CheckConfig holds the thresholds of the built-in checks and the user's
// expectations. Its zero value means "defaults"; ApplyDefaults is the one
// place that fills them.
type CheckConfig struct {
	// Budget is the router's park budget and Slack the grace above it
	// before a budget_exhausted answer counts as late. A zero Budget takes
	// the router's own (statusz max_wait) when --statusz-url gives it, else
	// DefaultBudget.
	Budget time.Duration
	Slack  time.Duration
	// SlackSet says Slack was given, so a zero Slack means no grace rather
	// than DefaultSlack.
	SlackSet bool
	// ShedMax bounds the p99 latency of shed answers (default 250ms).
	ShedMax time.Duration
	Expect  []Expectation
	// BudgetSource says where Budget came from: "given", "statusz
	// max_wait" or "default"; set by ApplyDefaults.
	BudgetSource string
	// OptionName names an option of the run in what the report says
	// ("no {MetricsURL}"): the command gives its flag for a field
	// (--metrics-url), so the JSON report and the text say what the user
	// typed; nil writes the field path.
	OptionName func(field string) string
}

// Where the park budget came from.
const (
	BudgetGiven   = "given"
	BudgetStatusz = "statusz max_wait"
	BudgetDefault = "default"
)

// ApplyDefaults fills the zero thresholds with the defaults and says
// where the budget came from.
func (c *CheckConfig) ApplyDefaults() {
	switch {
	case c.BudgetSource != "":
	case c.Budget == 0:
		c.Budget, c.BudgetSource = DefaultBudget, BudgetDefault
	default:
		c.BudgetSource = BudgetGiven
	}
	if c.Slack == 0 && !c.SlackSet {
		c.Slack = DefaultSlack
	}
	c.SlackSet = true
	if c.ShedMax == 0 {
		c.ShedMax = DefaultShedMax
	}
}
