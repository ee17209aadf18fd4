package userfile

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// KeyError is a key that ParseKey refuses; it names the flag and why, never
// the key.
type KeyError struct {
	Flag, Reason string
}

func (e *KeyError) Error() string { return fmt.Sprintf("invalid key from %s: %s", e.Flag, e.Reason) }

// ParseKey turns what was read for an API key into the key: surrounding
// white space (a file's or echo's newline) trimmed, and refused when empty,
// on more than one line, holding a NUL or other control character, not
// UTF-8, or longer than MaxKey: a 16 MB key of NUL bytes once made a 33 MB
// config after which every command took 1.5 s.
func ParseKey(raw []byte, flag string) (string, error) {
	k := bytes.TrimSpace(raw)
	fail := func(reason string) (string, error) { return "", &KeyError{Flag: flag, Reason: reason} }
	switch {
	case len(k) == 0:
		return fail("it is empty")
	case len(k) > MaxKey:
		return fail(fmt.Sprintf("it is longer than %s", size(MaxKey)))
	case bytes.ContainsAny(k, "\r\n"):
		return fail("it spans more than one line")
	case bytes.IndexByte(k, 0) >= 0:
		return fail("it holds a NUL byte")
	case !utf8.Valid(k):
		return fail("it is not UTF-8 text")
	}
	for _, r := range string(k) {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fail("it holds a control character")
		}
	}
	return string(k), nil
}
