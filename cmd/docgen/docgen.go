// Package docgen writes the files shakectl ships besides its binary: the
// shell completion scripts committed under completions/, and the man pages
// the release builds. Both come from the real command tree, so they cannot
// describe commands or flags that do not exist.
package docgen

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/completion"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/docs"
	"github.com/shakenfist/shakectl/output"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// CompletionFile is one committed completion script.
type CompletionFile struct {
	Name  string // file name under completions/
	Shell string // argument of `shakectl completion`
}

// CompletionFiles are the scripts under completions/, named as each shell's
// completion loader expects them (zsh wants "_shakectl").
var CompletionFiles = []CompletionFile{
	{Name: "shakectl.bash", Shell: "bash"},
	{Name: "_shakectl", Shell: "zsh"},
	{Name: "shakectl.fish", Shell: "fish"},
	{Name: "shakectl.ps1", Shell: "powershell"},
}

// Root builds shakectl's command tree as a user would get it, with streams
// that go nowhere and an empty environment, so nothing about the machine
// running the generator leaks into what it writes.
func Root() *cobra.Command {
	f := &cmdutil.Factory{
		IOStreams: &output.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Build:     cmdutil.BuildInfo{Version: "dev"},
		Getenv:    func(string) (string, bool) { return "", false },
		Now:       func() time.Time { return time.Unix(0, 0).UTC() },
	}
	return root.NewCmdRoot(f)
}

// Completions returns each completion script by file name, exactly as
// `shakectl completion SHELL` prints it.
func Completions(root *cobra.Command) (map[string][]byte, error) {
	scripts := make(map[string][]byte, len(CompletionFiles))
	for _, cf := range CompletionFiles {
		var b bytes.Buffer
		if err := completion.WriteCompletion(root, cf.Shell, false, &b); err != nil {
			return nil, fmt.Errorf("%s completion: %w", cf.Shell, err)
		}
		scripts[cf.Name] = b.Bytes()
	}
	return scripts, nil
}

