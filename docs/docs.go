// Package docs is shakectl's manual by topic: the Markdown pages in this
// directory, read on GitHub as they are and built into the binary, so that
// `shakectl help TOPIC` prints the same text (and the release's man pages
// carry it). README.md is the front door that links to each.
//
// Some pages hold tables generated from the code (the settings, the
// probe's outcomes and checks) between BEGIN and END markers; regenerate
// them with
//
//	go generate ./docs
//
// and a test fails while they are stale.
package docs

import (
	"embed"
	"io/fs"
)

//go:generate go run github.com/shakenfist/shakectl/cmd/gendocs -docs .

//go:embed *.md
var pages embed.FS

// FS holds the pages, by file name.
func FS() fs.FS { return pages }

// Topic is one page of the manual, as `shakectl help` lists it.
type Topic struct {
	Name  string // shakectl help NAME; never a command's name
	File  string // the page in this directory
	Short string // the line `shakectl help` shows beside the name
}

// Topics are the pages in the order `shakectl help` lists them: every
// page of the directory is one (a test checks).
func Topics() []Topic {
	return []Topic{
		{"cloud", "cloud.md", "Talking to a Shakenfist cloud: the API URL, a pipeline, waits and the agent"},
		{"retry", "retry.md", "Capacity refusals (507), exit 69 and 75, and --retry-transient-capacity"},
		{"proxy-and-wrap", "proxy-and-wrap.md", "Giving sf-client, Terraform or any client the retry; the capacity gate"},
		{"operating", "operating.md", "Operating a cluster: namespaces, keys, claims, delete-all"},
		{"output", "output.md", "Output formats, --jq, messages on stderr, and the files shakectl writes"},
		{"configuration", "configuration.md", "Where settings come from, and in which order"},
		{"exit-codes", "exit-codes.md", "What shakectl's exit status means"},
		{"request-parking", "request-parking.md", "Load-testing the router's request parking with parking-probe"},
		{"simulators", "simulators.md", "sim cluster and sim router, and where they differ from the real servers"},
		{"shell-completion", "shell-completion.md", "Completion for bash, zsh, fish and PowerShell; the man pages"},
		{"generations", "shakenfist-generations.md", "The Shakenfist server generations shakectl speaks, and what differs"},
		{"sf-client", "sf-client-commands.md", "Every sf-client command and the shakectl command that does the same"},
	}
}

// TopicOfPage is the topic whose page is file ("retry.md").
func TopicOfPage(file string) (Topic, bool) {
	return topicWhere(func(t Topic) bool { return t.File == file })
}

// TopicNamed is the topic called name ("retry").
func TopicNamed(name string) (Topic, bool) {
	return topicWhere(func(t Topic) bool { return t.Name == name })
}

func topicWhere(match func(Topic) bool) (Topic, bool) {
	for _, t := range Topics() {
		if match(t) {
			return t, true
		}
	}
	return Topic{}, false
}

// Text is a topic's page.
func Text(t Topic) (string, error) {
	b, err := fs.ReadFile(pages, t.File)
	return string(b), err
}
