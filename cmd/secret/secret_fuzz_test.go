package secret

import (
	"context"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/output"
)

// FuzzRead feeds Read hostile standard input: whatever it
// accepts is one non-empty line within the bound, and a refusal never
// repeats what it read.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{"key\n", "key\r\n", "", "\n", "two\nlines\n", "a\rb", strings.Repeat("k", maxSecret+1), "\x00\x1b[2J\n", "ключ\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ios, stdin, _, errOut := output.Test()
		stdin.WriteString(in)
		s, err := Read(context.Background(), ios, "", "key")
		if err != nil {
			if len(in) > 3 && strings.Contains(err.Error(), strings.TrimRight(in, "\r\n")) {
				t.Fatalf("the refusal repeats the input: %v", err)
			}
			return
		}
		got := s.Reveal()
		if got == "" || strings.ContainsAny(got, "\r\n") || len(got) > maxSecret || !strings.HasPrefix(in, got) {
			t.Fatalf("accepted %q from %q", got, in)
		}
		if errOut.Len() != 0 {
			t.Fatalf("piped input printed %q", errOut.String())
		}
	})
}
