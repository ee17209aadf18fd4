// Package fieldertest helps a command's tests check its field→flag table
// against the library whose field errors it renders.
package fieldertest

import (
	"go/ast"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/srcscan"
)

// SourceFields lists the {Field} placeholders in the string literals of
// the non-test Go files of dir (a library's package, not its
// subpackages), with where each is, so a command's test can check that
// its table names every field the library's messages use.
func SourceFields(t testing.TB, dir string) map[string]string {
	fields := map[string]string{}
	srcscan.Walk(t, []string{dir}, 1, func(f srcscan.File) {
		if strings.Contains(f.Rel, "/") {
			return
		}
		f.Strings(func(lit *ast.BasicLit, s string) {
			fielderr.Placeholders(s, func(field string) string {
				if _, seen := fields[field]; !seen {
					fields[field] = f.Pos(lit)
				}
				return ""
			})
		})
	})
	return fields
}

// EveryFieldNamed fails t for each {Field} placeholder in the sources of
// the library packages dirs that name does not render, and when fewer than
// least placeholders are found (the scan must still see the messages).
func EveryFieldNamed(t *testing.T, name func(field string) string, least int, dirs ...string) {
	t.Helper()
	n := 0
	for _, dir := range dirs {
		for field, where := range SourceFields(t, dir) {
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
