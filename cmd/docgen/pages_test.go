package docgen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommittedPagesAreFresh fails when a generated table of the manual
// differs from what the code makes now (a setting added, an outcome
// reworded); `go generate ./docs` fixes it. Every generated table is in
// some page.
func TestCommittedPagesAreFresh(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages under docs/: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range pages {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		filled, err := FillPage(filepath.Base(p), raw)
		if err != nil {
			t.Error(err)
			continue
		}
		if !bytes.Equal(raw, filled) {
			t.Errorf("docs/%s has a stale generated table; regenerate with: go generate ./docs", filepath.Base(p))
		}
		for name := range GeneratedTables() {
			if bytes.Contains(raw, []byte("<!-- BEGIN "+name+":")) {
				seen[name] = true
			}
		}
	}
	for name := range GeneratedTables() {
		if !seen[name] {
			t.Errorf("no page of docs/ holds the generated table %q", name)
		}
	}
}

func TestFillPageRewritesTablesAndRefusesUnknownOnes(t *testing.T) {
	page := "# T\n\n<!-- BEGIN checks: made by go generate -->\n| old |\n<!-- END checks -->\n\nAfter.\n"
	got, err := FillPage("t.md", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := "# T\n\n<!-- BEGIN checks: made by go generate -->\n" + GeneratedTables()["checks"] + "<!-- END checks -->\n\nAfter.\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{
		"<!-- BEGIN nosuch: x -->\n<!-- END nosuch -->\n",
		"<!-- BEGIN checks: x -->\n<!-- END outcomes -->\n",
	} {
		if _, err := FillPage("t.md", []byte(bad)); err == nil || !strings.Contains(err.Error(), "t.md") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

func TestWriteDocsRewritesOnlyStalePages(t *testing.T) {
	dir := t.TempDir()
	fresh, _ := FillPage("a.md", []byte("<!-- BEGIN outcomes: x -->\n<!-- END outcomes -->\n"))
	stale := []byte("<!-- BEGIN outcomes: x -->\n| stale |\n<!-- END outcomes -->\n")
	if err := os.WriteFile(filepath.Join(dir, "a.md"), fresh, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.md"), stale, 0o644); err != nil {
		t.Fatal(err)
	}
	// A page written long ago keeps its time unless it is rewritten.
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "a.md"), long, long); err != nil {
		t.Fatal(err)
	}
	if err := WriteDocs(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.md")); !bytes.Equal(b, fresh) {
		t.Errorf("b.md not rewritten:\n%s", b)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a.md")); err != nil || !fi.ModTime().Equal(long) {
		t.Errorf("a fresh page was rewritten: %v", err)
	}
}
