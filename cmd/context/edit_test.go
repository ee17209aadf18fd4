package context_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// Issue 28, item 2: ten "context create" run in parallel all exited 0, but
// only five or six contexts were saved. The config file's lock makes every
// one land.
func TestParallelContextCreatesAllSaved(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shakectl", "config.yaml")
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}}
	const n = 10
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			codes[i] = r.Run(t, "context", "create", fmt.Sprintf("ctx-%02d", i), "--api-url", "http://sf/api", "--namespace", "ns").Code
		})
	}
	wg.Wait()
	res := r.Run(t, "context", "list", "-o", "simple")
	for i := range n {
		name := fmt.Sprintf("ctx-%02d", i)
		if codes[i] != 0 || !strings.Contains(res.Stdout, name+"\t") {
			t.Errorf("%s: exit %d; saved contexts:\n%s", name, codes[i], res.Stdout)
		}
	}
}

// The context commands change only what they are asked to: a hand-written
// file keeps its comments, its key order and its other keys.
func TestContextEditsKeepCommentsAndOrder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	const hand = `# shakectl settings, by hand
output: simple # people here like plain rows
timeout: 2m

# clouds
contexts:
  # the lab: no key needed
  lab:
    namespace: lab
    api-url: http://lab:13000/api
  prod:
    api-url: http://prod/api # behind Apache
    namespace: ops
current-context: lab
`
	if err := os.WriteFile(file, []byte(hand), 0o600); err != nil {
		t.Fatal(err)
	}
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}}
	for _, args := range [][]string{
		{"context", "create", "new", "--api-url", "http://new/api", "--namespace", "yes"},
		{"context", "use", "prod"},
		{"context", "delete", "new"},
	} {
		if res := r.Run(t, args...); res.Code != 0 {
			t.Fatal(res)
		}
	}
	got, _ := os.ReadFile(file)
	// Everything but the blank line, which yaml.v3's node tree does not
	// keep.
	want := strings.Replace(strings.Replace(hand, "\n\n", "\n", 1), "current-context: lab", "current-context: prod", 1)
	if string(got) != want {
		t.Errorf("config file after create, use and delete:\n%s\nwant:\n%s", got, want)
	}
	// A new context lands at the end, its values quoted where YAML would
	// misread them.
	if res := r.Run(t, "context", "create", "z", "--api-url", "http://z/api", "--namespace", "yes"); res.Code != 0 {
		t.Fatal(res)
	}
	got, _ = os.ReadFile(file)
	if !strings.HasPrefix(string(got), "# shakectl settings, by hand\noutput: simple # people here like plain rows\n") ||
		!strings.Contains(string(got), "  z:\n    api-url: http://z/api\n    namespace: \"yes\"\n") {
		t.Errorf("after a create:\n%s", got)
	}
}

// A symlinked config (a dotfile manager's) stays a link, and the file it
// points to is the one updated.
func TestSymlinkedConfigStaysALink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "shakectl.yaml")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte("output: json\n"), 0o600)
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": link}}
	if res := r.Run(t, "context", "create", "a", "--api-url", "http://a/api", "--use"); res.Code != 0 {
		t.Fatal(res)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link became a file (%v)", err)
	}
	b, _ := os.ReadFile(real)
	if !strings.Contains(string(b), "output: json\n") || !strings.Contains(string(b), "current-context: a\n") {
		t.Errorf("the linked file holds:\n%s", b)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}
