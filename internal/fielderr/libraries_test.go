package fielderr

import (
	"go/ast"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// flagLiteral is a command-line flag inside a string: "--rate", "(--jq",
// "use --addressing"; not "---" or "a--b".
var flagLiteral = regexp.MustCompile(`(^|[^\w-])--[a-z][a-z0-9-]*`)

// otherPrograms are the flags of the systems shakectl talks to, which a
// library names as that system's own: the probe's report tells a router's
// operator which of the router's settings to change (the atenet router's
// --extproc-max-requests, 6210ad86 and later), and no command of shakectl
// has a flag that could stand in for it. Any flag of shakectl's own in a
// library fails.
var otherPrograms = map[string]string{
	"--extproc-max-requests": "probe/report/checks.go",
}

// Libraries say what is wrong with a field ({Rate}), not with a flag:
// only the command layer knows flags (a command's flagtable.Table, the
// kernel's libraryOptionName render them). The
// libraries' sources are scanned for string literals naming a flag.
func TestLibrariesNameFieldsNotFlags(t *testing.T) {
	libs := []string{"client", "proxy", "probe", "sim", "retry", "output"}
	roots := make([]string, len(libs))
	for i, l := range libs {
		roots[i] = "../../" + l
	}
	seen := map[string]bool{}
	srcscan.Walk(t, roots, 100, func(f srcscan.File) {
		rel, _ := filepath.Rel("../..", f.Path)
		rel = filepath.ToSlash(rel)
		f.Strings(func(lit *ast.BasicLit, s string) {
			for _, m := range flagLiteral.FindAllStringSubmatch(s, -1) {
				flag := strings.TrimPrefix(m[0], m[1])
				if otherPrograms[flag] == rel {
					seen[flag] = true
					continue
				}
				t.Errorf("%s: %q names a flag %s: name the option's field ({Field}, internal/fielderr) and let the command render its flag",
					f.Pos(lit), s, flag)
			}
		})
	})
	for flag, file := range otherPrograms {
		if !seen[flag] {
			t.Errorf("%s no longer names %s: drop it from otherPrograms", file, flag)
		}
	}
}
