package main

import (
	"go/ast"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// A count's noun is made plural one way, go-humanize's
// english.PluralWord: no source writes its own plural helper (four did,
// two ways).
func TestOnePluralHelper(t *testing.T) {
	srcscan.Walk(t, []string{"."}, 200, func(f srcscan.File) {
		for _, decl := range f.AST.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && strings.Contains(strings.ToLower(fn.Name.Name), "plural") {
				t.Errorf("%s: %s: use english.PluralWord", f.Pos(fn), fn.Name.Name)
			}
		}
	})
}
