// Package httpurl is shakectl's one check of an http(s) URL a user gives
// it: the API URL (the client, the proxy's upstream, a saved context) and
// the probe's target and scrape URLs. Every caller gets the same rules in
// the same order, and adds its own (Rules); its Error says what is wrong in
// words the caller puts after its own name for the URL ("invalid API URL
// %q: no host"), and never repeats a password the URL carries.
package httpurl

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/shakenfist/shakectl/internal/redact"
)

// Rules are what a caller refuses besides a URL that is not an absolute
// http:// or https:// URL with a host.
type Rules struct {
	// Base refuses a query or a fragment: paths are joined to the URL.
	Base bool
	// NoCredentials refuses a user or password in the URL.
	NoCredentials bool
	// OneLine refuses spaces and control characters (a value written to a
	// file as it is).
	OneLine bool
}

// Problem is what is wrong with a URL.
type Problem int

const (
	Empty Problem = iota + 1
	// Spaces: spaces or control characters, under Rules.OneLine.
	Spaces
	// NoScheme: no "://" ("127.0.0.1:13000", which parses, if at all,
	// with the host as its scheme).
	NoScheme
	// Unparsable: url.Parse refused it (Error.Err says why).
	Unparsable
	NotHTTP
	NoHost
	// QueryOrFragment, under Rules.Base.
	QueryOrFragment
	// Credentials, under Rules.NoCredentials.
	Credentials
)

// Error is a URL that Check refused.
type Error struct {
	Problem Problem
	// URL is the URL as it may be shown: its password redacted.
	URL string
	// Err is url.Parse's reason, for Unparsable.
	Err error
}

// Reason says what is wrong, for a caller's message.
func (e *Error) Reason() string {
	switch e.Problem {
	case Empty:
		return "no URL"
	case Spaces:
		return "it holds spaces or control characters"
	case NoScheme:
		return "the scheme is missing"
	case Unparsable:
		var ue *url.Error
		if errors.As(e.Err, &ue) {
			return ue.Err.Error()
		}
		return e.Err.Error()
	case NotHTTP:
		return "want http:// or https://"
	case NoHost:
		return "no host"
	case QueryOrFragment:
		return "no query or fragment expected"
	case Credentials:
		return "it carries credentials"
	}
	return "invalid"
}

func (e *Error) Error() string { return fmt.Sprintf("invalid URL %q: %s", e.URL, e.Reason()) }

// Check parses raw as an absolute http:// or https:// URL with a host,
// under the caller's rules; its error is an *Error.
func Check(raw string, r Rules) (*url.URL, error) {
	fail := func(p Problem, err error) (*url.URL, error) {
		return nil, &Error{Problem: p, URL: redact.URL(raw), Err: err}
	}
	switch {
	case raw == "":
		return fail(Empty, nil)
	case r.OneLine && (strings.ContainsFunc(raw, unicode.IsControl) || strings.Contains(raw, " ")):
		return fail(Spaces, nil)
	case !strings.Contains(raw, "://"):
		return fail(NoScheme, nil)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fail(Unparsable, err)
	case !IsHTTP(u):
		return fail(NotHTTP, nil)
	case u.Host == "":
		return fail(NoHost, nil)
	case r.Base && (u.RawQuery != "" || u.Fragment != ""):
		return fail(QueryOrFragment, nil)
	case r.NoCredentials && u.User != nil:
		return fail(Credentials, nil)
	}
	return u, nil
}

// IsHTTP reports whether u is an http:// or https:// URL.
func IsHTTP(u *url.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }
