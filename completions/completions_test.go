package completions

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/docgen"
)

// TestCommittedScriptsAreFresh fails when a committed script differs from
// what the current command tree generates; `go generate ./...` fixes it.
func TestCommittedScriptsAreFresh(t *testing.T) {
	want, err := docgen.Completions(docgen.Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range docgen.CompletionFiles {
		got, err := os.ReadFile(cf.Name)
		if err != nil {
			t.Errorf("%s: %v (run: go generate ./...)", cf.Name, err)
			continue
		}
		if !bytes.Equal(got, want[cf.Name]) {
			t.Errorf("%s is stale: it differs from `shakectl completion %s` at line %d; regenerate with: go generate ./...",
				cf.Name, cf.Shell, firstDifferentLine(got, want[cf.Name]))
		}
	}
}

// The scripts must not depend on who generated them or where.
func TestScriptsAreMachineIndependent(t *testing.T) {
	scripts, err := docgen.Completions(docgen.Root())
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	for name, s := range scripts {
		for _, leak := range []string{wd, home, os.TempDir()} {
			if leak != "" && leak != "/" && bytes.Contains(s, []byte(leak)) {
				t.Errorf("%s contains the machine path %q", name, leak)
			}
		}
		if !bytes.Contains(s, []byte("shakectl")) {
			t.Errorf("%s does not name shakectl", name)
		}
	}
}

func firstDifferentLine(a, b []byte) int {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
