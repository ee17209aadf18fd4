package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shakenfist/shakectl/output/termtext"
)

// Marker is what a masked secret prints as.
const Marker = "[redacted]"

// LongSecret is the length from which a secret is masked wherever it
// appears, even inside a longer word: a string of 16 bytes or more that a
// key or token shares with other text is no coincidence (the bearer
// tokens are hundreds of bytes; generated keys are long too).
const LongSecret = 16

// Secrets masks every secret in s (keys and tokens a server may echo into
// an error or a --debug line), in the forms it is printed in: as given,
// JSON-escaped (as Go and Python's json write it), and URL-escaped.
//
// A short secret (under LongSecret bytes) is masked only where it is not
// part of a longer word. The simulator's default key is "demo", and a
// plain substring rule printed the network "sim-demo-net" as
// "sim-[redacted]-net" and the host "demo.example" as
// "[redacted].example", which hides names a user needs and tells a reader
// the key. A word is a run of letters, digits, "_" and "-", and a "." with
// word characters on both sides joins a dotted name. So "demo" is masked
// in `key "demo"`, "key=demo&", "(demo)", "demo:" or a line of its own,
// and kept in "sim-demo-net", "demo_1" or "demo.example". Only the edges
// of the secret that are word characters need a boundary: a key ending in
// "!" is masked before any text.
//
// Longer secrets are tried first, so one that holds another is masked
// whole. Empty secrets are ignored.
func Secrets(s string, secrets ...string) string {
	type form struct {
		text string
		long bool
	}
	var forms []form
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		for _, f := range printedForms(sec) {
			forms = append(forms, form{f, len(sec) >= LongSecret})
		}
	}
	// Longest first; equal lengths in a fixed order, so the result does
	// not depend on the order of the secrets given.
	slices.SortFunc(forms, func(a, b form) int {
		if d := len(b.text) - len(a.text); d != 0 {
			return d
		}
		return strings.Compare(a.text, b.text)
	})
	for _, f := range forms {
		if f.long {
			s = maskAll(s, f.text)
		} else {
			s = maskWords(s, f.text)
		}
	}
	return s
}

// maskAll masks every occurrence of sec. Masking can join the text around
// an occurrence into a new one (the secret "ab[redacted]ab" in
// "abab[redacted]abab"...), so it repeats until none is left; a secret
// longer than Marker shrinks s each round, so this ends.
func maskAll(s, sec string) string {
	s = strings.ReplaceAll(s, sec, Marker)
	for len(sec) > len(Marker) && strings.Contains(s, sec) {
		s = strings.ReplaceAll(s, sec, Marker)
	}
	return s
}

// maskWords masks the occurrences of sec that are not part of a longer
// word (see Secrets).
func maskWords(s, sec string) string {
	if !strings.Contains(s, sec) {
		return s
	}
	checkStart, checkEnd := isWordByte(sec[0]), isWordByte(sec[len(sec)-1])
	var b strings.Builder
	last := 0
	for pos := 0; pos <= len(s)-len(sec); {
		i := strings.Index(s[pos:], sec)
		if i < 0 {
			break
		}
		i += pos
		j := i + len(sec)
		if (checkStart && wordBefore(s, i)) || (checkEnd && wordAfter(s, j)) {
			pos = i + 1
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(Marker)
		last, pos = j, j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// wordBefore says the text before index i continues a word: a word
// character, or a "." that follows one.
func wordBefore(s string, i int) bool {
	switch {
	case i == 0:
		return false
	case isWordByte(s[i-1]):
		return true
	}
	return s[i-1] == '.' && i >= 2 && isWordByte(s[i-2])
}

// wordAfter says the text from index j continues a word: a word
// character, or a "." that precedes one.
func wordAfter(s string, j int) bool {
	switch {
	case j >= len(s):
		return false
	case isWordByte(s[j]):
		return true
	}
	return s[j] == '.' && j+1 < len(s) && isWordByte(s[j+1])
}

// printedForms are the ways sec reaches a printed line: as it is, inside a
// JSON string (Go escapes <, > and & unless told not to; Python's
// json.dumps, the API server's, writes non-ASCII as \uXXXX; shakectl's own
// JSON printers write C1 controls as \u0080..\u009f, termtext.JSON), and in
// a URL (query and path escaping).
func printedForms(sec string) []string {
	forms := []string{sec, jsonString(sec, true), jsonString(sec, false), asciiJSON(sec), url.QueryEscape(sec), url.PathEscape(sec),
		string(termtext.JSON([]byte(jsonString(sec, false))))}
	slices.Sort(forms)
	return slices.Compact(forms)
}

func jsonString(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// asciiJSON is s as Python's json.dumps writes it (ensure_ascii): every
// non-ASCII character as \uXXXX, in lower-case hex, astral ones as a
// surrogate pair.
func asciiJSON(s string) string {
	inner := jsonString(s, false)
	var b strings.Builder
	for _, r := range inner {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
