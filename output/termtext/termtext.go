// Package termtext is shakectl's one sanitiser for text that a server or a
// file controls and that reaches a terminal (stdout or stderr): a refusal's
// stage, a router's answer body, a report's target, a body under --debug.
// Such text could otherwise carry escape sequences that set the window
// title, erase the line and print a forged verdict (issue 28, item 11).
//
// The rule is gh's and kubectl's (k8s.io/kubectl/pkg/util/term's
// "sanitize"): every control character becomes a space, so the text stays
// readable and nothing in it is obeyed. Controls are C0 (below 0x20), DEL,
// C1 (U+0080..U+009F, which some terminals read as 8-bit CSI/OSC), and the
// Unicode bidirectional overrides and isolates that reorder what is shown
// ("Trojan Source"); bytes that are not UTF-8 become U+FFFD. The package is
// a leaf (standard library only) so that every printer, the probe's
// included, can use it.
package termtext

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Line returns s safe to print as (part of) one line: every control
// character, line breaks and tabs included, becomes a space.
func Line(s string) string { return clean(s, false) }

// Block returns s safe to print as lines of text: line feeds and tabs are
// kept, every other control character (a carriage return that would
// overwrite the line included) becomes a space.
func Block(s string) string { return clean(s, true) }

// Unsafe reports whether s holds anything Line would change.
func Unsafe(s string) bool { return Line(s) != s }

func clean(s string, keepLines bool) string {
	if !needsCleaning(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune(utf8.RuneError)
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case isControl(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsCleaning(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(keepLines && (c == '\n' || c == '\t')) {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || isControl(r) {
			return true
		}
		i += n
	}
	return false
}

// isControl reports whether a terminal may obey r rather than show it.
func isControl(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		// Bidirectional embeddings, overrides, isolates and marks.
		return true
	}
	return false
}

// Writer returns a writer that passes Block of every write on to w: for a
// stream that only ever carries foreign text (the --debug log of requests
// and answers). It reports len(p) written when w took the cleaned bytes.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

func (c *writer) Write(p []byte) (int, error) {
	s := string(p)
	if _, err := io.WriteString(c.w, Block(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
