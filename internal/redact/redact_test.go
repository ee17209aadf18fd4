package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://alice:pw@host:13000/api": "http://alice:xxxxx@host:13000/api",
		"http://alice@host/":             "http://alice@host/",
		"http://host/api":                "http://host/api",
		"alice:pw@host:13000":            "[redacted]@host:13000",
		"http://alice:p w%zz@host/":      "[redacted]@host/",
		"":                               "",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(URL(in), "pw") || strings.Contains(URL(in), "p w") {
			t.Errorf("URL(%q) kept the password", in)
		}
	}
}
