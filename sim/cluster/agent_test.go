package cluster

import (
	"slices"
	"strings"
	"testing"
)

func quoteWords(words []string) string {
	out := make([]string, len(words))
	for k, w := range words {
		out[k] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// FuzzShellWords: the agent's word splitting never panics, and words it
// returns, quoted as sh would need, split back to themselves.
func FuzzShellWords(f *testing.F) {
	for _, seed := range []string{"echo hi", `sh -c 'exit 3'`, `'it'\''s'`, `"unterminated`, `trailing\`, "\x00\xff", `a\ b "c d" 'e'f`, ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, ok := shellWords(line)
		if !ok {
			return
		}
		again, ok := shellWords(quoteWords(words))
		if !ok || !slices.Equal(again, words) {
			t.Fatalf("%q split to %q, re-quoted to %q", line, words, again)
		}
	})
}

func TestAgentCommands(t *testing.T) {
	for line, want := range map[string]int{"echo a": 0, "sh -c 'exit 3'": 3, "exit 300": 44, "false": 1, "cat /x": 1, "rm -rf /": 127, `echo "x`: 2} {
		if rc, _, _, _ := runAgentCommand(line, nil); rc != want {
			t.Errorf("%s: rc %d, want %d", line, rc, want)
		}
	}
}
