package poll_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// moduleRoot is the repository's top, from this package's directory.
const moduleRoot = "../.."

// waitExempt are the places allowed to sleep or tick in a loop, by the
// function that does (file path from the module's top, then the function
// or method as Recv.Name), each with why it is not a wait for something
// and so not the poll primitive's business. Nothing else may: a command
// that waits goes through builders.Await, a library through poll.Poll.
var waitExempt = map[string]string{
	// The primitive itself.
	"client/poll/poll.go Poll.run": "the one poll loop",

	// parking-probe's clocks are the measurement: its pacer sends on a
	// schedule (timer.Sleeper, the probe's own precise clock) and its
	// sampler reads the run's timeline every second and every step.
	// Neither waits for a state.
	"probe/shape.go openShape.Drive": "the open run's pacer",
	"probe/sampler.go engine.sample": "the timeline's per-second and per-step samples",

	// The simulated router's parked request retries on the real
	// router's schedule (growing delays within the park budget): the
	// behaviour simulated, not a client waiting.
	"sim/router/router.go router.fly": "a parked request's retry schedule",

	// The proxy retries other clients' requests: between attempts it
	// waits what the retry policy's Backoff hook says (Retry-After,
	// clamped), as go-retryablehttp sleeps inside the client's calls. A
	// retry's pause, not a wait for a state; it ends at the client's
	// going away and at shutdown.
	"proxy/": "the proxy's retry backoff",

	// Benchmarks and load programs pace load and let a machine settle on
	// purpose; they are separate programs, never part of a command.
	"bench/": "benchmark and load programs",
}

// exempt reports whether the file/function key is allowed, and marks the
// allowlist entry as used.
func exempt(path, fn string, used map[string]bool) bool {
	for k := range waitExempt {
		file, f, hasFn := strings.Cut(k, " ")
		switch {
		case strings.HasSuffix(file, "/") && strings.HasPrefix(path, file),
			!hasFn && path == file,
			hasFn && path == file && fn == f:
			used[k] = true
			return true
		}
	}
	return false
}

// sleepsOrTicks lists, for one file, the places that wait on a clock in a
// loop: time.Sleep anywhere (a sleep is a wait), and inside a for or range
// loop a new timer or ticker (time.After, NewTimer, NewTicker, Tick,
// AfterFunc), a receive from a timer's or ticker's channel (<-x.C), or a
// Sleep or Reset method (another clock's sleep, a timer re-armed). Each is
// "line function what".
func sleepsOrTicks(fset *token.FileSet, file *ast.File) []string {
	timePkg := ""
	for local, p := range srcscan.ImportNames(file) {
		if p == "time" {
			timePkg = local
		}
	}
	var found []string
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) == 1 {
			recv := fn.Recv.List[0].Type
			for {
				switch r := recv.(type) {
				case *ast.StarExpr:
					recv = r.X
					continue
				case *ast.IndexExpr:
					recv = r.X
					continue
				case *ast.IndexListExpr:
					recv = r.X
					continue
				}
				break
			}
			if id, ok := recv.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		var inspect func(n ast.Node, loops int) bool
		add := func(n ast.Node, what string) {
			found = append(found, strconv.Itoa(fset.Position(n.Pos()).Line)+" "+name+" "+what)
		}
		inspect = func(n ast.Node, loops int) bool {
			switch n := n.(type) {
			case *ast.ForStmt:
				ast.Inspect(n.Body, func(m ast.Node) bool { return m == n.Body || inspect(m, loops+1) })
				return false
			case *ast.RangeStmt:
				ast.Inspect(n.Body, func(m ast.Node) bool { return m == n.Body || inspect(m, loops+1) })
				return false
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, _ := sel.X.(*ast.Ident)
				isTime := pkg != nil && timePkg != "" && pkg.Name == timePkg
				switch {
				case isTime && sel.Sel.Name == "Sleep":
					add(n, "time.Sleep")
				case loops > 0 && isTime && slices.Contains([]string{"After", "NewTimer", "NewTicker", "Tick", "AfterFunc"}, sel.Sel.Name):
					add(n, "time."+sel.Sel.Name+" in a loop")
				case loops > 0 && !isTime && (sel.Sel.Name == "Sleep" || sel.Sel.Name == "Reset") && len(n.Args) >= 1:
					add(n, "."+sel.Sel.Name+" in a loop")
				}
			case *ast.UnaryExpr:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && loops > 0 && n.Op == token.ARROW && sel.Sel.Name == "C" {
					add(n, "<-.C in a loop")
				}
			}
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool { return n == fn.Body || inspect(n, 0) })
	}
	return found
}

// No loop outside the poll primitive sleeps or ticks to wait for
// something: every wait of every command is builders.Await on poll.Poll,
// so that every one ends the same way at its deadline (exit 124, one
// wording) and none forgets Ctrl-C. The few clocks that are not waits
// (the probe's pacer, the simulators' behaviour, benchmarks) are listed
// in waitExempt with why.
func TestNoLoopWaitsOutsideThePoll(t *testing.T) {
	used := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if base := d.Name(); rel != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, f := range sleepsOrTicks(fset, file) {
			line, rest, _ := strings.Cut(f, " ")
			fn, what, _ := strings.Cut(rest, " ")
			if !exempt(rel, fn, used) {
				t.Errorf("%s:%s: %s waits on a clock (%s): wait with client/poll (a command: builders.Await), or say in waitExempt why this is not a wait", rel, line, fn, what)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range waitExempt {
		if !used[k] {
			t.Errorf("waitExempt lists %q, which no longer waits on a clock: remove it", k)
		}
	}
}

// The scan above would notice a loop that waits on a clock, under any
// name for the time package, and lets a single timer or a clock read
// pass.
func TestTheScanSeesALoopThatWaits(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"for !done() { time.Sleep(time.Second) }", []string{"time.Sleep"}},
		{"time.Sleep(time.Second)", []string{"time.Sleep"}},
		{"go func() { time.Sleep(time.Second) }()", []string{"time.Sleep"}},
		{"for { t := time.NewTimer(d); select { case <-t.C: case <-ctx.Done(): return } }", []string{"time.NewTimer in a loop", "<-.C in a loop"}},
		{"t := time.NewTicker(d); for { select { case <-t.C: case <-ctx.Done(): return } }", []string{"<-.C in a loop"}},
		{"for range xs { <-time.After(d) }", []string{"time.After in a loop"}},
		{"for { s.Sleep(ctx, d) }", []string{".Sleep in a loop"}},
		{"var t *time.Timer; for i := 0; i < 3; i++ { t.Reset(d) }", []string{".Reset in a loop"}},
		{"t := time.NewTimer(d); select { case <-t.C: case <-ctx.Done(): }", nil},
		{"time.AfterFunc(d, f)", nil},
		{"for { if time.Now().After(end) { return } }", nil},
		{"for range xs { <-ctx.Done() }", nil},
	} {
		for _, imp := range []string{`"time"`, `clock "time"`} {
			body := tc.body
			if strings.HasPrefix(imp, "clock") {
				body = strings.ReplaceAll(body, "time.", "clock.")
			}
			src := "package p\nimport " + imp + "\nfunc f() {\n" + body + "\n}\n"
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "p.go", src, 0)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			var got []string
			for _, f := range sleepsOrTicks(fset, file) {
				_, what, _ := strings.Cut(strings.SplitN(f, " ", 2)[1], " ")
				got = append(got, what)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("import %s; %s\nfound %q, want %q", imp, body, got, tc.want)
			}
		}
	}
}
