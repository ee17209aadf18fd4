package clusteroperation

import (
	"strings"
	"testing"
)

// FuzzParseHandle: whatever a user (or a pasted log line) gives, the parse
// never panics, and a handle it accepts has both parts, none with a slash
// in its uuid (which would reach another route).
func FuzzParseHandle(f *testing.F) {
	for _, seed := range []string{"net_op/op-uuid", "net_op", "/", "//", "net_op/../../auth", "a/b/c", " / ", "net_op/\x00", "net_op/%2e%2e", strings.Repeat("x/", 1000)} {
		f.Add(seed, "", false)
		f.Add(seed, "op-uuid", false)
		f.Add(seed, "", true)
	}
	f.Fuzz(func(t *testing.T, a, b string, chain bool) {
		args := []string{a}
		if b != "" {
			args = append(args, b)
		}
		h, err := parseHandle(args, chain)
		if err != nil {
			return
		}
		if strings.TrimSpace(h.OpUUID) == "" || strings.Contains(h.OpUUID, "/") || (!chain && strings.TrimSpace(h.OpType) == "") {
			t.Fatalf("accepted %q: %+v", args, h)
		}
	})
}
