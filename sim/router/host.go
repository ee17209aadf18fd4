package router

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// HostSuffix is the DNS suffix under which actors are addressed:
// <actor>.<atespace>.actors.resources.substrate.ate.dev.
const HostSuffix = ".actors.resources.substrate.ate.dev"

// maxLabel is DNS's limit on one label.
const maxLabel = 63

// ParseHost reads the actor and atespace from a Host header value
// "<actor>.<atespace>.actors.resources.substrate.ate.dev[:port]". The port
// is ignored, case is folded (DNS names are case-insensitive) and a trailing
// root dot is accepted.
func ParseHost(host string) (atespace, actor string, err error) {
	h := host
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
		var port string
		h, port, err = net.SplitHostPort(h)
		if err != nil {
			return "", "", err
		}
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return "", "", fmt.Errorf("port %q is not a number", port)
		}
	}
	h = strings.TrimSuffix(asciiLower(h), ".")
	if h == "" {
		return "", "", errors.New("empty host")
	}
	prefix, ok := strings.CutSuffix(h, HostSuffix)
	if !ok {
		return "", "", fmt.Errorf("not under %s: want <actor>.<atespace>%s", HostSuffix[1:], HostSuffix)
	}
	actor, atespace, ok = strings.Cut(prefix, ".")
	if !ok || strings.Contains(atespace, ".") {
		return "", "", fmt.Errorf("want exactly <actor>.<atespace> before %s", HostSuffix)
	}
	if err := checkLabel(actor); err != nil {
		return "", "", fmt.Errorf("actor name %q: %v", actor, err)
	}
	if err := checkLabel(atespace); err != nil {
		return "", "", fmt.Errorf("atespace %q: %v", atespace, err)
	}
	return atespace, actor, nil
}

// asciiLower folds A-Z only: Unicode folding would turn look-alikes (the
// Kelvin sign K) into a different, valid actor name.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// checkLabel accepts a lower-case DNS label (RFC 1123): 1–63 characters of
// a-z, 0-9 and '-', not starting or ending with '-'.
func checkLabel(s string) error {
	switch {
	case s == "":
		return errors.New("empty name")
	case len(s) > maxLabel:
		return fmt.Errorf("longer than %d characters", maxLabel)
	case s[0] == '-' || s[len(s)-1] == '-':
		return errors.New("must not start or end with '-'")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("character %q not allowed (a-z, 0-9 and '-' only)", c)
		}
	}
	return nil
}

// quoteHost quotes a Host header for an error body, cut short so a huge
// header is not echoed back whole.
func quoteHost(h string) string {
	const max = 253 // the longest DNS name
	if len(h) > max {
		return fmt.Sprintf("%q…", h[:max])
	}
	return fmt.Sprintf("%q", h)
}

// pr221Suffix is the DNS suffix PR #221 (4a8f978b) strips from the Host:
// it predates the atespace label.
const pr221Suffix = "actors.resources.substrate.ate.dev"

// parseHostPR221 reads the actor id as PR #221's parseActorID does
// (cmd/atenet/internal/router/extproc_in.go): the port is dropped, one
// trailing dot is allowed, nothing is case-folded, and what is left before
// the suffix must be one DNS-1123 label, so the atespace form fails with
// the label rule. The error is the body after `invalid host "…": `.
func parseHostPR221(host string) (string, error) {
	h := host
	if strings.Contains(h, ":") {
		var err error
		if h, _, err = net.SplitHostPort(h); err != nil {
			return "", err
		}
	}
	id, ok := strings.CutSuffix(strings.TrimSuffix(h, "."), "."+pr221Suffix)
	if !ok {
		return "", fmt.Errorf("invalid actor_id: must end with %s, got %q", pr221Suffix, h)
	}
	if len(id) > maxLabel {
		return "", errors.New("invalid actor_id: must be no more than 63 characters")
	}
	if checkLabel(id) != nil {
		return "", errors.New("invalid actor_id: must start and end with a lower case alphanumeric character, and consist only of lower case alphanumeric characters or '-'")
	}
	return id, nil
}

// parseHost202608 reads <actor>.<atespace>.actors.resources.substrate.ate.dev
// as upstream main 2026-08 (6210ad86) does, and fails with its texts: the
// form without the atespace was captured (atenet-router-6210ad86/badhost),
// the others are as the reference reads the source. A port is stripped and
// a trailing dot ignored; nothing is case-folded. The error is the body
// after `invalid host "…": `.
func parseHost202608(host string) (atespace, actor string, err error) {
	h := host
	if strings.Contains(h, ":") {
		if hh, _, serr := net.SplitHostPort(h); serr == nil {
			h = hh
		}
	}
	h = strings.TrimSuffix(h, ".")
	prefix, ok := strings.CutSuffix(h, "."+pr221Suffix)
	if !ok {
		return "", "", fmt.Errorf("invalid actor DNS name: must end with %s, got %q", pr221Suffix, h)
	}
	actor, atespace, ok = strings.Cut(prefix, ".")
	if !ok || strings.Contains(atespace, ".") {
		return "", "", fmt.Errorf("invalid actor DNS name: expected <actor_name>.<atespace>.%s, got %q", pr221Suffix, h)
	}
	if checkLabel(actor) != nil {
		return "", "", fmt.Errorf("invalid actor DNS name %q: %q is not a valid actor name", h, actor)
	}
	if checkLabel(atespace) != nil {
		return "", "", fmt.Errorf("invalid actor DNS name %q: %q is not a valid atespace", h, atespace)
	}
	return atespace, actor, nil
}
