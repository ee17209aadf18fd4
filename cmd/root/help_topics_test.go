package root_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/docs"
)

// The manual (docs/*.md) and `shakectl help` are one text: every page is a
// help topic, listed by `shakectl help` and printed byte for byte by
// `shakectl help NAME` (and `shakectl NAME --help`) to a pipe; no page is
// left out of the list, no topic is shadowed by a command of its name, and
// README, the front door, links to every page.
func TestHelpTopicsAreTheManual(t *testing.T) {
	onDisk, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(onDisk) == 0 {
		t.Fatalf("no pages under docs/: %v", err)
	}
	listed := clitest.CmdRun{}.Run(t, "help")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	tree := newTree(t)
	var files, names []string
	for _, topic := range docs.Topics() {
		files = append(files, topic.File)
		if slices.Contains(names, topic.Name) {
			t.Errorf("two topics are named %s", topic.Name)
		}
		names = append(names, topic.Name)
		page, err := os.ReadFile(filepath.Join("..", "..", "docs", topic.File))
		if err != nil {
			t.Errorf("topic %s: %v", topic.Name, err)
			continue
		}
		for _, args := range [][]string{{"help", topic.Name}, {topic.Name, "--help"}} {
			if res := (clitest.CmdRun{}).Run(t, args...); res.Code != 0 || res.Stdout != string(page) || res.Stderr != "" {
				t.Errorf("shakectl %s is not docs/%s:\n%s", strings.Join(args, " "), topic.File, firstLinesOf(res.String(), 8))
			}
		}
		if !strings.Contains(listed.Stdout, "\n  "+topic.Name+" ") || !strings.Contains(listed.Stdout, topic.Short) {
			t.Errorf("shakectl help does not list %s (%q):\n%s", topic.Name, topic.Short, listed.Stdout)
		}
		if !strings.Contains(string(readme), "](docs/"+topic.File+")") {
			t.Errorf("README.md does not link to docs/%s", topic.File)
		}
		// A command (or an alias) of the topic's name would be found
		// first: the page could never be printed.
		for _, c := range tree.Commands() {
			if c.Annotations["shakectl/topic"] == "" && (c.Name() == topic.Name || c.HasAlias(topic.Name)) {
				t.Errorf("topic %s has the name of the command %s", topic.Name, c.CommandPath())
			}
		}
	}
	for _, p := range onDisk {
		if !slices.Contains(files, filepath.Base(p)) {
			t.Errorf("docs/%s is no help topic: add it to docs.Topics", filepath.Base(p))
		}
	}
	if len(files) != len(onDisk) {
		t.Errorf("docs.Topics names %d pages, docs/ holds %d", len(files), len(onDisk))
	}
}

// On a terminal a page is read as text: no Markdown syntax is left (no
// fences, hashes, table rules or backticks), and every heading and every
// command of its examples are still there.
func TestHelpTopicOnATerminalIsText(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "exit-codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	res := clitest.CmdRun{Tty: true, Width: 80}.Run(t, "help", "exit-codes")
	if res.Code != 0 || res.Stdout != docs.PlainText(string(page), 80, nil) {
		t.Fatalf("help exit-codes on a terminal is not the page as text:\n%s", res)
	}
	for _, syntax := range []string{"```", "|---", "# ", "`"} {
		if strings.Contains(res.Stdout, syntax) {
			t.Errorf("help exit-codes on a terminal shows Markdown %q:\n%s", syntax, res.Stdout)
		}
	}
	for _, want := range []string{"Exit codes\n==========\n", "\n124   a deadline ran out: --timeout", "\n    case $? in\n"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("help exit-codes on a terminal lacks %q:\n%s", want, res.Stdout)
		}
	}
	// A link to another page names the topic that prints it.
	if !strings.Contains(strings.Join(strings.Fields(res.Stdout), " "), `is in "shakectl help retry".`) {
		t.Errorf("the link to retry.md does not name its topic:\n%s", res.Stdout)
	}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("a line wider than the terminal: %q", l)
		}
	}
}

func firstLinesOf(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
