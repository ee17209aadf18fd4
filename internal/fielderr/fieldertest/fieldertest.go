// Package fieldertest helps a command's tests check its field→flag table
// against the library whose field errors it renders.
package fieldertest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// SourceFields lists the {Field} placeholders in the string literals of
// the non-test Go files of dir (a library's package), with where each is,
// so a command's test can check that its table names every field the
// library's messages use.
func SourceFields(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			fielderr.Placeholders(s, func(field string) string {
				if _, seen := fields[field]; !seen {
					fields[field] = fset.Position(lit.Pos()).String()
				}
				return ""
			})
			return true
		})
	}
	return fields, nil
}

// EveryFieldNamed fails t for each {Field} placeholder in the sources of
// the library packages dirs that name does not render, and when fewer than
// least placeholders are found (the scan must still see the messages).
func EveryFieldNamed(t *testing.T, name func(field string) string, least int, dirs ...string) {
	t.Helper()
	n := 0
	for _, dir := range dirs {
		fields, err := SourceFields(dir)
		if err != nil {
			t.Fatal(err)
		}
		for field, where := range fields {
			n++
			if name(field) == "" {
				t.Errorf("%s: {%s} has no flag in the command's table", where, field)
			}
		}
	}
	if n < least {
		t.Errorf("found only %d placeholders in %v; is the scan still right?", n, dirs)
	}
}
