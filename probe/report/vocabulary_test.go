package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestSchemaEnumsAreTheVocabulary: report.v1.schema.json's outcome and
// check enums are the vocabulary's names in report order, so a new
// outcome or check is a schema change too, and a script validating a
// report refuses a name this build does not write.
func TestSchemaEnumsAreTheVocabulary(t *testing.T) {
	var doc struct {
		Defs struct {
			OutcomeName struct {
				Enum []string `json:"enum"`
			} `json:"outcomeName"`
			CheckName struct {
				Enum []string `json:"enum"`
			} `json:"checkName"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ReportJSONSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Defs.OutcomeName.Enum, OutcomeNames(); !slices.Equal(got, want) {
		t.Errorf("schema's outcomeName enum %v\nvocabulary's outcomes   %v", got, want)
	}
	if got, want := doc.Defs.CheckName.Enum, CheckNames(); !slices.Equal(got, want) {
		t.Errorf("schema's checkName enum %v\nvocabulary's checks    %v", got, want)
	}
}

// TestVocabularyNamesEveryCheck: the checks a report and a merge really
// carry are the vocabulary's, in its order, so no check can be added
// without a meaning (and a help line, a row of the manual's table and a schema entry).
func TestVocabularyNamesEveryCheck(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &Report{StartedAt: start, Requests: 1, Outcomes: map[string]*OutcomeStats{}}
	h := NewHistogram()
	RecordDuration(h, time.Millisecond)
	r.SetOutcome(Served, 1, h, nil, nil)
	r.Evaluate(CheckConfig{Expect: []Expectation{mustExpect(t, "served>=1")}})
	var got []string
	for _, c := range r.Checks {
		got = append(got, c.Name)
	}
	m, err := Merge([]*Report{r}, CheckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, m.Checks[len(m.Checks)-1].Name)
	want := CheckNames()
	// The run's own checks, its expectation, then the merge's own.
	want = append(append(want[:len(want)-1:len(want)-1], CheckExpectPrefix+"served>=1"), CheckSourcesPassed)
	if !slices.Equal(got, want) {
		t.Errorf("checks made %v\nvocabulary     %v", got, want)
	}
	for _, term := range slices.Concat(OutcomeTerms(), CheckTerms()) {
		if term.Name == "" || term.Meaning == "" || strings.Contains(term.Meaning, "\n") {
			t.Errorf("term %+v: want a name and a one-line meaning", term)
		}
	}
}

func mustExpect(t *testing.T, s string) Expectation {
	t.Helper()
	e, err := ParseExpectation(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestHelpTables: the help's outcome and check tables, as the command
// prints them (golden), fit 80 columns and name every term at the start of
// its entry.
func TestHelpTables(t *testing.T) {
	for name, c := range map[string]struct {
		text  string
		terms []Term
	}{
		"help-outcomes.txt": {OutcomeHelp(), OutcomeTerms()},
		"help-checks.txt":   {CheckHelp(), CheckTerms()},
	} {
		for _, l := range strings.Split(strings.TrimSuffix(c.text, "\n"), "\n") {
			if n := utf8.RuneCountInString(l); n > helpWidth {
				t.Errorf("%s: line of %d columns: %q", name, n, l)
			}
		}
		for _, term := range c.terms {
			if !strings.Contains(c.text, "\n  "+term.Name+" ") && !strings.HasPrefix(c.text, "  "+term.Name+" ") &&
				!strings.Contains(c.text, "\n  "+term.Name+"\n") {
				t.Errorf("%s does not list %s", name, term.Name)
			}
			// Every word of the meaning is there, in order.
			flat := strings.Join(strings.Fields(c.text), " ")
			if !strings.Contains(flat, strings.Join(strings.Fields(term.Meaning), " ")) {
				t.Errorf("%s lost part of %s's meaning", name, term.Name)
			}
		}
		golden(t, name, []byte(c.text))
	}
}

// TestManualTablesAreTheVocabulary: the manual's outcome and check tables
// (docs/request-parking.md, once README's) are the ones the vocabulary
// makes; go generate ./docs rewrites them.
func TestManualTablesAreTheVocabulary(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "request-parking.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	for _, sec := range []struct{ name, table string }{{"outcomes", OutcomeMarkdown()}, {"checks", CheckMarkdown()}} {
		begin := "<!-- BEGIN " + sec.name
		end := "<!-- END " + sec.name + " -->"
		i := strings.Index(page, begin)
		j := strings.Index(page, end)
		if i < 0 || j < i {
			t.Fatalf("docs/request-parking.md has no %q … %q section", begin, end)
		}
		i += strings.IndexByte(page[i:], '\n') + 1
		if got := page[i:j]; got != sec.table {
			t.Errorf("docs/request-parking.md's %s table is not the vocabulary's (go generate ./docs rewrites it):\n--- page\n%s--- vocabulary\n%s", sec.name, got, sec.table)
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// TestReportIsALeaf: the package imports only the standard library's
// non-network packages and hdrhistogram-go, so the merge, the plot and
// scripts that read reports never link the engine or an HTTP stack.
func TestReportIsALeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			switch {
			case p == "github.com/HdrHistogram/hdrhistogram-go":
			case p == "github.com/shakenfist/shakectl/output/termtext":
				// The one terminal-text sanitiser (issue 28), itself a
				// standard-library leaf: report text shows servers' and
				// files' strings.
			case p == "github.com/shakenfist/shakectl/internal/textwrap":
				// The one word wrapper, a standard-library leaf (its own
				// test holds it so): the help's outcome and check tables.
			case p == "github.com/shakenfist/shakectl/internal/fielderr":
				// How a library names its options ({MetricsURL}), itself
				// a standard-library leaf (its own test holds it so): the
				// checks' details advise on the run's options.
			case strings.Contains(first, "."):
				t.Errorf("%s imports %s: probe/report must stay a leaf", f, p)
			case first == "net" || p == "os/exec" || p == "os/signal":
				t.Errorf("%s imports %s: probe/report reads and writes reports, it does no I/O of its own", f, p)
			}
		}
	}
}
