package capture

import (
	"net/netip"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// IDs pairs the identifiers a real server generated with those a
// simulator generated for the same objects (UUIDs, addresses, node
// names), so that a recorded request can be sent to the simulator with
// its identifiers, and a recorded answer read with them.
type IDs struct {
	fwd  map[string]string // real → simulator
	back map[string]string // simulator → real
}

// NewIDs is an empty pairing.
func NewIDs() *IDs { return &IDs{fwd: map[string]string{}, back: map[string]string{}} }

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID says whether s is written as a UUID.
func IsUUID(s string) bool { return uuidRE.MatchString(s) }

// isAddress says whether s is an IP address (not a netblock).
func isAddress(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// identifierKey says whether a field holds a generated identifier
// whatever it looks like: a node's name is one (nodes are named by their
// deployer, "sf-1" on one cluster, "node1" on the simulator).
func identifierKey(key string) bool {
	return key == "uuid" || key == "node" || key == "locations" || strings.HasSuffix(key, "_uuid")
}

// Set pairs a real identifier with the simulator's. The first pairing of
// either side wins: a later one that contradicts it is ignored (two
// instances the real server placed on one node may sit on two of the
// simulator's).
func (ids *IDs) Set(real, sim string) {
	if real == "" || sim == "" || real == sim {
		return
	}
	if _, ok := ids.fwd[real]; ok {
		return
	}
	if _, ok := ids.back[sim]; ok {
		return
	}
	ids.fwd[real], ids.back[sim] = sim, real
}

// Sim is the simulator's identifier for a real one.
func (ids *IDs) Sim(real string) (string, bool) {
	s, ok := ids.fwd[real]
	return s, ok
}

// Len is how many identifiers are paired.
func (ids *IDs) Len() int { return len(ids.fwd) }

// Learn pairs the identifiers found at the same place in a real answer
// and the simulator's answer to the same request: values of identifier
// fields (uuid, *_uuid, node, locations), UUIDs and addresses anywhere,
// and the query values of two URLs (a token minted into a link). Objects are walked by key; list elements are paired by an
// identifier already known, else by name, else by position when the
// lists are as long and in the same order as far as they were paired. A top-level answer that
// is one UUID or address (an address reserved for a route) is paired too.
func (ids *IDs) Learn(real, sim any) {
	if rs, ok := real.(string); ok {
		if ss, ok := sim.(string); ok && (IsUUID(rs) || isAddress(rs)) {
			ids.Set(rs, ss)
		}
		return
	}
	ids.learn("", real, sim)
}

func (ids *IDs) learn(key string, real, sim any) {
	switch r := real.(type) {
	case string:
		s, ok := sim.(string)
		switch {
		case !ok:
		case identifierKey(key) || IsUUID(r) && IsUUID(s) || isAddress(r) && isAddress(s):
			ids.Set(r, s)
		default:
			ids.learnURL(r, s)
		}
	case map[string]any:
		s, ok := sim.(map[string]any)
		if !ok {
			return
		}
		for _, k := range sortedKeys(r) {
			if sv, ok := s[k]; ok {
				ids.learn(k, r[k], sv)
			}
		}
	case []any:
		s, ok := sim.([]any)
		if !ok {
			return
		}
		for i, j := range ids.pairElements(key, r, s) {
			ids.learn(key, r[i], s[j])
		}
	}
}

// learnURL pairs the query values of two URLs that name the same
// parameters: a credential a server minted into a link (the token of a
// console URL) is named by a later request.
func (ids *IDs) learnURL(real, sim string) {
	ru, err1 := url.Parse(real)
	su, err2 := url.Parse(sim)
	if err1 != nil || err2 != nil || ru.Scheme == "" || su.Scheme == "" {
		return
	}
	rq, sq := ru.Query(), su.Query()
	for k, rv := range rq {
		if sv, ok := sq[k]; ok && len(rv) == 1 && len(sv) == 1 {
			ids.Set(rv[0], sv[0])
		}
	}
}

// pairElements pairs a real list's elements with the simulator's: real
// index → simulator index.
func (ids *IDs) pairElements(key string, r, s []any) map[int]int {
	pairs := map[int]int{}
	used := map[int]bool{}
	match := func(same func(re, se any) bool) {
		for i, re := range r {
			if _, done := pairs[i]; done {
				continue
			}
			for j, se := range s {
				if !used[j] && same(re, se) {
					pairs[i], used[j] = j, true
					break
				}
			}
		}
	}
	match(func(re, se any) bool {
		ru, su := field(re, "uuid"), field(se, "uuid")
		known, ok := ids.fwd[ru]
		return ru != "" && ok && known == su
	})
	match(func(re, se any) bool {
		rn := field(re, "name")
		return rn != "" && rn == field(se, "name")
	})
	// The rest are paired by position when the lists are as long and
	// every pair found so far sits at the same position in both. Only
	// lists of objects or of identifiers: a list of UUIDs (a delete-all's
	// answer) comes in each server's own order.
	if len(r) != len(s) {
		return pairs
	}
	for i, j := range pairs {
		if i != j {
			return pairs
		}
	}
	for i := range r {
		_, obj := r[i].(map[string]any)
		if _, done := pairs[i]; !done && !used[i] && (obj || identifierKey(key)) {
			pairs[i] = i
		}
	}
	return pairs
}

func field(v any, k string) string {
	m, _ := v.(map[string]any)
	s, _ := m[k].(string)
	return s
}

// metricUUIDRE is a UUID spelled with '_' for '-', as a server writes one
// into a metric's name (resources.py's _safe_metric_name: the process
// sf-sidechannel-<instance uuid> is process_age_sf_sidechannel_<uuid
// with '_'>).
var metricUUIDRE = regexp.MustCompile(`[0-9a-fA-F]{8}_[0-9a-fA-F]{4}_[0-9a-fA-F]{4}_[0-9a-fA-F]{4}_[0-9a-fA-F]{12}`)

// Translate replaces, in text, each whole token (a run of letters,
// digits, '.', ':', '-' and '_') that is a known real identifier with the
// simulator's: a request path, a body, an error text. Within a longer
// token, a known UUID spelled with '_' (a metric's name) is replaced by
// the simulator's, spelled the same way.
func (ids *IDs) Translate(text string) string {
	if len(ids.fwd) == 0 {
		return text
	}
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		tok := text[start:end]
		if s, ok := ids.fwd[tok]; ok {
			tok = s
		} else if strings.Contains(tok, "_") {
			tok = metricUUIDRE.ReplaceAllStringFunc(tok, func(u string) string {
				if s, ok := ids.fwd[strings.ReplaceAll(u, "_", "-")]; ok && IsUUID(s) {
					return strings.ReplaceAll(s, "-", "_")
				}
				return u
			})
		}
		b.WriteString(tok)
		start = -1
	}
	for i := 0; i < len(text); i++ {
		if tokenByte(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteByte(text[i])
	}
	flush(len(text))
	return b.String()
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == ':' || c == '-' || c == '_'
}

// TranslateValue is a decoded JSON value with every string translated,
// an object's keys too (a map keyed by identifier: a node's process
// metrics per process, locks per object).
func (ids *IDs) TranslateValue(v any) any {
	switch t := v.(type) {
	case string:
		return ids.Translate(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[ids.Translate(k)] = ids.TranslateValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = ids.TranslateValue(e)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
