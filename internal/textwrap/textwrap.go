// Package textwrap fills words into lines: the help's tables, the
// manual's pages on a terminal. It is a leaf (standard library only), so
// the probe's report and the manual share it.
package textwrap

import (
	"strings"
	"unicode/utf8"
)

// Lines fills the words of text (split at white space) into lines of at
// most width columns, the first line starting with first and the others
// with rest; a word longer than a line is left whole. length counts the
// columns a piece of text takes (nil: one a rune), so that text with
// colour escapes can be measured without them.
func Lines(text, first, rest string, width int, length func(string) int) []string {
	if length == nil {
		length = utf8.RuneCountInString
	}
	var lines []string
	var b strings.Builder
	b.WriteString(first)
	cols := length(first)
	empty := true
	for _, w := range strings.Fields(text) {
		n := length(w)
		if !empty && cols+1+n > width {
			lines = append(lines, b.String())
			b.Reset()
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
	return append(lines, b.String())
}
