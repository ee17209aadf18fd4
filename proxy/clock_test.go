package proxy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The proxy has one clock, Options.Now: the retry loop, the capacity gate
// (handed it by New) and the lines they write read the time from it, so a
// window, a budget and a round trip are all measured alike. No source of
// the proxy or its gate reads the time package's clock itself (its timers
// are fine: they count a duration, not a moment).
func TestOneClock(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	gateFiles, _ := filepath.Glob(filepath.Join("gate", "*.go"))
	files = append(files, gateFiles...)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The one place the time package's clock is named: the default
		// of Options.Now (o.Now = time.Now).
		allowed := map[token.Pos]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
				if lhs, ok := as.Lhs[0].(*ast.SelectorExpr); ok && lhs.Sel.Name == "Now" {
					allowed[as.Rhs[0].Pos()] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || allowed[sel.Pos()] {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "time" && (sel.Sel.Name == "Now" || sel.Sel.Name == "Since" || sel.Sel.Name == "Until") {
				t.Errorf("%s: time.%s: read the proxy's clock (Options.Now) instead", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if len(files) < 3 {
		t.Fatalf("scanned only %v", files)
	}
}
