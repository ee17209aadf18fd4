package docgen

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/docs"
)

var releaseDate = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// wantPages lists the page every available command of the tree should get,
// so a command added later is covered without editing this test.
func wantPages(root *cobra.Command) []string {
	var pages []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		pages = append(pages, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
	return pages
}

func TestManPagesOnePerCommandPlusTopics(t *testing.T) {
	dir := t.TempDir()
	if err := WriteManPages(Root(), dir, ManOptions{Date: releaseDate, Version: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	want := wantPages(Root())
	for _, topic := range docs.Topics() {
		want = append(want, "shakectl-"+topic.Name+".1")
	}
	sort.Strings(want)
	got := dirNames(t, dir)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("pages\n%v\nwant\n%v", got, want)
	}
	for _, must := range []string{"shakectl.1", "shakectl-version.1", "shakectl-completion.1", "shakectl-exit-codes.1", "shakectl-proxy.1", "shakectl-wrap.1"} {
		if !contains(got, must) {
			t.Errorf("no %s", must)
		}
	}
	page := read(t, filepath.Join(dir, "shakectl-version.1"))
	if !strings.Contains(page, `.TH "SHAKECTL-VERSION" "1" "Mar 2026" "shakectl 1.2.3" "shakectl manual"`) {
		t.Errorf("header does not carry the fixed date and version:\n%s", firstLines(page, 3))
	}
	if strings.Contains(page, "Auto generated") {
		t.Error("page carries cobra's generation stamp, which would change with the build day")
	}
}

func TestManPagesKeepExamplesAndTablesVerbatim(t *testing.T) {
	dir := t.TempDir()
	if err := WriteManPages(Root(), dir, ManOptions{Date: releaseDate}); err != nil {
		t.Fatal(err)
	}
	topic := read(t, filepath.Join(dir, "shakectl-exit-codes.1"))
	// The page of the manual: its table a preformatted block, one code
	// per line as the terminal shows it (md2man's own tables run past
	// the edge of the screen), its example kept line by line.
	block := between(topic, ".EX\n", ".EE")
	for _, line := range []string{"0     success", "75    transient capacity refusal", "130   interrupted"} {
		if !strings.Contains(block, "\n"+line) && !strings.HasPrefix(block, line) {
			t.Errorf("exit-codes page: %q is not a line of a preformatted block:\n%s", line, topic)
		}
	}
	if !strings.Contains(topic, "\ncase $? in\n") {
		t.Errorf("exit-codes page folds its example:\n%s", topic)
	}
	for _, markdown := range []string{"```", "|---", "<!--", "](retry.md)"} {
		if strings.Contains(topic, markdown) {
			t.Errorf("exit-codes page shows Markdown %q:\n%s", markdown, topic)
		}
	}
	if !strings.Contains(topic, "shakectl-retry(1)") {
		t.Errorf("exit-codes page's link to retry.md does not name shakectl-retry(1):\n%s", topic)
	}
	if !strings.Contains(topic, `\fBshakectl exit-codes\fP`) {
		t.Errorf("exit-codes synopsis:\n%s", firstLines(topic, 12))
	}
	// A page's sections are subsections of its DESCRIPTION.
	parking := read(t, filepath.Join(dir, "shakectl-request-parking.1"))
	if !strings.Contains(parking, ".SS Outcomes and checks") || strings.Contains(parking, ".SH Outcomes") {
		t.Errorf("request-parking page's sections:\n%s", firstLines(parking, 30))
	}
	comp := read(t, filepath.Join(dir, "shakectl-completion.1"))
	if !strings.Contains(comp, "\nsource <(shakectl completion bash)\n") {
		t.Error("completion page folds the bash example into a paragraph")
	}
	root := read(t, filepath.Join(dir, "shakectl.1"))
	if !strings.Contains(root, "SHAKECTL_<FLAG>") {
		t.Error("root page lost the literal SHAKECTL_<FLAG> (Markdown ate it)")
	}
}

func TestManPagesReproducibleAndGzipped(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := WriteManPages(Root(), dir, ManOptions{Date: releaseDate, Version: "1.2.3", Gzip: true}); err != nil {
			t.Fatal(err)
		}
	}
	names := dirNames(t, a)
	if len(names) == 0 {
		t.Fatal("no pages")
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".1.gz") {
			t.Errorf("%s is not a gzipped page", n)
			continue
		}
		x, y := readBytes(t, filepath.Join(a, n)), readBytes(t, filepath.Join(b, n))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", n)
		}
		zr, err := gzip.NewReader(bytes.NewReader(x))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if zr.Name != "" || !zr.ModTime.IsZero() {
			t.Errorf("%s: gzip header has name %q, time %v", n, zr.Name, zr.ModTime)
		}
		page, err := io.ReadAll(zr)
		if err != nil || !bytes.HasPrefix(page, []byte(".nh\n.TH ")) {
			t.Errorf("%s does not decompress to a man page: %v", n, err)
		}
	}
}

