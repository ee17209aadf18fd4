package cmdutil_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// kernelMaxLines bounds the kernel's non-test lines (issue 32, item 4:
// under 2.5k, kept well below so that growth is a decision): what every
// command needs lives here, everything else in a package of its own.
// Issue 40 grew it by the settings' ranges (the range type itself is
// internal/numflag) and the one deadline mapping.
const kernelMaxLines = 2400

// TestKernelStaysThin: cmd/cmdutil keeps only what every command needs and
// imports no feature package: of shakectl's own packages only the leaves
// (internal/*), client, retry and output (and output's own), never cmd/…,
// probe, proxy or sim, so the house reads top to bottom.
func TestKernelStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/shakenfist/shakectl/"
	allowed := []string{"internal/", "client", "retry", "output"}
	lines, seen := 0, 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		seen++
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(src, []byte("\n"))
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rest, ours := strings.CutPrefix(path, module)
			if !ours {
				continue
			}
			ok := false
			for _, a := range allowed {
				if rest == a || strings.HasPrefix(rest, strings.TrimSuffix(a, "/")+"/") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s: the kernel imports only leaves, client, retry and output", name, path)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found %d source files: not the kernel's directory", seen)
	}
	if lines > kernelMaxLines {
		t.Errorf("cmd/cmdutil is %d non-test lines, over %d: move what not every command needs to a package of its own", lines, kernelMaxLines)
	}
}
