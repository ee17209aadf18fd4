package redact

import (
	"strings"
	"testing"
)

// The simulator's default key "demo": masked wherever it stands as a
// token, in every shape a server or a --debug line prints it, and never
// inside a longer name.
func TestShortSecretMaskedAsATokenOnly(t *testing.T) {
	for in, want := range map[string]string{
		// Masked: the key itself, bounded by anything but a word.
		`demo`: `[redacted]`,
		`{"error": "bad key demo", "key": "demo"}`: `{"error": "bad key [redacted]", "key": "[redacted]"}`,
		`POST /auth?key=demo&namespace=system`:     `POST /auth?key=[redacted]&namespace=system`,
		`http://x/api (key demo)`:                  `http://x/api (key [redacted])`,
		`key: demo.`:                               `key: [redacted].`,
		`demo:13000`:                               `[redacted]:13000`,
		"tab\tdemo\n":                              "tab\t[redacted]\n",
		`Bearer demo, demo,demo`:                   `Bearer [redacted], [redacted],[redacted]`,
		// Kept: names that hold the key as a part.
		`network sim-demo-net not ready`:       `network sim-demo-net not ready`,
		`instance demo_1 and demo2 and mydemo`: `instance demo_1 and demo2 and mydemo`,
		`http://demo.example:13000/api`:        `http://demo.example:13000/api`,
		`node sf.demo.lab`:                     `node sf.demo.lab`,
		`demo-net`:                             `demo-net`,
		`-demo`:                                `-demo`,
		// Both in one line.
		`sim-demo-net refused key demo`: `sim-demo-net refused key [redacted]`,
	} {
		if got := Secrets(in, "demo"); got != want {
			t.Errorf("Secrets(%q) = %q, want %q", in, got, want)
		}
	}
}

// A long secret is masked wherever it appears, inside words too: a token
// glued to other text is still the token.
func TestLongSecretMaskedEverywhere(t *testing.T) {
	const tok = "eyJhbGciOiJIUzI1NiJ9.payload.sig"
	for in, want := range map[string]string{
		"Bearer " + tok:       "Bearer [redacted]",
		"x" + tok + "y":       "x[redacted]y",
		"sim-" + tok + "-net": "sim-[redacted]-net",
	} {
		if got := Secrets(in, tok); got != want {
			t.Errorf("Secrets(%q) = %q, want %q", in, got, want)
		}
	}
}

// The forms a secret takes in JSON (Go's and Python's escaping) and in a
// URL are masked too, the short rule holding for each.
func TestEscapedFormsMasked(t *testing.T) {
	for _, c := range []struct{ secret, in, want string }{
		{`p"w`, `{"error": "bad key p\"w"}`, `{"error": "bad key [redacted]"}`},
		{`a<b`, `{"key": "a\u003cb"}`, `{"key": "[redacted]"}`},
		{`a<b`, `{"key": "a<b"}`, `{"key": "[redacted]"}`},
		{`démo`, `{"error": "bad key d\u00e9mo"}`, `{"error": "bad key [redacted]"}`},
		// shakectl's JSON printers escape C1 only (termtext.JSON).
		{"démo\u0085", `{"key": "démo\u0085"}`, `{"key": "[redacted]"}`},
		{`p@ss w`, `GET /auth?key=p%40ss+w&x=1`, `GET /auth?key=[redacted]&x=1`},
		{`p@ss w`, `GET /keys/p@ss%20w`, `GET /keys/[redacted]`},
		// A key whose edges are not word characters needs no boundary.
		{`!x!`, `a!x!b`, `a[redacted]b`},
	} {
		if got := Secrets(c.in, c.secret); got != c.want {
			t.Errorf("Secrets(%q, %q) = %q, want %q", c.in, c.secret, got, c.want)
		}
	}
}

// A secret holding another is masked whole, whatever order they are given
// in; empty secrets mask nothing.
func TestNestedAndEmptySecrets(t *testing.T) {
	in := "key demo-key-1 and demo"
	want := "key [redacted] and [redacted]"
	for _, order := range [][]string{{"demo", "demo-key-1"}, {"demo-key-1", "demo"}} {
		if got := Secrets(in, order...); got != want {
			t.Errorf("Secrets(%q, %q) = %q, want %q", in, order, got, want)
		}
	}
	if got := Secrets("a b", "", ""); got != "a b" {
		t.Errorf("an empty secret masked %q", got)
	}
}

// The fuzz target's properties: text without the secret is unchanged; the
// output holds no occurrence of the secret that the rule masks (any, for
// a long one); masking twice is masking once.
func FuzzSecrets(f *testing.F) {
	for _, seed := range [][2]string{
		{"sim-demo-net refused key demo", "demo"},
		{"demo.example demo. .demo demo.", "demo"},
		{"[redacted]", "redacted"},
		{"ab[redacted]abab[redacted]ab", "ab[redacted]ab"},
		{"aaaa", "aa"},
		{`{"key": "d\u00e9mo"}`, "démo"},
		{"x" + strings.Repeat("k", 20) + "y", strings.Repeat("k", 17)},
		{"\xff\xfe demo \xff", "\xff"},
		{"--", "-"},
		{"a.b.c", "."},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, s, secret string) {
		got := Secrets(s, secret)
		if secret == "" || !anyFormIn(s, secret) {
			if got != s {
				t.Fatalf("Secrets(%q, %q) = %q: changed text without the secret", s, secret, got)
			}
			return
		}
		if strings.ContainsAny(secret, "[]") || strings.Contains(Marker, secret) {
			return // the marker itself may form or hold it
		}
		if again := Secrets(got, secret); again != got {
			t.Fatalf("Secrets(%q, %q) = %q, and again %q", s, secret, got, again)
		}
		if len(secret) >= LongSecret {
			if strings.Contains(got, secret) {
				t.Fatalf("Secrets(%q, %q) = %q: a long secret left", s, secret, got)
			}
			return
		}
		for i := 0; i+len(secret) <= len(got); i++ {
			if got[i:i+len(secret)] != secret {
				continue
			}
			j := i + len(secret)
			inWord := (isWordByte(secret[0]) && wordBefore(got, i)) || (isWordByte(secret[len(secret)-1]) && wordAfter(got, j))
			if !inWord {
				t.Fatalf("Secrets(%q, %q) = %q: left a standalone secret at %d", s, secret, got, i)
			}
		}
	})
}

func anyFormIn(s, secret string) bool {
	for _, f := range printedForms(secret) {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}
