// Package redact is shakectl's one redactor: every secret a line may carry
// is removed here, in every form shakectl prints one. URL hides the
// password a URL may carry in its userinfo ("http://alice:pw@host/" becomes
// "alice:xxxxx@", as url.URL.Redacted writes it) and a token in its query
// (a Kerbside console URL); URLError does the same inside an error.
// Header hides an Authorization or Cookie header's credentials; Body the
// secret fields of a JSON body (the key sent to /auth, the token it
// answers) and a console file's password. Secrets masks the keys and
// tokens a server echoes into errors and --debug lines, a short key only
// as a word so names holding it stay whole.
package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/shakenfist/shakectl/output/termtext"
)

// URL returns s with any password in its userinfo redacted, and the value
// of a "token" query parameter. A string that does not parse as a URL but
// holds an "@" loses everything before it, so a malformed URL cannot leak
// its password either.
func URL(s string) string {
	if strings.Contains(s, "@") {
		u, err := url.Parse(s)
		if err != nil || (u.User == nil && u.Opaque != "") {
			s = Marker + "@" + s[strings.LastIndexByte(s, '@')+1:]
		} else {
			s = u.Redacted()
		}
	}
	return TokenQuery(s)
}

// URLError is err with the URL of a *url.Error in it redacted (an
// unparsable one is not shown), as the http client's errors repeat the
// request's URL.
func URLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if _, perr := url.Parse(ue.URL); perr == nil {
			ue.URL = URL(ue.URL)
		} else {
			ue.URL = "(unparsable)"
		}
	}
	return err
}

// The patterns compile when first used, not at every start-up.
var tokenQuery = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([?&]token=)[^&#\s"]+`) })

// TokenQuery hides the value of a "token" query parameter wherever a URL
// appears in s: the console token a 2026 server mints into Kerbside's
// exchange URL (GET /instances/{ref}/vdiconsoleproxy) is a credential for
// the instance's console.
func TokenQuery(s string) string {
	if !strings.Contains(s, "token=") {
		return s
	}
	return tokenQuery().ReplaceAllString(s, "${1}"+Marker)
}

// secretHeaders carry credentials: only their scheme is shown.
var secretHeaders = map[string]bool{"Authorization": true, "Cookie": true, "Set-Cookie": true, "Proxy-Authorization": true}

// Header is a header's value as it may be printed: an Authorization
// header keeps only its scheme ("Bearer [redacted]"), a cookie nothing.
func Header(name, value string) string {
	if !secretHeaders[http.CanonicalHeaderKey(name)] {
		return value
	}
	if scheme, _, found := strings.Cut(value, " "); found && isScheme(scheme) {
		return scheme + " " + Marker
	}
	return Marker
}

// isScheme: an authentication scheme is a plain word ("Bearer", "Basic");
// "session=abc;" is a cookie's value.
func isScheme(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	return s != ""
}

// secretFields are JSON fields whose values are never printed: the key
// sent to /auth and the token it answers with (shakenfist
// external_api/app.py, da448b1a: {"namespace", "key"} in,
// {"access_token", "token_type", "expires_in"} out).
var secretFields = map[string]bool{"key": true, "access_token": true, "token": true, "password": true, "refresh_token": true}

// vvPassword is the password line of a console (.vv) file from Kerbside.
var vvPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(password=)[^\r\n]*`) })

// Body is a request's or answer's body as it may be printed: a JSON body
// with the values of its secret fields (anywhere in it) replaced, and
// re-encoded so that its C1 controls stay visible as \u009b rather than
// becoming the space a terminal writer makes of them. Any other body loses
// a console file's password and query tokens, and is not shown at all when
// it names a field that looks secret (a JSON body cut short, say).
func Body(body []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		body = []byte(TokenQuery(vvPassword().ReplaceAllString(string(body), "${1}"+Marker)))
		lower := strings.ToLower(string(body))
		for f := range secretFields {
			if strings.Contains(lower, `"`+f+`"`) {
				return []byte(fmt.Sprintf("[%d bytes, not shown: may hold a secret]", len(body)))
			}
		}
		return body
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonValue(v)); err != nil {
		return []byte("[body not shown]")
	}
	return []byte(TokenQuery(string(bytes.TrimRight(termtext.JSON(b.Bytes()), "\n"))))
}

func jsonValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if secretFields[strings.ToLower(k)] {
				t[k] = Marker
				continue
			}
			t[k] = jsonValue(x)
		}
	case []any:
		for i, x := range t {
			t[i] = jsonValue(x)
		}
	}
	return v
}
