package k8sjob

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzYAMLKeepsArgs: whatever a user passes to the probe, the YAML
// manifest reaches kubectl (sigs.k8s.io/yaml, YAML 1.1) with the same
// strings: none read back as a bool, a number, null or a time, and none
// breaks the document.
func FuzzYAMLKeepsArgs(f *testing.F) {
	for _, s := range []string{"yes", "On", "n", "~", "null", "0x1F", "1e3", ".inf", "-.5", "+1", "0o17", "0b101", "1_000", "2030-01-01",
		"- a", ": b", "#c", "a: b", "'", `"`, "<<", "!tag", "&anchor", "*alias", "%", "@x", "`", "\t", " lead", "trail ", "a\nb", "\r", "=", "?", "|", ">", "{}", "[]", "\u2028", "\x00", "\x7f", "\u0085", "\u0090", "\ufeff", "\uffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		if !utf8.ValidString(arg) {
			// JSON (and so the manifest) carries Unicode text; invalid
			// UTF-8 is replaced on the way, by design of encoding/json.
			return
		}
		s := testSpec()
		s.ProbeArgs = []string{"--header", arg}
		got := argsThroughYAML(t, s)
		if !slices.Equal(got, s.Args()) {
			t.Fatalf("%q came back as %q", arg, strings.Join(got[len(got)-2:], " "))
		}
	})
}
