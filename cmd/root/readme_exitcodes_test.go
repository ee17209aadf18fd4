package root_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// manualPage is a page of the manual (docs/), as the repository holds it.
func manualPage(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// manualExitCodes is the exit-code table of the manual (docs/exit-codes.md,
// once README's): code → meaning.
func manualExitCodes(t *testing.T) map[int]string {
	t.Helper()
	page := manualPage(t, "exit-codes.md")
	rows := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| (.+) \|$`).FindAllStringSubmatch(page, -1) {
		code, _ := strconv.Atoi(m[1])
		rows[code] = m[2]
	}
	if len(rows) < 10 {
		t.Fatalf("docs/exit-codes.md's table has %d rows", len(rows))
	}
	return rows
}

// The manual's exit-code table (docs/exit-codes.md) promises what the 2
// and 124 rows say; each promise is run here, and the code a script
// branches on is the page's number, not the constant's. A row reworded so
// that it no longer makes the promise, or code that exits otherwise,
// fails.
func TestManualExitCodeTableHoldsFor2And124(t *testing.T) {
	rows := manualExitCodes(t)
	codeOf := func(claims ...string) int {
		t.Helper()
		found := -1
		for code, meaning := range rows {
			all := true
			for _, c := range claims {
				all = all && strings.Contains(meaning, c)
			}
			if all {
				if found >= 0 {
					t.Fatalf("two rows promise %q: %d and %d", claims, found, code)
				}
				found = code
			}
		}
		if found < 0 {
			t.Fatalf("no row of docs/exit-codes.md's table promises %q", claims)
		}
		return found
	}

	usage := codeOf("usage error", "bad flag", "outside the range its flag's help states", "NaN")
	for _, args := range [][]string{
		{"node", "cpuhogs", "--threshold", "NaN"},
		{"parking-probe", "--procs", "100000", "--requests", "1"},
		{"instance", "list", "--timeout", "-Inf"},
		{"sim", "router", "--workers", "0"},
	} {
		if res := (clitest.CmdRun{}).Run(t, args...); res.Code != usage {
			t.Errorf("shakectl %s: exit %d, docs/exit-codes.md says %d\n%s", strings.Join(args, " "), res.Code, usage, res)
		}
	}

	deadline := codeOf("a deadline ran out", "`--timeout`", "`--request-timeout`", "Kerbside")
	for _, args := range [][]string{
		{"instance", "list", "--timeout", "5s"},
		{"instance", "list", "--request-timeout", "5s"},
		{"instance", "vdiconsolefile", "web1", "-", "--timeout", "5s"},
	} {
		synctest.Test(t, func(t *testing.T) {
			s := kerbsideNeverAnswers(t)
			s.Register(clitest.Route("GET", "/instances"), httpstub.Delay(time.Hour, httpstub.String(200, "[]"))).Optional()
			if res := clitest.StubsInMemory(s).Run(t, args...); res.Code != deadline {
				t.Errorf("shakectl %s: exit %d, docs/exit-codes.md says %d\n%s", strings.Join(args, " "), res.Code, deadline, res)
			}
			time.Sleep(time.Hour)
		})
	}

	// `shakectl help exit-codes` prints the same table.
	topic := clitest.CmdRun{}.Run(t, "help", "exit-codes").Stdout
	for code := range rows {
		if !regexp.MustCompile(`(?m)^\| ` + strconv.Itoa(code) + ` \| \S`).MatchString(topic) {
			t.Errorf("docs/exit-codes.md's exit code %d is not in \"shakectl help exit-codes\"", code)
		}
	}
	if usage != cmdutil.ExitUsage || deadline != cmdutil.ExitTimeout {
		t.Errorf("docs/exit-codes.md says usage %d and deadline %d; the code's constants are %d and %d", usage, deadline, cmdutil.ExitUsage, cmdutil.ExitTimeout)
	}
}

// The exit codes are written twice, as Go constants (cmd/cmdutil's Exit*,
// the only codes ExitCode returns) and as the manual's table, which is
// the one text of what each means (help exit-codes and the man pages
// print it). Every constant has its row and every row its constant, read
// from the source, so a code added to either side alone fails here.
func TestExitCodeTableIsTheConstants(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "cmdutil", "exitcode.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	constants := map[int]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !strings.HasPrefix(name.Name, "Exit") || !ok || lit.Kind != token.INT {
					continue
				}
				code, _ := strconv.Atoi(lit.Value)
				constants[code] = name.Name
			}
		}
	}
	if len(constants) < 10 {
		t.Fatalf("found %d Exit constants in cmd/cmdutil/exitcode.go: %v", len(constants), constants)
	}
	rows := manualExitCodes(t)
	for code, name := range constants {
		if _, ok := rows[code]; !ok {
			t.Errorf("%s = %d has no row in docs/exit-codes.md", name, code)
		}
	}
	for code, meaning := range rows {
		if _, ok := constants[code]; !ok {
			t.Errorf("docs/exit-codes.md's %d (%s) is no constant of cmd/cmdutil/exitcode.go", code, meaning)
		}
	}
}
