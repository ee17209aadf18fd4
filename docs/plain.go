package docs

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/shakenfist/shakectl/internal/textwrap"
)

// PlainText turns a page of the manual into text for a terminal (or a man
// page's preformatted block), width columns wide (80 when 0); bold, when
// not nil, makes headings and table headers stand out (with colour). The
// pages are plain Markdown (headings, paragraphs, lists, fenced blocks,
// pipe tables, inline code, emphasis and links), so a small reader is
// enough: headings lose their hashes (bold with colour, underlined
// without), code loses its backticks (quoted when it has spaces), paragraphs and list items are filled to the width, fenced
// blocks are indented and kept as written, tables are aligned when they
// fit and otherwise printed a row at a time, and a link to another page
// names the help topic that prints it.
func PlainText(md string, width int, bold func(string) string) string {
	if width <= 0 {
		width = 80
	}
	cs := scheme{bold}
	fill := min(width, 100) - 1
	var b strings.Builder
	blank := true // the last line written was blank (or nothing was)
	emit := func(line string) {
		b.WriteString(strings.TrimRight(line, " ") + "\n")
		blank = strings.TrimSpace(line) == ""
	}
	lines := strings.Split(strings.TrimRight(md, "\n"), "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			if !blank {
				emit("")
			}
			i++
		case strings.HasPrefix(trimmed, "<!--"):
			// A marker of a generated table: not for readers.
			i++
		case strings.HasPrefix(trimmed, "```"):
			// A fenced block, kept as written and indented; inside a list
			// item the fence's own indent is the block's margin.
			margin := len(line) - len(strings.TrimLeft(line, " "))
			i++
			for i < len(lines) && strings.TrimSpace(lines[i]) != "```" {
				l := lines[i]
				if strings.TrimSpace(l[:min(margin, len(l))]) == "" {
					l = l[min(margin, len(l)):]
				}
				emit(strings.Repeat(" ", margin+4) + l)
				i++
			}
			i++ // the closing fence
		case heading().MatchString(line):
			level := len(line) - len(strings.TrimLeft(line, "#"))
			text := inlineText(strings.TrimSpace(line[level:]), cs)
			if !blank {
				emit("")
			}
			switch {
			case bold != nil:
				emit(cs.Bold(text))
			case level <= 2:
				emit(text)
				emit(strings.Repeat(map[bool]string{true: "=", false: "-"}[level == 1], utf8.RuneCountInString(text)))
			default:
				emit(text)
			}
			i++
		case strings.HasPrefix(trimmed, "|"):
			var rows []string
			for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
				rows = append(rows, strings.TrimSpace(lines[i]))
				i++
			}
			for _, l := range renderTable(rows, width, fill, cs) {
				emit(l)
			}
		default:
			// A paragraph or a list item: its lines up to a blank line,
			// a fence, a table, a heading or the next item.
			indent := len(line) - len(strings.TrimLeft(line, " "))
			marker := listMarker().FindString(trimmed)
			words := []string{strings.TrimSpace(trimmed[len(marker):])}
			i++
			for i < len(lines) {
				next := strings.TrimSpace(lines[i])
				if next == "" || strings.HasPrefix(next, "```") || strings.HasPrefix(next, "|") ||
					heading().MatchString(lines[i]) || strings.HasPrefix(next, "<!--") || listMarker().MatchString(next) {
					break
				}
				words = append(words, next)
				i++
			}
			first := strings.Repeat(" ", indent) + marker
			// The inline syntax once the lines are joined: a code span
			// may run across a line break.
			for _, l := range textwrap.Lines(inlineText(strings.Join(words, " "), cs), first, strings.Repeat(" ", len(first)), fill, visibleLen) {
				emit(l)
			}
		}
	}
	return b.String()
}

// heading is an ATX heading's start: "# ", "## " ….
var heading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#{1,6} `) })

