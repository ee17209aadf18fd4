package report

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseExpectation(t *testing.T) {
	tests := []struct {
		in   string
		want Expectation
	}{
		{"served>=0.95", Expectation{Outcome: Served, Op: ">=", IsRatio: true, Ratio: 0.95}},
		{"served >= 95%", Expectation{Outcome: Served, Op: ">=", IsRatio: true, Ratio: 0.95}},
		{"served>=1.0", Expectation{Outcome: Served, Op: ">=", IsRatio: true, Ratio: 1}},
		{"served>=1", Expectation{Outcome: Served, Op: ">=", Count: 1}},
		{"shed==0", Expectation{Outcome: Shed, Op: "==", Count: 0}},
		{"budget_exhausted<=10", Expectation{Outcome: BudgetExhausted, Op: "<=", Count: 10}},
		{"transport_error!=5", Expectation{Outcome: TransportError, Op: "!=", Count: 5}},
		{"requests>1000", Expectation{Requests: true, Op: ">", Count: 1000}},
		{"p99(served)<6s", Expectation{Outcome: Served, Stat: "p99", Op: "<", Latency: 6 * time.Second}},
		{" max( shed ) < 100ms ", Expectation{Outcome: Shed, Stat: "max", Op: "<", Latency: 100 * time.Millisecond}},
		{"p999(budget_exhausted)<=5.5s", Expectation{Outcome: BudgetExhausted, Stat: "p999", Op: "<=", Latency: 5500 * time.Millisecond}},
	}
	for _, tt := range tests {
		got, err := ParseExpectation(tt.in)
		if err != nil {
			t.Errorf("ParseExpectation(%q): %v", tt.in, err)
			continue
		}
		tt.want.Text = strings.TrimSpace(tt.in)
		if got != tt.want {
			t.Errorf("ParseExpectation(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseExpectationErrors(t *testing.T) {
	tests := []struct {
		in     string
		column int
		msg    string
	}{
		{"", 1, "empty expression"},
		{"servd>=0.9", 1, `unknown outcome "servd"`},
		{"served=0.9", 7, `did you mean ==?`},
		{"served>=x", 9, `got "x"`},
		{"served>=1.5", 9, `neither a count`},
		{"served>=150%", 9, `percentage between`},
		{"served>=-1", 9, `want a count`},
		{"served>=", 9, `missing value`},
		{"served", 7, `want an operator`},
		{"p99(served)<6", 13, `duration with a unit`},
		{"p98(served)<6s", 1, `unknown statistic "p98"`},
		{"p99(servd)<6s", 5, `unknown outcome "servd"`},
		{"p99(served<6s", 11, `want )`},
		{"p99<6s", 4, `want (OUTCOME) after p99`},
		{"requests>=0.5", 11, `requests is a count`},
		{">=3", 1, `want an outcome`},
	}
	for _, tt := range tests {
		_, err := ParseExpectation(tt.in)
		var ee *ExpectError
		if !errors.As(err, &ee) {
			t.Errorf("ParseExpectation(%q) = %v, want an ExpectError", tt.in, err)
			continue
		}
		if ee.Column != tt.column || !strings.Contains(ee.Msg, tt.msg) {
			t.Errorf("ParseExpectation(%q): column %d %q, want column %d containing %q", tt.in, ee.Column, ee.Msg, tt.column, tt.msg)
		}
		// The option, named as the caller names it (the probe's flag).
		if got := ee.Render(func(f string) string { return map[string]string{"Checks.Expect": "--expect"}[f] }); !strings.HasPrefix(got, "invalid --expect ") {
			t.Errorf("error %q does not name the option", got)
		}
	}
}

func TestParseExpectationsSplitsCommas(t *testing.T) {
	got, err := ParseExpectations([]string{"served>=0.9, shed==0", "p99(served)<6s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Outcome != Shed || got[2].Stat != "p99" {
		t.Fatalf("got %+v", got)
	}
	if _, err := ParseExpectations([]string{"served>=0.9,"}); err == nil {
		t.Fatal("a trailing comma (empty expression) was accepted")
	}
}

// FuzzExpect: parsing never panics; what parses is well formed, and a
// failure points inside the expression.
func FuzzExpect(f *testing.F) {
	for _, s := range []string{
		"served>=0.95", "shed==0", "p99(served)<6s", "max(shed)<100ms", "requests>=10",
		"served>=95%", "p99(", "p99(served", "(", ")", "==", "served>=1e400", "served>=NaN",
		"served>=0x10", "p99(served)<-1s", "p99(served)<1e100s", "served\x00>=1", "ß>=1", "served>=٣",
		"   ", "p999(budget_exhausted)!=0s", "served>=.5", "served>=5.", "served>=%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpectation(s)
		if err != nil {
			var ee *ExpectError
			if !errors.As(err, &ee) {
				t.Fatalf("error %v is not an ExpectError", err)
			}
			if ee.Column < 1 || ee.Column > len(ee.Expr)+1 {
				t.Fatalf("column %d outside %q", ee.Column, ee.Expr)
			}
			return
		}
		switch e.Op {
		case "<", "<=", "==", "!=", ">=", ">":
		default:
			t.Fatalf("parsed operator %q", e.Op)
		}
		if !e.Outcome.Valid() {
			t.Fatalf("parsed outcome %d", e.Outcome)
		}
		if e.IsRatio && (e.Ratio < 0 || e.Ratio > 1) {
			t.Fatalf("ratio %g outside [0,1]", e.Ratio)
		}
		if e.Count < 0 || e.Latency < 0 {
			t.Fatalf("negative bound in %+v", e)
		}
		// Evaluating never panics either.
		r := &Report{Requests: 0, Outcomes: map[string]*OutcomeStats{}}
		_ = r.checkExpectation(e)
	})
}
