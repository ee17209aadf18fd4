package termtext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile holds what a test server sent in issue 28: a window title, an
// erased line and a forged verdict, plus 8-bit and bidi controls.
var hostile = []string{
	"\x1b]0;pwned\x07",
	"\x1b[2K\rFAKE: all good",
	"\x1b[1A\x1b[2J",
	"stage\x9b31m",
	"\u202eevil\u202c",
	"a\x00b\x08c\x7f",
	"\xff\xfe",
	"x\x1bP1$r\x1b\\",
}

func TestLineLeavesNoControl(t *testing.T) {
	for _, s := range hostile {
		got := Line(s)
		if strings.ContainsFunc(got, isControl) || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r") {
			t.Errorf("Line(%q) = %q", s, got)
		}
	}
	if got := Line("\x1b[2K\rFAKE: all good"); got != " [2K FAKE: all good" {
		t.Errorf("controls should become spaces, visible text kept: %q", got)
	}
}

func TestBlockKeepsLinesOnly(t *testing.T) {
	got := Block("<html>\n\t<title>\x1b]0;x\x07</title>\r\nok")
	if got != "<html>\n\t<title> ]0;x </title> \nok" {
		t.Errorf("%q", got)
	}
}

func TestPlainTextUnchanged(t *testing.T) {
	for _, s := range []string{"", "sufficient_idle_cpu", "actor \"a\" unavailable: router at capacity", "héllo → wörld ✓"} {
		if Line(s) != s || Block(s) != s || Unsafe(s) {
			t.Errorf("%q changed", s)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	n, err := w.Write([]byte("body: \x1b[31mred\n"))
	if err != nil || n != len("body: \x1b[31mred\n") {
		t.Fatalf("n %d err %v", n, err)
	}
	if b.String() != "body:  [31mred\n" {
		t.Errorf("%q", b.String())
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, got := range []string{Line(s), Block(s)} {
			if !utf8.ValidString(got) {
				t.Fatalf("invalid UTF-8 from %q", s)
			}
			for _, r := range got {
				if isControl(r) && r != '\n' && r != '\t' {
					t.Fatalf("control %U left in %q (from %q)", r, got, s)
				}
			}
			if Line(got) != got && got == Line(s) {
				t.Fatalf("Line is not idempotent on %q", s)
			}
		}
		if strings.ContainsAny(Line(s), "\n\t") {
			t.Fatalf("Line kept a line break: %q", s)
		}
	})
}
