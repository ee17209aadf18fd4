package cluster

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The real server builds an error body with Python's json.dumps: keys in
// the order the handler wrote them (sf_api.error's "error", "status"; the
// 2026 capacity_error adds "stage", "transient", shakenfist base.py
// @565e36e6e), the ", " and ": " separators, non-ASCII escaped as \uXXXX
// (ensure_ascii) and no trailing newline. Go's encoder sorts map keys,
// writes no spaces and escapes <, > and & instead, so an error body is
// written here by hand, byte for byte as the server sends it
// (client/testdata/sf2024/screenshot_not_ready.json is one recorded).

// pyErrorBody is e's body as the real server's json.dumps writes it.
func pyErrorBody(e *apiError) []byte {
	var b strings.Builder
	b.WriteString(`{"error": `)
	b.WriteString(pyString(e.msg))
	b.WriteString(`, "status": `)
	b.WriteString(strconv.Itoa(e.status))
	if e.hasStage {
		b.WriteString(`, "stage": `)
		b.WriteString(pyString(e.stage))
		b.WriteString(`, "transient": `)
		b.WriteString(strconv.FormatBool(e.transient))
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// pyString is json.dumps of a str with ensure_ascii: the two-character
// escapes Python uses, \u00XX for other control characters and DEL, and
// every rune above U+007E as \uXXXX (a UTF-16 surrogate pair above U+FFFF).
// Invalid UTF-8 cannot reach a Python str; it is written as U+FFFD.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || r == 0x7f:
				writeU(&b, r)
			case r < utf8.RuneSelf:
				b.WriteRune(r)
			default:
				writeNonASCII(&b, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeNonASCII writes a rune above U+007E as ensure_ascii does: \uXXXX,
// a UTF-16 surrogate pair above U+FFFF.
func writeNonASCII(b *strings.Builder, r rune) {
	if r > 0xffff {
		r -= 0x10000
		writeU(b, 0xd800+(r>>10))
		writeU(b, 0xdc00+(r&0x3ff))
		return
	}
	writeU(b, r)
}

func writeU(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(r>>shift)&0xf])
	}
}

// writePyError sends an error body in the server's own bytes.
func writePyError(w http.ResponseWriter, e *apiError) {
	data := pyErrorBody(e)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(e.status)
	_, _ = w.Write(data)
}

// pyJSON is json.dumps(v) with the default separators and ensure_ascii:
// Go's encoding (without its HTML escapes), then a space after every ','
// and ':' outside strings and every rune above U+007E as \uXXXX.
func pyJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	var out strings.Builder
	out.Grow(len(data) + len(data)/8)
	inString, escaped := false, false
	for _, r := range string(data) {
		switch {
		case inString && escaped:
			escaped = false
			out.WriteRune(r)
		case inString && r == '\\':
			escaped = true
			out.WriteRune(r)
		case inString && r == '"':
			inString = false
			out.WriteRune(r)
		case inString && r > 0x7e:
			writeNonASCII(&out, r)
		case inString:
			out.WriteRune(r)
		case r == '"':
			inString = true
			out.WriteRune(r)
		case r == ',' || r == ':':
			out.WriteRune(r)
			out.WriteByte(' ')
		default:
			out.WriteRune(r)
		}
	}
	return []byte(out.String()), nil
}
