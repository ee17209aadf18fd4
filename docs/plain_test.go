package docs

import (
	"strings"
	"testing"
)

func TestPlainText(t *testing.T) {
	tests := []struct {
		name, md string
		width    int
		want     string
	}{
		{
			"headings lose their hashes and are underlined",
			"# Title\n\nText.\n\n## Part\n\n### Detail\n",
			80,
			"Title\n=====\n\nText.\n\nPart\n----\n\nDetail\n",
		},
		{
			"a paragraph is filled to the width",
			"one two three\nfour five six seven\neight\n",
			21, // a column is left free at the edge
			"one two three four\nfive six seven eight\n",
		},
		{
			"inline code, emphasis, escapes and links",
			"Run `shakectl help`, `x` **now**, *please*: a \\| b; [retry](retry.md).\n",
			80,
			"Run 'shakectl help', x now, please: a | b; \"shakectl help retry\".\n",
		},
		{
			"links",
			"[the exit codes](exit-codes.md#x), [uPlot](https://github.com/leeoniya/uPlot), [`completions/`](../completions/) and [::1].\n",
			200, // filled to 100 columns at most
			"the exit codes (\"shakectl help exit-codes\"), uPlot (https://github.com/leeoniya/uPlot),\ncompletions/ and [::1].\n",
		},
		{
			"a code span across a line break",
			"says `(from environment\nvariable X)` then\n",
			80,
			"says '(from environment variable X)' then\n",
		},
		{
			"list items hang, a block in an item keeps its lines",
			"1. first item that is\n   long enough to wrap\n2. second:\n\n   ```sh\n   a  |  b\n   ```\n\n- dash\n",
			21,
			"1. first item that\n   is long enough to\n   wrap\n2. second:\n\n       a  |  b\n\n- dash\n",
		},
		{
			"a fenced block is indented and kept as written",
			"Before:\n\n```sh\nx --a   # comment *not* emphasis\n```\n\nAfter.\n",
			80,
			"Before:\n\n    x --a   # comment *not* emphasis\n\nAfter.\n",
		},
		{
			"a table that fits is aligned, markers are dropped",
			"<!-- BEGIN t: generated -->\n| a | bb |\n|---|---|\n| `ccc` | d \\| e |\n<!-- END t -->\n",
			80,
			"a    bb\nccc  d | e\n",
		},
		{
			"a short name and a long text: the text filled beside it",
			"| code | meaning |\n|---|---|\n| 0 | success |\n| 124 | a deadline ran out, whatever was waited for |\n",
			29,
			"code  meaning\n0     success\n124   a deadline ran out,\n      whatever was waited\n      for\n",
		},
		{
			"a wide table is a block per row",
			"| name | kind | what |\n|---|---|---|\n| alpha | a | the first of a list long enough |\n| beta | | b |\n",
			30,
			"alpha\n  kind: a\n  what: the first of a list\n    long enough\n\nbeta\n  what: b\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := PlainText(tc.md, tc.width, nil); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestPlainTextBoldReplacesUnderlines(t *testing.T) {
	bold := func(s string) string { return "<" + s + ">" }
	got := PlainText("# Title\n\n**strong**\n\n| a | b |\n|---|---|\n| c | d |\n", 80, bold)
	want := "<Title>\n\n<strong>\n\n<a>  <b>\nc  d\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Every page reads as text: no fence, table rule or heading hash is left
// outside the examples.
func TestEveryPageReadsAsText(t *testing.T) {
	for _, topic := range Topics() {
		page, err := Text(topic)
		if err != nil {
			t.Fatal(err)
		}
		text := PlainText(page, 80, nil)
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "    ") {
				continue // an example, as written
			}
			for _, syntax := range []string{"```", "|---", "## ", "<!--", "](", "**"} {
				if strings.Contains(l, syntax) {
					t.Errorf("%s: %q left in %q", topic.Name, syntax, l)
				}
			}
		}
	}
}