func TestManPagesReplaceAnEarlierRun(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "shakectl-renamed.1")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "README")
	if err := os.WriteFile(keep, []byte("not a page"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteManPages(Root(), dir, ManOptions{Date: releaseDate, Gzip: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("a page of an earlier run survived")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Error("a file that is no man page was removed")
	}
}

func TestManPagesNeedADate(t *testing.T) {
	if err := WriteManPages(Root(), t.TempDir(), ManOptions{}); err == nil {
		t.Error("no error without a date: the pages would carry the build day")
	}
}

func TestCompletionsForEveryShellNameTheCommands(t *testing.T) {
	scripts, err := Completions(Root())
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) != 4 {
		t.Fatalf("%d scripts", len(scripts))
	}
	for _, cf := range CompletionFiles {
		s := string(scripts[cf.Name])
		if len(s) < 1000 || !strings.Contains(s, "shakectl") || !strings.Contains(s, "__complete") {
			t.Errorf("%s (%s): %d bytes, not a shakectl completion script", cf.Name, cf.Shell, len(s))
		}
	}
}

func TestWriteCompletionsLeavesUnchangedFilesAlone(t *testing.T) {
	dir := t.TempDir()
	if err := WriteCompletions(Root(), dir); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1_000_000_000, 0)
	for _, cf := range CompletionFiles {
		if err := os.Chtimes(filepath.Join(dir, cf.Name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteCompletions(Root(), dir); err != nil {
		t.Fatal(err)
	}
	for _, cf := range CompletionFiles {
		st, err := os.Stat(filepath.Join(dir, cf.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(old) {
			t.Errorf("%s was rewritten although unchanged", cf.Name)
		}
	}
}

func TestTextToMarkdown(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"prose is escaped", "Set SHAKECTL_<FLAG> or *not*.", "Set SHAKECTL\\_\\<FLAG\\> or \\*not\\*.\n"},
		{
			"indented lines become one block",
			"Load it:\n  source <(x)\n\n  # more\n  x > y\nDone.",
			"Load it:\n\n    source <(x)\n\n    # more\n    x > y\n\nDone.\n",
		},
		{"deeper indentation is kept", "T:\n  a\n       b", "T:\n\n    a\n         b\n"},
		{"tab indentation", "T:\n\tcmd", "T:\n\n    cmd\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textToMarkdown(tt.in); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func read(t *testing.T, path string) string { return string(readBytes(t, path)) }

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func between(s, start, end string) string {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, end)
	return before
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shakectl(1) carries the sections a man reader looks for; every command's
// page points at the exit status.
func TestManPagesHaveEnvironmentFilesAndExitStatus(t *testing.T) {
	dir := t.TempDir()
	if err := WriteManPages(Root(), dir, ManOptions{Date: releaseDate, Version: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(dir, "shakectl.1"))
	for _, want := range []string{".SH ENVIRONMENT", "SHAKENFIST_API_URL", ".SH FILES", "config.yaml", ".SH EXIT STATUS", "124"} {
		if !strings.Contains(page, want) {
			t.Errorf("shakectl.1 lacks %q", want)
		}
	}
	if sub := read(t, filepath.Join(dir, "shakectl-instance-create.1")); !strings.Contains(sub, ".SH EXIT STATUS") || !strings.Contains(sub, "shakectl\\-instance\\-create") && !strings.Contains(sub, "NAME CPUS MEMORY") {
		t.Errorf("instance create page lacks EXIT STATUS or a real synopsis:\n%s", sub)
	}
}
