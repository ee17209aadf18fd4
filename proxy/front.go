package proxy

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// The proxy's front door: what it refuses before
// anything is forwarded, and the one memory bound on the request bodies it
// keeps for replay.

// allowedMethods is the Allow header of a 405: every method a client of
// the API sends. CONNECT and PRI are the two the proxy refuses.
const allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"

// DefaultMaxReplayTotal bounds the request bodies buffered for replay
// across all requests in flight: 64 creates of 1 MiB at once, or
// hundreds of thousands of ordinary ones (a create is a few hundred
// bytes). Without it, 300 concurrent 1 MiB POSTs held 455 MB.
const DefaultMaxReplayTotal = 64 << 20

// compileAcceptHosts compiles --accept-hosts: each a regular expression
// the whole host name (without its port) must match.
func compileAcceptHosts(patterns []string) ([]*regexp.Regexp, error) {
	var res []*regexp.Regexp
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		re, err := regexp.Compile(`^(?:` + p + `)$`)
		if err != nil {
			return nil, optionErrorf("{AcceptHosts} %q is not a regular expression: %s", p, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		res = append(res, re)
	}
	return res, nil
}

// hostName is the name in a Host header, without its port or an IPv6
// literal's brackets.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// frontDoor is what the proxy refuses before anything is forwarded, and
// how many it refused: it answers those requests itself and logs each.
type frontDoor struct {
	acceptHosts []*regexp.Regexp
	// hostRefused is the 403 page's format (%q the Host), its option
	// named as the caller names it (Options.OptionName).
	hostRefused string
	log         func(text string, fields any)
	refused     atomic.Int64
}

// hostRefusedPage is the 403 page for a Host the proxy does not accept.
const hostRefusedPage = "shakectl proxy: Host %q is not accepted: only loopback names (localhost, 127.0.0.1, [::1]) are, so that no web page can reach the API through this proxy by DNS rebinding; start the proxy with {AcceptHosts} to accept other names\n"

// newFrontDoor compiles Options.AcceptHosts; log receives each refusal's
// line.
func newFrontDoor(o Options, log func(text string, fields any)) (*frontDoor, error) {
	accept, err := compileAcceptHosts(o.AcceptHosts)
	if err != nil {
		return nil, err
	}
	// The page's format is rendered once, before any Host goes in: a
	// Host is the client's text, never read as a placeholder.
	return &frontDoor{acceptHosts: accept, hostRefused: fielderr.Placeholders(hostRefusedPage, o.OptionName), log: log}, nil
}

// acceptedHost reports whether a request addressed as host may pass: a
// loopback name (localhost or a loopback IP) or one --accept-hosts names.
// A web page the user visits cannot send a loopback name: with DNS
// rebinding it can make its own name resolve to 127.0.0.1, but the Host
// it sends is still its own name.
func (d *frontDoor) acceptedHost(host string) bool {
	name := hostName(host)
	if name == "" {
		return false
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, re := range d.acceptHosts {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// refuse answers a request the proxy does not forward and reports whether
// it did: CONNECT (a forward proxy's method; this is a reverse proxy) and
// HTTP/2's "PRI *" preface on this HTTP/1 listener get a 405, a Host
// that is not accepted a 403. Each is one line on the log.
func (d *frontDoor) refuse(w http.ResponseWriter, r *http.Request) bool {
	var status int
	var reason, body string
	switch {
	case r.Method == http.MethodConnect:
		status, reason = http.StatusMethodNotAllowed, "CONNECT is not forwarded"
		body = "shakectl proxy: CONNECT is not forwarded: this is a reverse proxy in front of one Shakenfist API, not a forward proxy\n"
	case r.Method == "PRI" && r.RequestURI == "*":
		status, reason = http.StatusMethodNotAllowed, "the HTTP/2 preface (PRI *) is not forwarded"
		body = "shakectl proxy: PRI * (HTTP/2 with prior knowledge) is not supported: send HTTP/1.1\n"
	case !d.acceptedHost(r.Host):
		status, reason = http.StatusForbidden, fmt.Sprintf("Host %q is not accepted", r.Host)
		body = fmt.Sprintf(d.hostRefused, r.Host)
	default:
		return false
	}
	text := fmt.Sprintf("%s %s: refused (%d): %s", r.Method, r.RequestURI, status, reason)
	d.log(text, struct {
		Event   string `json:"event"`
		Method  string `json:"method"`
		Path    string `json:"path"`
		Host    string `json:"host"`
		Status  int    `json:"status"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}{"refused", r.Method, r.RequestURI, r.Host, status, reason, text})
	d.refused.Add(1)
	h := w.Header()
	if status == http.StatusMethodNotAllowed {
		h.Set("Allow", allowedMethods)
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Connection", "close")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
	return true
}

// replayMemory is the one bound on the bodies buffered for replay across
// all requests in flight.
type replayMemory struct {
	max  int64
	used atomic.Int64
}

// take reserves n bytes and reports whether they fit; a reservation is
// given back with give when its request is done.
func (m *replayMemory) take(n int64) bool {
	for {
		used := m.used.Load()
		if used+n > m.max {
			return false
		}
		if m.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

func (m *replayMemory) give(n int64) { m.used.Add(-n) }
