package router

import (
	"strings"
	"testing"
)

func TestParseHost(t *testing.T) {
	for in, want := range map[string][2]string{
		"actor-0001.default.actors.resources.substrate.ate.dev":           {"default", "actor-0001"},
		"actor-0001.default.actors.resources.substrate.ate.dev:8080":      {"default", "actor-0001"},
		"Web.Shop.ACTORS.resources.substrate.ate.dev.":                    {"shop", "web"},
		"a.b.actors.resources.substrate.ate.dev.:80":                      {"b", "a"},
		strings.Repeat("x", 63) + ".y.actors.resources.substrate.ate.dev": {"y", strings.Repeat("x", 63)},
	} {
		space, actor, err := ParseHost(in)
		if err != nil || space != want[0] || actor != want[1] {
			t.Errorf("ParseHost(%q) = %q, %q, %v; want %q, %q", in, space, actor, err, want[0], want[1])
		}
	}
	for _, bad := range []string{
		"", ":80", "localhost", "127.0.0.1:8080", "[::1]:8080", "actors.resources.substrate.ate.dev",
		".default.actors.resources.substrate.ate.dev", "a.default.actors.resources.substrate.ate.dev:",
		"a.default.actors.resources.substrate.ate.dev:-1", "a.b.c.actors.resources.substrate.ate.dev",
		"a b.default.actors.resources.substrate.ate.dev", "a\x00.default.actors.resources.substrate.ate.dev",
		"é.default.actors.resources.substrate.ate.dev", "a-.default.actors.resources.substrate.ate.dev",
		"a.default.actors.resources.substrate.ate.dev.evil.com", "a.default.xactors.resources.substrate.ate.dev",
		"a\u212a.default.actors.resources.substrate.ate.dev", // Kelvin sign, which Unicode folds to k
	} {
		if space, actor, err := ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) = %q, %q; want an error", bad, space, actor)
		}
	}
}

// FuzzParseHost: no panic; what parses is two valid labels that parse back
// to themselves; what fails says why.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{
		"actor-0001.default.actors.resources.substrate.ate.dev",
		"actor-0001.default.actors.resources.substrate.ate.dev:8080",
		"A.B.ACTORS.RESOURCES.SUBSTRATE.ATE.DEV.", "", ":", "::::", "[", "[]:80", "[::1]",
		"a..actors.resources.substrate.ate.dev", ".actors.resources.substrate.ate.dev",
		"a.b.actors.resources.substrate.ate.dev:99999999999999999999",
		"\xff\xfe.default.actors.resources.substrate.ate.dev", "a\u212a.default.actors.resources.substrate.ate.dev",
		strings.Repeat("a.", 1000) + "actors.resources.substrate.ate.dev",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		space, actor, err := ParseHost(host)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			if len(quoteHost(host)) > 4*253+8 {
				t.Fatalf("quoted host not cut short: %d bytes", len(quoteHost(host)))
			}
			return
		}
		if checkLabel(space) != nil || checkLabel(actor) != nil {
			t.Fatalf("ParseHost(%q) = %q, %q: not valid labels", host, space, actor)
		}
		s2, a2, err := ParseHost(actor + "." + space + HostSuffix)
		if err != nil || s2 != space || a2 != actor {
			t.Fatalf("round trip of %q: %q, %q, %v", host, s2, a2, err)
		}
	})
}
