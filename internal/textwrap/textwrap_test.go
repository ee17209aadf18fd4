package textwrap

import (
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

func TestLines(t *testing.T) {
	escape := regexp.MustCompile("\x1b\\[[0-9;]*m")
	visible := func(s string) int { return utf8.RuneCountInString(escape.ReplaceAllString(s, "")) }
	for _, c := range []struct {
		name, text, first, rest string
		width                   int
		length                  func(string) int
		want                    []string
	}{
		{"fits", "a b c", "", "", 5, nil, []string{"a b c"}},
		{"breaks at spaces", "aa bb cc", "", "", 5, nil, []string{"aa bb", "cc"}},
		{"runes, not bytes", "ééé ééé", "", "", 7, nil, []string{"ééé ééé"}},
		{"a long word whole", "a abcdefgh b", "", "", 4, nil, []string{"a", "abcdefgh", "b"}},
		{"prefixes count", "aa bb cc", "- ", "  ", 7, nil, []string{"- aa bb", "  cc"}},
		{"nothing", " ", "- ", "  ", 7, nil, []string{"- "}},
		{"escapes not counted", "\x1b[1maa\x1b[0m bb", "", "", 5, visible, []string{"\x1b[1maa\x1b[0m bb"}},
		{"escapes counted without length", "\x1b[1maa\x1b[0m bb", "", "", 5, nil, []string{"\x1b[1maa\x1b[0m", "bb"}},
	} {
		if got := Lines(c.text, c.first, c.rest, c.width, c.length); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// textwrap imports the standard library alone: probe/report, a leaf,
// wraps its help tables with it.
func TestTextwrapIsAStandardLibraryLeaf(t *testing.T) {
	srcscan.Walk(t, []string{"."}, 1, func(f srcscan.File) {
		for _, p := range f.Imports() {
			if !srcscan.StandardLibrary(p) {
				t.Errorf("%s imports %s: textwrap stays a standard-library leaf", f.Rel, p)
			}
		}
	})
}
