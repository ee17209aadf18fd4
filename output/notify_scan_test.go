package output_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// The rule "one writer of stderr" (the Notifier), kept by a scan of the
// sources: no shipped (non-test) code outside this package writes to
// stderr by itself. It reaches it through the notifier's kinds, whose
// rules (-o json, --quiet, the sanitiser) then hold for every line.
// Modelled on internal/outfile's scan of file writes, with the parser, so
// an aliased import or a function value (p := log.Printf) is seen too.
//
// What the scan calls a write to stderr:
//   - IOStreams.ErrOut, read or set (the notifier's own stream);
//   - os.Stderr and syscall.Stderr;
//   - Go's standard logger, which writes to stderr: log.Print…,
//     log.Fatal…, log.Panic…, log.Output, log.Writer, log.Default, and
//     its settings (SetOutput, SetFlags, SetPrefix), a process-wide knob;
//     a log.New logger writes where it is told and is not one;
//   - log/slog, whose default handler is the standard logger;
//   - the builtins print and println;
//   - an http.Server or httputil.ReverseProxy without an ErrorLog, whose
//     error lines would go to the standard logger.

// stderrExceptions are the files or directories (from the module's root)
// that may write to stderr by themselves, each with why. Anything else
// that does is a failure, and an exception that no longer does is stale.
var stderrExceptions = map[string]string{
	"output/": "the notifier itself, and System, which binds the process's stderr to the streams",
	"cmd/root/main.go": "routeStdLog: main's run points Go's standard logger at the notifier (net/http's Transport logs " +
		"through it and has no logger of its own); a process-wide knob that only main's run turns",
	"cmd/gendocs/": "go generate's program that writes the man pages and completions: its own failure, not shakectl's",
	"cmd/clitest/": "test support, imported only by _test.go files (checked below): it gives a test run its streams",
	"bench/":       "benchmark programs (go run ./bench/...), not in the shakectl binary: their own logs and errors",
	"scripts/":     "hostile.sh's server, a program of its own, not in the shakectl binary",
}

// stdLogCalls are the standard logger's functions that write or set it.
var stdLogCalls = map[string]bool{
	"Print": true, "Printf": true, "Println": true, "Fatal": true, "Fatalf": true, "Fatalln": true,
	"Panic": true, "Panicf": true, "Panicln": true, "Output": true, "Writer": true, "Default": true,
	"SetOutput": true, "SetFlags": true, "SetPrefix": true,
}

// stderrWrites lists the writes to stderr in one Go source: "LINE: WHAT".
func stderrWrites(fset *token.FileSet, f *ast.File) []string {
	names := srcscan.ImportNames(f)
	var found []string
	at := func(n ast.Node, what string) {
		found = append(found, strconv.Itoa(fset.Position(n.Pos()).Line)+": "+what)
	}
	for _, imp := range f.Imports {
		if imp.Path.Value == `"log/slog"` {
			at(imp, "imports log/slog")
		}
	}
	pkgOf := func(x ast.Expr) string {
		if id, ok := x.(*ast.Ident); ok {
			return names[id.Name]
		}
		return ""
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			switch pkg := pkgOf(n.X); {
			case n.Sel.Name == "ErrOut" && pkg == "":
				at(n, "ErrOut")
			case n.Sel.Name == "Stderr" && (pkg == "os" || pkg == "syscall"):
				at(n, pkg+".Stderr")
			case pkg == "log" && stdLogCalls[n.Sel.Name]:
				at(n, "log."+n.Sel.Name)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") && id.Obj == nil {
				at(n, id.Name)
			}
		case *ast.CompositeLit:
			sel, ok := n.Type.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg := pkgOf(sel.X)
			if (pkg == "net/http" && sel.Sel.Name == "Server") || (pkg == "net/http/httputil" && sel.Sel.Name == "ReverseProxy") {
				if !hasField(n, "ErrorLog") {
					at(n, sel.Sel.Name+" without an ErrorLog")
				}
			}
		}
		return true
	})
	return found
}

func hasField(lit *ast.CompositeLit, name string) bool {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return true
			}
		}
	}
	return false
}

func stderrExceptionOf(rel string) string {
	for p := range stderrExceptions {
		if rel == p || strings.HasSuffix(p, "/") && strings.HasPrefix(rel, p) {
			return p
		}
	}
	return ""
}

func TestOnlyTheNotifierWritesToStderr(t *testing.T) {
	used := map[string]bool{}
	// cmd/clitest's exception holds while shipped code does not import it.
	const clitest = "github.com/shakenfist/shakectl/cmd/clitest"
	srcscan.Walk(t, []string{".."}, 300, func(f srcscan.File) {
		for _, p := range f.Imports() {
			if p == clitest && !strings.HasPrefix(f.Rel, "cmd/clitest/") {
				t.Errorf("%s imports %s, whose writes to stderr are excepted as test support only", f.Rel, p)
			}
		}
		writes := stderrWrites(f.Fset, f.AST)
		if len(writes) == 0 {
			return
		}
		if p := stderrExceptionOf(f.Rel); p != "" {
			used[p] = true
			return
		}
		for _, w := range writes {
			t.Errorf("%s:%s\n\twrite to stderr through the notifier (IOStreams.Notifier: Note, Warn, Event, Lines, Relay …), "+
				"give a server an ErrorLog from it, or add the path to stderrExceptions with the reason", f.Rel, w)
		}
	})
	for p, why := range stderrExceptions {
		if !used[p] {
			t.Errorf("stderrExceptions[%q] (%s) covers no write to stderr any more: remove it", p, why)
		}
	}
}

// The scan sees every form of a write to stderr, and lets the notifier's
// ways and a logger that writes elsewhere through.
func TestTheStderrScanSeesEveryForm(t *testing.T) {
	src := `package p

import (
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"os"
	"syscall"
)

func f(s *streams, n notifier, w io.Writer) {
	fmt.Fprintln(s.ErrOut, "x")
	fmt.Fprintln(os.Stderr, "x")
	_ = syscall.Stderr
	p := stdlog.Printf
	stdlog.SetOutput(w)
	println("x")
	_ = &http.Server{Handler: nil}
	_ = &httputil.ReverseProxy{}
	_ = slog.Info

	n.Note("event", "x")
	fmt.Fprintln(n.Relay(), "x")
	_ = stdlog.New(w, "", 0)
	_ = &http.Server{ErrorLog: stdlog.New(n.Lines("log"), "", 0)}
	_ = &httputil.ReverseProxy{ErrorLog: nil}
	fmt.Fprintln(os.Stdout, "data")
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"7: imports log/slog",
		"15: ErrOut",
		"16: os.Stderr",
		"17: syscall.Stderr",
		"18: log.Printf",
		"19: log.SetOutput",
		"20: println",
		"21: Server without an ErrorLog",
		"22: ReverseProxy without an ErrorLog",
	}
	got := stderrWrites(fset, f)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the scan found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