// WriteCompletions writes the completion scripts into dir, rewriting a file
// only when its content changed.
func WriteCompletions(root *cobra.Command, dir string) error {
	scripts, err := Completions(root)
	if err != nil {
		return err
	}
	for _, cf := range CompletionFiles {
		path := filepath.Join(dir, cf.Name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, scripts[cf.Name]) {
			continue
		}
		if err := os.WriteFile(path, scripts[cf.Name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ManOptions says how the man pages are made.
type ManOptions struct {
	// Date goes in every page's header. It must be fixed (the commit date,
	// SOURCE_DATE_EPOCH) so that two builds of one commit are identical.
	Date time.Time
	// Version names the release in the header's source field.
	Version string
	// Gzip writes NAME.1.gz instead of NAME.1, as Debian and RPM install
	// them; the gzip header carries no name and no time.
	Gzip bool
}

// WriteManPages writes one section-1 page per command into dir (created if
// needed), after removing the pages of an earlier run so a renamed command
// leaves no stale page behind. Help topics (shakectl help exit-codes) are
// hidden from the command list but get a page of their own: scripts' authors
// look for exit codes in man pages.
func WriteManPages(root *cobra.Command, dir string, o ManOptions) error {
	if o.Date.IsZero() {
		return fmt.Errorf("man pages need a fixed date (the commit date) to be reproducible")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, pattern := range []string{"*.1", "*.1.gz"} {
		old, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	// The help topics are the manual's pages (docs/), Markdown already:
	// each gets a page of its own, its title the page's name.
	topics := map[*cobra.Command]bool{}
	for _, c := range root.Commands() {
		if c.Hidden && !c.HasSubCommands() && !strings.HasPrefix(c.Name(), "__") {
			page, err := topicPage(c.Name())
			if err != nil {
				return err
			}
			c.Hidden = false
			c.DisableFlagsInUseLine = true
			c.Long = manTopic(page)
			topics[c] = true
		}
	}
	visit(root, func(c *cobra.Command) {
		if !topics[c] {
			c.Long = textToMarkdown(c.Long)
		}
	})
	addManSections(root)
	root.DisableAutoGenTag = true
	date := o.Date.UTC()
	source := "shakectl"
	if o.Version != "" {
		source += " " + o.Version
	}
	header := &doc.GenManHeader{Section: "1", Date: &date, Source: source, Manual: "shakectl manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return err
	}
	if o.Gzip {
		pages, err := filepath.Glob(filepath.Join(dir, "*.1"))
		if err != nil {
			return err
		}
		for _, p := range pages {
			if err := gzipFile(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// gzipFile replaces path by path.gz, deterministically: no file name and no
// modification time in the header.
func gzipFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(raw); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(path+".gz", b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Remove(path)
}

// topicPage is the manual's page of the help topic name (a help topic's
// command reads its page only when it prints it).
func topicPage(name string) (string, error) {
	if t, ok := docs.TopicNamed(name); ok {
		return docs.Text(t)
	}
	return "", fmt.Errorf("the hidden command %s is no help topic of docs", name)
}

// topicLink is a link to another page of the manual.
var topicLink = regexp.MustCompile(`\[([^\]]+)\]\(([a-z-]+\.md)(#[^)]*)?\)`)

// manLink names the man page of the topic a link points at, as man pages
// refer to each other: "retry (shakectl-retry(1))".
func manLink(link string) string {
	m := topicLink.FindStringSubmatch(link)
	if t, ok := docs.TopicOfPage(m[2]); ok {
		return m[1] + " (shakectl-" + t.Name + "(1))"
	}
	return link
}

// manWidth is the width of a man page's text at man's default 80 columns,
// less its indent.
const manWidth = 72

// manTopic makes a page of the manual the DESCRIPTION of its man page:
// its title (the page's first heading) is the man page's NAME line
// already, so it goes, and a "## Section" becomes a "###", which md2man
// makes a subsection (.SS) under DESCRIPTION where a "##" would be a
// section (.SH) of its own. The generated tables' markers are not for
// readers.
func manTopic(page string) string {
	var b strings.Builder
	lines := strings.Split(page, "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "# ") {
		lines = lines[1:]
	}
	fence := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "```"):
			fence = !fence
		case !fence && strings.HasPrefix(strings.TrimSpace(l), "<!--"):
			continue
		case !fence && strings.HasPrefix(l, "## "):
			l = "#" + l
		case !fence && strings.HasPrefix(l, "|"):
			// md2man's tables are as wide as their longest cell, past
			// the terminal's edge; the table as the terminal shows it
			// (docs.PlainText) is a preformatted block instead.
			var table []string
			for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				table = append(table, lines[i])
			}
			i--
			l = "```\n" + strings.TrimRight(docs.PlainText(strings.Join(table, "\n"), manWidth, nil), "\n") + "\n```"
		}
		if !fence {
			l = topicLink.ReplaceAllStringFunc(l, manLink)
		}
		b.WriteString(l + "\n")
	}
	return strings.TrimLeft(strings.TrimRight(b.String(), "\n"), "\n") + "\n"
}

func visit(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		visit(sub, fn)
	}
}

// textToMarkdown turns a help text written for a terminal into the Markdown
// that Cobra's man page generator expects. Indented lines (command examples,
// tables) become preformatted blocks, which man then shows line by line as
// written, instead of folding them into the paragraph around them; prose
// gets its Markdown punctuation escaped, so SHAKECTL_<FLAG> stays literal.
func textToMarkdown(text string) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	inBlock := false
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, line := range lines {
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		blank := strings.TrimSpace(line) == ""
		switch {
		case indented && !blank:
			if !inBlock {
				if i > 0 && strings.TrimSpace(lines[i-1]) != "" {
					b.WriteString("\n")
				}
				inBlock = true
			}
			b.WriteString("    " + strings.TrimPrefix(strings.TrimPrefix(line, "  "), "\t") + "\n")
		case blank:
			// Markdown keeps a block going across a blank line when the
			// next line is indented again.
			inBlock = false
			b.WriteString("\n")
		default:
			if inBlock {
				b.WriteString("\n")
				inBlock = false
			}
			b.WriteString(escapeMarkdown(line) + "\n")
		}
	}
	return b.String()
}

var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `<`, `\<`, `>`, `\>`, `[`, `\[`, `]`, `\]`, `#`, `\#`,
)

func escapeMarkdown(s string) string { return markdownEscaper.Replace(s) }

// manEnvironment and manFiles are the shakectl(1) page's ENVIRONMENT and
// FILES sections; "shakectl help configuration" says the same for the
// terminal.
const manEnvironment = `SHAKENFIST_API_URL, SHAKENFIST_NAMESPACE, SHAKENFIST_KEY, SHAKENFIST_ASYNC
: sf-client's variables: the API URL, namespace, key and async mode.

SHAKECTL_<FLAG>
: any global flag, e.g. SHAKECTL_OUTPUT=json, SHAKECTL_TIMEOUT=2m; SHAKECTL_API_URL beats SHAKENFIST_API_URL.

SHAKECTL_CONFIG
: the config file to read instead of the default.

XDG_CONFIG_HOME
: where the default config file lives.

NO_COLOR, CLICOLOR_FORCE
: never colour, or colour even when piped.

Precedence, highest first: flags, environment, the config file, sf-client's files, defaults.
`

const manFiles = `$XDG_CONFIG_HOME/shakectl/config.yaml (default ~/.config/shakectl/config.yaml)
: YAML, keys named as the global flags; keep it mode 600 when it holds a key.

~/.shakenfist, /etc/sf/shakenfist.json
: sf-client's JSON files (apiurl, namespace, key); the first found is used whole.
`

// addManSections gives shakectl(1) the ENVIRONMENT, FILES and EXIT STATUS
// sections a man page reader looks for, and every other page a pointer to
// them. The exit status text is the exit-codes help topic's.
func addManSections(root *cobra.Command) {
	exit := "See shakectl(1) and shakectl-exit-codes(1).\n"
	if topic, _, err := root.Find([]string{"exit-codes"}); err == nil && topic != root {
		exit = topic.Long
	}
	root.Long += "\n# ENVIRONMENT\n\n" + escapeMarkdown(manEnvironment) +
		"\n# FILES\n\n" + escapeMarkdown(manFiles) +
		"\n# EXIT STATUS\n\n" + exit
	for _, c := range root.Commands() {
		visit(c, func(c *cobra.Command) {
			if c.Runnable() && c.Name() != "exit-codes" {
				c.Long += "\n# EXIT STATUS\n\nSee shakectl-exit-codes(1). Environment and files: see shakectl(1).\n"
			}
		})
	}
}
