package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"net/url"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://alice:pw@host:13000/api":                  "http://alice:xxxxx@host:13000/api",
		"http://alice@host/":                              "http://alice@host/",
		"http://host/api":                                 "http://host/api",
		"alice:pw@host:13000":                             "[redacted]@host:13000",
		"http://alice:p w%zz@host/":                       "[redacted]@host/",
		"http://kerbside/sf-console.vv?token=pw&x=1":      "http://kerbside/sf-console.vv?token=[redacted]&x=1",
		"http://alice:pw@kerbside/sf-console.vv?token=pw": "http://alice:xxxxx@kerbside/sf-console.vv?token=[redacted]",
		"": "",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(URL(in), "pw") || strings.Contains(URL(in), "p w") {
			t.Errorf("URL(%q) kept the password", in)
		}
	}
}

// The one redactor hides every form of secret the client's, the proxy's
// and --debug's own redactors hid before it: a password in a URL's
// userinfo (with or without a scheme, parsable or not, inside a
// *url.Error), a token in a query string, an Authorization or cookie
// header, the key and tokens in a JSON body at any depth, a console file's
// password, and a body cut short that names a secret field.
func TestEverySecretFormIsRedacted(t *testing.T) {
	const pw = "s3cretpw"
	shown := map[string]string{
		"userinfo":             URL("http://alice:" + pw + "@sf:13000/api"),
		"userinfo, no scheme":  URL("alice:" + pw + "@sf:13000"),
		"userinfo, unparsable": URL("http://alice:" + pw + "%zz@sf/"),
		"url.Error": URLError(&url.Error{Op: "Get", URL: "http://alice:" + pw + "@sf/x?token=" + pw,
			Err: errors.New("connection refused")}).Error(),
		"query token":         TokenQuery("GET http://kerbside/sf-console.vv?token=" + pw + " failed"),
		"Authorization":       Header("authorization", "Bearer "+pw),
		"Proxy-Authorization": Header("Proxy-Authorization", "Basic "+pw),
		"Cookie":              Header("Cookie", "session="+pw),
		"Set-Cookie":          Header("Set-Cookie", "session="+pw+"; HttpOnly"),
		"JSON key":            string(Body([]byte(`{"namespace":"system","key":"` + pw + `"}`))),
		"JSON token, nested":  string(Body([]byte(`{"a":[{"access_token":"` + pw + `","Refresh_Token":"` + pw + `"}],"password":"` + pw + `"}`))),
		"console file":        string(Body([]byte("[virt-viewer]\nhost=sf\npassword=" + pw + "\nproxy=http://k/?token=" + pw + "\n"))),
		"JSON cut short":      string(Body([]byte(`{"namespace":"system","key":"` + pw))),
	}
	for form, s := range shown {
		if strings.Contains(s, pw) {
			t.Errorf("%s: %q shows the secret", form, s)
		}
	}
	if got := Header("Authorization", "Bearer "+pw); got != "Bearer [redacted]" {
		t.Errorf("Authorization shown as %q, want its scheme kept", got)
	}
	if got := Header("Content-Type", "application/json"); got != "application/json" {
		t.Errorf("an ordinary header shown as %q", got)
	}
	if got := string(Body([]byte(`{"name":"web1","cpus":2}`))); got != `{"cpus":2,"name":"web1"}` {
		t.Errorf("a body without secrets shown as %q", got)
	}
}

// A body is re-encoded (to redact secrets); its C1 controls come out
// escaped, so they stay visible as \u009b instead of becoming the space a
// terminal writer makes of a raw one, and the value is the server's.
func TestBodyEscapesC1(t *testing.T) {
	const name = "web\u009b2J\u0085"
	body, _ := json.Marshal(map[string]string{"name": name, "key": "secret"})
	shown := Body(body)
	var got map[string]string
	if bytes.Contains(shown, []byte("\u009b")) || bytes.Contains(shown, []byte("\u0085")) || json.Unmarshal(shown, &got) != nil || got["name"] != name || got["key"] != "[redacted]" {
		t.Errorf("body shown as %q", shown)
	}
}

// Redaction is written once: no package but this one defines a function
// or method named redact…, calls url.URL's Redacted (which keeps a query
// token, and is skipped when a URL does not parse), or spells the marker
// itself. A new redactor beside it would be a second place for a secret to
// slip through.
func TestNoOtherRedactor(t *testing.T) {
	srcscan.Walk(t, []string{"../.."}, 200, func(f srcscan.File) {
		ast.Inspect(f.AST, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if strings.HasPrefix(strings.ToLower(n.Name.Name), "redact") {
					t.Errorf("%s: %s is a redactor outside internal/redact", f.Pos(n), n.Name.Name)
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "Redacted" {
					t.Errorf("%s: .Redacted() outside internal/redact: use redact.URL", f.Pos(n))
				}
			}
			return true
		})
		f.Strings(func(lit *ast.BasicLit, s string) {
			if strings.Contains(s, Marker) {
				t.Errorf("%s: %q spells the redaction marker: use redact.Marker or a redact function", f.Pos(lit), s)
			}
		})
	}, "internal/redact")
}
