package main

import (
	"bufio"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// issueRef is a reference to one of this project's issues: "issue 40",
// "(issue 34, item 13)", "Issue 35's", "issues 28 and 33", "issue #12".
// An upstream project's issue or pull request is written as its source
// names it, owner/repo#N, substrate#N, PR #N, and is not matched.
var issueRef = regexp.MustCompile(`(?i)\bissues?\s+#?\d+`)

// Code says why it is as it is in words its reader has: an issue number
// means nothing without the tracker, and the tracker's link lives in the
// commit that made the change and in SOURCES.md. Every non-test Go file,
// its comments and its strings, is held to that, bench/ and scripts/ too,
// and so are the comments of the shell scripts CI and the benchmarks run.
// Tests may name the issue whose report they answer: that ties a test to
// its reason and is read beside the tracker.
func TestNoIssueNumbersInCode(t *testing.T) {
	found := func(where, text string) {
		if m := issueRef.FindString(text); m != "" {
			t.Errorf("%s: %q names this project's issue tracker: say why in words (an upstream issue is owner/repo#N)", where, m)
		}
	}
	srcscan.Walk(t, []string{"."}, 300, func(f srcscan.File) {
		f.Comments(func(c *ast.CommentGroup, text string) { found(f.Pos(c), text) })
		f.Strings(func(lit *ast.BasicLit, s string) { found(f.Pos(lit), s) })
	})
	var scripts []string
	for _, glob := range []string{"scripts/*.sh", "bench/*.sh", ".ci/run"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, m...)
	}
	if len(scripts) < 10 {
		t.Fatalf("found %d shell scripts, fewer than 10: is the scan still right?", len(scripts))
	}
	for _, path := range scripts {
		shellComments(t, path, found)
	}
}

// shellComments calls visit with each run of whole-line # comments of the
// script at path, joined as srcscan joins a Go comment group.
func shellComments(t *testing.T, path string, visit func(where, text string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var run []string
	start, n := 0, 0
	flush := func() {
		if len(run) > 0 {
			visit(path+":"+strconv.Itoa(start), strings.Join(strings.Fields(strings.Join(run, " ")), " "))
		}
		run = nil
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "#!") {
			if run == nil {
				start = n
			}
			run = append(run, strings.TrimLeft(line, "#"))
			continue
		}
		flush()
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
