// Package redact removes secrets from what shakectl prints. URL removes the
// password a URL may carry in its userinfo ("http://alice:pw@host/" becomes
// "xxxxx", as url.URL.Redacted writes it; issue 28, item 10: config view and
// the context commands printed it whole although they claim to redact
// secrets). Secrets masks keys and tokens a server echoes into errors and
// --debug lines, a short key only as a word so names holding it stay whole.
package redact

import (
	"net/url"
	"strings"
)

// URL returns s with any password in its userinfo redacted. A string that
// does not parse as a URL but holds an "@" loses everything before it, so a
// malformed URL cannot leak its password either.
func URL(s string) string {
	if !strings.Contains(s, "@") {
		return s // the common case, and no userinfo to hide
	}
	u, err := url.Parse(s)
	if err != nil || (u.User == nil && u.Opaque != "") {
		return "[redacted]@" + s[strings.LastIndexByte(s, '@')+1:]
	}
	return u.Redacted()
}
