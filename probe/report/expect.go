package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// Expectation is one user --expect expression, such as served>=0.95,
// shed==0, budget_exhausted<=10, p99(served)<6s or max(shed)<100ms.
//
// The left side is an outcome's count, "requests" (all requests sent), or a
// latency statistic of an outcome: p50, p75, p90, p95, p99, p999 or max. The
// operators are <, <=, ==, !=, >= and >.
//
// For counts, the right side is a count when it is an integer (shed==0,
// budget_exhausted<=10) and a share of the requests sent when it has a
// decimal point and lies in [0, 1] (served>=0.95) or ends in % (served>=95%).
// For latencies it is a duration with a unit (6s, 250ms, 1.5s).
//
// parking=off (or parking==off) says the router is meant not to park: the
// checks that need parking are then not judged, and the expectation fails
// if the router parks after all; parking=on says the opposite.
type Expectation struct {
	// Text is the expression as written, without surrounding spaces.
	Text string

	Outcome Outcome
	// Requests is set when the subject is the number of requests sent.
	Requests bool
	// Stat is "" for a count, else p50…p999 or max.
	Stat string
	Op   string

	Count   int64
	Ratio   float64
	IsRatio bool
	Latency time.Duration
	// Parking is "on" or "off" for a parking=… expectation, else "".
	Parking string
}

// The words of a parking=… expectation.
const (
	ParkingOnWord  = "on"
	ParkingOffWord = "off"
)

// ParkingExpected is what the last parking=… expectation said, or "".
func (c CheckConfig) ParkingExpected() string {
	w := ""
	for _, e := range c.Expect {
		if e.Parking != "" {
			w = e.Parking
		}
	}
	return w
}

// ExpectError is a malformed expectation (CheckConfig.Expect, the probe's
// --expect); Column (1-based) points at the offending token.
type ExpectError struct {
	Expr   string
	Column int
	Msg    string
}

func (e *ExpectError) Error() string { return e.Render(nil) }

// Render is the message with the option named by name, as
// internal/fielderr's Render.
func (e *ExpectError) Render(name func(field string) string) string {
	return fielderr.Errorf("invalid {Checks.Expect} %q at column %d: %s", e.Expr, e.Column, e.Msg).Render(name)
}

// latencyStats maps the statistics --expect knows to their quantiles.
var latencyStats = map[string]float64{
	"p50": 50, "p75": 75, "p90": 90, "p95": 95, "p99": 99, "p999": 99.9, "max": 100,
}

// ParseExpectations parses each flag value; a value may hold several
// expressions separated by commas.
func ParseExpectations(values []string) ([]Expectation, error) {
	var out []Expectation
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			e, err := ParseExpectation(part)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// ParseExpectation parses one expression.
func ParseExpectation(raw string) (Expectation, error) {
	text := strings.TrimSpace(raw)
	e := Expectation{Text: text}
	fail := func(pos int, format string, a ...any) (Expectation, error) {
		return Expectation{}, &ExpectError{Expr: text, Column: pos + 1, Msg: fmt.Sprintf(format, a...)}
	}
	if text == "" {
		return fail(0, "empty expression; want e.g. served>=0.95 or p99(served)<6s")
	}
	s := text
	pos := 0
	skip := func() {
		for pos < len(s) && (s[pos] == ' ' || s[pos] == '\t') {
			pos++
		}
	}
	ident := func() (string, int) {
		start := pos
		for pos < len(s) && (s[pos] == '_' || s[pos] >= 'a' && s[pos] <= 'z' || s[pos] >= 'A' && s[pos] <= 'Z' || s[pos] >= '0' && s[pos] <= '9') {
			pos++
		}
		return s[start:pos], start
	}

	skip()
	name, at := ident()
	if name == "parking" {
		skip()
		if strings.HasPrefix(s[pos:], "==") {
			pos += 2
		} else if strings.HasPrefix(s[pos:], "=") {
			pos++
		} else {
			return fail(pos, "want parking=on or parking=off")
		}
		skip()
		switch v := strings.TrimSpace(s[pos:]); v {
		case ParkingOnWord, ParkingOffWord:
			e.Parking = v
			return e, nil
		default:
			return fail(pos, "want parking=on or parking=off, got %q", v)
		}
	}
	if name == "" {
		return fail(pos, "want an outcome or a latency such as p99(served), got %q", rest(s, pos))
	}
	skip()
	if pos < len(s) && s[pos] == '(' {
		if _, ok := latencyStats[name]; !ok {
			return fail(at, "unknown statistic %q: want one of p50, p75, p90, p95, p99, p999, max", name)
		}
		e.Stat = name
		pos++
		skip()
		var oat int
		name, oat = ident()
		o, ok := ParseOutcome(name)
		if !ok {
			return fail(oat, "unknown outcome %q (known: %s)", name, strings.Join(OutcomeNames(), ", "))
		}
		e.Outcome = o
		skip()
		if pos >= len(s) || s[pos] != ')' {
			return fail(pos, "want ) after %s(%s", e.Stat, name)
		}
		pos++
	} else {
		switch o, ok := ParseOutcome(name); {
		case ok:
			e.Outcome = o
		case name == "requests":
			e.Requests = true
		case latencyStats[name] != 0:
			return fail(pos, "want (OUTCOME) after %s, e.g. %s(served)", name, name)
		default:
			return fail(at, "unknown outcome %q (known: requests, %s)", name, strings.Join(OutcomeNames(), ", "))
		}
	}
	skip()
	opAt := pos
	for _, op := range []string{"<=", ">=", "==", "!=", "<", ">"} {
		if strings.HasPrefix(s[pos:], op) {
			e.Op = op
			pos += len(op)
			break
		}
	}
	if e.Op == "" {
		if strings.HasPrefix(s[pos:], "=") {
			return fail(opAt, "unknown operator \"=\": did you mean ==?")
		}
		return fail(opAt, "want an operator (<, <=, ==, !=, >=, >), got %q", rest(s, pos))
	}
	skip()
	valAt := pos
	val := strings.TrimSpace(s[pos:])
	if val == "" {
		return fail(valAt, "missing value after %s", e.Op)
	}
	if e.Stat != "" {
		d, err := time.ParseDuration(val)
		if err != nil || d < 0 {
			return fail(valAt, "want a duration with a unit such as 6s or 250ms, got %q", val)
		}
		e.Latency = d
		return e, nil
	}
	switch {
	case strings.HasSuffix(val, "%"):
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(val, "%")), 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 100 {
			return fail(valAt, "want a percentage between 0%% and 100%%, got %q", val)
		}
		e.IsRatio, e.Ratio = true, f/100
	case strings.ContainsAny(val, ".eE"):
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return fail(valAt, "%q is neither a count (an integer such as 10) nor a ratio (0.0 to 1.0, or a percentage such as 95%%)", val)
		}
		e.IsRatio, e.Ratio = true, f
	default:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return fail(valAt, "want a count (an integer such as 10), a ratio (0.95) or a percentage (95%%), got %q", val)
		}
		e.Count = n
	}
	if e.Requests && e.IsRatio {
		return fail(valAt, "requests is a count: compare it with an integer")
	}
	return e, nil
}

func rest(s string, pos int) string {
	if pos >= len(s) {
		return ""
	}
	return s[pos:]
}

// compare applies the operator to two numbers.
func compare(a float64, op string, b float64) bool {
	switch op {
	case "<":
		return a < b
	case "<=":
		return a <= b
	case "==":
		return a == b
	case "!=":
		return a != b
	case ">=":
		return a >= b
	case ">":
		return a > b
	}
	return false
}