// listMarker is the start of a list item: "- ", "* " or "1. ".
var listMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([-*]|\d+\.) `) })

// inlineSpan is one piece of Markdown's inline syntax the reader knows: a
// code span, a link, strong or emphasised text, or an escaped character.
var inlineSpan = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("`[^`]+`" + `|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\\([\\|*_\[\]<>#` + "`" + `])`)
})

// inlineText removes the inline Markdown of one line: code spans keep
// their text as is, a link to another page names its help topic, a link
// elsewhere keeps its address, strong text is bold with colour.
func inlineText(s string, cs scheme) string {
	return inlineSpan().ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case strings.HasPrefix(m, "`"):
			// In a table cell a pipe is escaped even in code. Code of
			// several words is quoted, so its end can be seen.
			code := strings.ReplaceAll(strings.Trim(m, "`"), `\|`, "|")
			if strings.Contains(code, " ") {
				return "'" + code + "'"
			}
			return code
		case strings.HasPrefix(m, "\\"):
			return m[1:]
		case strings.HasPrefix(m, "**"):
			return cs.Bold(strings.Trim(m, "*"))
		case strings.HasPrefix(m, "*"):
			return strings.Trim(m, "*")
		}
		sub := inlineSpan().FindStringSubmatch(m)
		text, target := inlineText(sub[1], cs), sub[2]
		page, _, _ := strings.Cut(target, "#")
		if t, ok := TopicOfPage(page); ok {
			if text == t.Name {
				return `"shakectl help ` + t.Name + `"`
			}
			return text + ` ("shakectl help ` + t.Name + `")`
		}
		target = strings.TrimPrefix(target, "../")
		if text == target || strings.Trim(text, "`") == target {
			return text
		}
		return text + " (" + target + ")"
	})
}

// renderTable lays a pipe table out in aligned columns when it fits the
// width, and otherwise as one block per row: the first cell, then each
// other cell under its column's name, filled to the width.
func renderTable(rows []string, width, fill int, cs scheme) []string {
	var cells [][]string
	for _, r := range rows {
		cs := splitRow(r)
		if isSeparatorRow(cs) {
			continue
		}
		cells = append(cells, cs)
	}
	if len(cells) == 0 {
		return nil
	}
	for r := range cells {
		for c := range cells[r] {
			cells[r][c] = inlineText(cells[r][c], cs)
		}
	}
	header, body := cells[0], cells[1:]
	widths := make([]int, len(header))
	for _, row := range cells {
		for c := range min(len(row), len(widths)) {
			widths[c] = max(widths[c], visibleLen(row[c]))
		}
	}
	total := 2 * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	var out []string
	switch {
	case total < width:
		// Aligned columns under a header.
		for r, row := range cells {
			var line strings.Builder
			for c := range widths {
				cell := ""
				if c < len(row) {
					cell = row[c]
				}
				pad := widths[c] - visibleLen(cell) + 2
				if r == 0 {
					cell = cs.Bold(cell)
				}
				line.WriteString(cell)
				if c < len(widths)-1 {
					line.WriteString(strings.Repeat(" ", pad))
				}
			}
			out = append(out, line.String())
		}
	case len(widths) == 2 && widths[0] <= width*2/5:
		// A short name and a long text: the text filled beside it.
		indent := strings.Repeat(" ", widths[0]+2)
		for r, row := range cells {
			name, text := row[0], ""
			if len(row) > 1 {
				text = row[1]
			}
			first := name + strings.Repeat(" ", widths[0]-visibleLen(name)+2)
			if r == 0 {
				first = cs.Bold(name) + strings.Repeat(" ", widths[0]-visibleLen(name)+2)
				text = cs.Bold(text)
			}
			out = append(out, textwrap.Lines(text, first, indent, fill, visibleLen)...)
		}
	default:
		// One block per row: its first cell, then each other cell under
		// its column's name.
		for r, row := range body {
			if r > 0 {
				out = append(out, "")
			}
			out = append(out, textwrap.Lines(row[0], "", "  ", fill, visibleLen)...)
			for c := 1; c < len(row) && c < len(header); c++ {
				if row[c] == "" {
					continue
				}
				label := header[c]
				if label == "" {
					label = "-"
				}
				out = append(out, textwrap.Lines(row[c], "  "+label+": ", "    ", fill, visibleLen)...)
			}
		}
	}
	return out
}

// splitRow cuts "| a | b \| c |" into its cells, an escaped pipe staying
// in its cell.
func splitRow(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func isSeparatorRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || c == "" {
			return false
		}
	}
	return true
}

// visibleLen is how many columns s takes, its colour escapes not counted.
func visibleLen(s string) int {
	return utf8.RuneCountInString(ansiEscape().ReplaceAllString(s, ""))
}

var ansiEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;]*m") })

// scheme makes text bold when the caller can (colour on a terminal).
type scheme struct{ bold func(string) string }

func (s scheme) Bold(text string) string {
	if s.bold == nil || text == "" {
		return text
	}
	return s.bold(text)
}
