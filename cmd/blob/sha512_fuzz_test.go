package blob

import (
	"strings"
	"testing"
)

// FuzzCheckSHA512: what checkSHA512 lets through is exactly 128 ASCII
// hex digits, so nothing else reaches the request path (no "/", "?",
// "%", "..", control or non-ASCII characters).
func FuzzCheckSHA512(f *testing.F) {
	for _, seed := range []string{
		strings.Repeat("ab", 64), strings.Repeat("AB", 64), strings.Repeat("ab", 32), "",
		strings.Repeat("a", 126) + "/x", strings.Repeat("a", 125) + "%2f", strings.Repeat("a", 126) + "..",
		strings.Repeat("a", 127) + "\x00", strings.Repeat("a", 126) + "é", strings.Repeat("a", 127) + "\n",
		strings.Repeat("a", 125) + "١", // an Arabic-Indic digit: a digit, not hex
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, hash string) {
		if checkSHA512(hash) != nil {
			return
		}
		if len(hash) != 128 {
			t.Fatalf("accepted %d bytes", len(hash))
		}
		for _, c := range []byte(hash) {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				t.Fatalf("accepted %q", hash)
			}
		}
	})
}
