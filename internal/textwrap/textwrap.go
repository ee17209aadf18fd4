// Package textwrap fills words into lines: the help's tables, the
// manual's pages on a terminal. It is a leaf (standard library only), so
// the probe's report and the manual share it.
package textwrap

import (
	"strings"
	"unicode/utf8"
)

// blanks is where Blank cuts its spaces from.
const blanks = "                                                                "

// Blank is n spaces, the padding of a help table's column, without an
// allocation for the short ones the tables use.
func Blank(n int) string {
	if n <= len(blanks) {
		return blanks[:max(n, 0)]
	}
	return strings.Repeat(" ", n)
}

// Lines fills the words of text (split at white space) into lines of at
// most width columns, the first line starting with first and the others
// with rest; a word longer than a line is left whole. length counts the
// columns a piece of text takes (nil: one a rune), so that text with
// colour escapes can be measured without them.
func Lines(text, first, rest string, width int, length func(string) int) []string {
	if length == nil {
		length = utf8.RuneCountInString
	}
	// The lines are pieces of one buffer, sized for the text, and the words
	// are read in place: the help's tables are wrapped at every start-up,
	// where a buffer a line and a slice of the words were most of the
	// start's allocations in our packages.
	lineWidth := max(width-len(rest), 1)
	var b strings.Builder
	b.Grow(len(first) + len(text) + (len(text)/lineWidth+1)*len(rest))
	lines := make([]string, 0, len(text)/lineWidth+1)
	b.WriteString(first)
	start, cols := 0, length(first)
	empty := true
	for w := range strings.FieldsSeq(text) {
		n := length(w)
		if !empty && cols+1+n > width {
			lines = append(lines, b.String()[start:])
			start = b.Len()
			b.WriteString(rest)
			cols, empty = length(rest), true
		}
		if !empty {
			b.WriteByte(' ')
			cols++
		}
		b.WriteString(w)
		cols += n
		empty = false
	}
	return append(lines, b.String()[start:])
}
