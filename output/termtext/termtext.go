// Package termtext is shakectl's one sanitiser for text that a server or a
// file controls and that reaches a terminal (stdout or stderr): a refusal's
// stage, a router's answer body, a report's target, a body under --debug.
// Such text could otherwise carry escape sequences that set the window
// title, erase the line and print a forged verdict.
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
	"bytes"
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

// JSON returns the JSON text b with every C1 control (U+0080..U+009F)
// written as its escape, \u0080..\u009f. encoding/json escapes C0 (ESC is
// \u001b) but writes C1 raw, and U+009B is an 8-bit CSI that some terminals
// obey, so a server's string could still drive the terminal through -o json.
// The escape is the same JSON value, so every JSON printer applies it always,
// on a terminal or not (piped JSON read with `less -r` or a log viewer is
// safe too).
//
// It works on bytes: outside strings valid JSON is ASCII, and inside them
// the pair 0xC2 0x80..0x9F is exactly the UTF-8 of U+0080..U+009F (0xC2 is
// a lead byte, never a continuation), so the rewrite cannot change any other
// character, invalid UTF-8 included. b is returned as it is when it holds
// no C1 control.
func JSON(b []byte) []byte {
	i := indexC1(b)
	if i < 0 {
		return b
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(b)+16)
	for i >= 0 {
		c := b[i+1]
		out = append(out, b[:i]...)
		out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		b = b[i+2:]
		i = indexC1(b)
	}
	return append(out, b...)
}

// indexC1 is the offset of the first UTF-8 C1 control in b, or -1.
func indexC1(b []byte) int {
	off := 0
	for {
		j := bytes.IndexByte(b[off:], 0xc2)
		if j < 0 {
			return -1
		}
		j += off
		if j+1 < len(b) && b[j+1] >= 0x80 && b[j+1] <= 0x9f {
			return j
		}
		off = j + 1
	}
}
