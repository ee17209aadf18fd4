package httpurl

import (
	"errors"
	"go/ast"
	"go/token"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// Every caller's rules, and what each refuses, in the words the callers'
// messages put after their own name for the URL; a password never shows.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		raw    string
		rules  Rules
		reason string
		shown  string
	}{
		{"", Rules{}, "no URL", ""},
		{"127.0.0.1:13000", Rules{}, "the scheme is missing", "127.0.0.1:13000"},
		{"alice:pw@sf:13000", Rules{}, "the scheme is missing", "[redacted]@sf:13000"},
		{"http://[::1", Rules{}, "missing ']' in host", "http://[::1"},
		{"ftp://sf/api", Rules{}, "want http:// or https://", "ftp://sf/api"},
		{"http:///api", Rules{}, "no host", "http:///api"},
		{"http://sf/api?x=1", Rules{Base: true}, "no query or fragment expected", "http://sf/api?x=1"},
		{"http://sf/api#top", Rules{Base: true}, "no query or fragment expected", "http://sf/api#top"},
		{"http://alice:pw@sf/api", Rules{NoCredentials: true}, "it carries credentials", "http://alice:xxxxx@sf/api"},
		{"http://sf/ api", Rules{OneLine: true}, "it holds spaces or control characters", "http://sf/ api"},
		{"http://sf/\napi", Rules{OneLine: true}, "it holds spaces or control characters", "http://sf/\napi"},
	} {
		_, err := Check(c.raw, c.rules)
		var e *Error
		if !errors.As(err, &e) || e.Reason() != c.reason || e.URL != c.shown {
			t.Errorf("Check(%q, %+v) = %v, want %q shown as %q", c.raw, c.rules, err, c.reason, c.shown)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("Check(%q): %v shows the password", c.raw, err)
		}
	}
	for _, c := range []struct {
		raw   string
		rules Rules
	}{
		{"http://sf:13000", Rules{Base: true, NoCredentials: true, OneLine: true}},
		{"https://lb.example/api/", Rules{Base: true}},
		{"http://127.0.0.1:8080/metrics?x=1", Rules{}},
		{"http://alice:pw@sf/api", Rules{Base: true}},
	} {
		if u, err := Check(c.raw, c.rules); err != nil || u == nil {
			t.Errorf("Check(%q, %+v) = %v", c.raw, c.rules, err)
		}
	}
}

// This is the one check of a URL's scheme: no other source compares one to
// "http" or "https" (client, proxy, probe and context create each had
// their own, and their messages differed).
func TestNoOtherURLCheck(t *testing.T) {
	srcscan.Walk(t, []string{"../.."}, 200, func(f srcscan.File) {
		ast.Inspect(f.AST, func(n ast.Node) bool {
			// A refusal compares with != ("not http and not https"); an
			// == picks a default port.
			b, ok := n.(*ast.BinaryExpr)
			if !ok || b.Op != token.NEQ {
				return true
			}
			for _, side := range []ast.Expr{b.X, b.Y} {
				if sel, ok := side.(*ast.SelectorExpr); ok && sel.Sel.Name == "Scheme" {
					for _, other := range []ast.Expr{b.X, b.Y} {
						if lit, ok := other.(*ast.BasicLit); ok && (lit.Value == `"http"` || lit.Value == `"https"`) {
							t.Errorf("%s: a URL scheme checked by hand: use httpurl.Check (or IsHTTP)", f.Pos(b))
						}
					}
				}
			}
			return true
		})
	}, "internal/httpurl")
}
