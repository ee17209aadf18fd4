package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// DecodeJSON decodes a JSON document, numbers kept as json.Number; ok is
// false when data is not one JSON document.
func DecodeJSON(data []byte) (v any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return v, true
}

// Shape describes a JSON value's shape: an object's keys with their
// shapes, an array's distinct element shapes, else the type's name.
func Shape(v any) string {
	switch t := v.(type) {
	case map[string]any:
		keys := sortedKeys(t)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q: %s", k, Shape(t[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		seen := map[string]bool{}
		var elems []string
		for _, e := range t {
			if s := Shape(e); !seen[s] {
				seen[s] = true
				elems = append(elems, s)
			}
		}
		sort.Strings(elems)
		return "[" + strings.Join(elems, " | ") + "]"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// ShapeDiff lists where sim's shape differs from real's: missing and
// extra keys, and values of another type. A null on one side matches any
// type on the other (a field not yet set: an instance's node before
// placement). Arrays are compared element by element: each of the
// simulator's elements must have the shape of one of the real server's
// (a real list may hold objects other clients made, of other shapes);
// the differences shown are those from the real element of the same
// name, else the first. An empty array on either side matches, and so
// does an empty object below the top level ("$"): such an object is a map
// with no entries (metadata, an artifact's blobs, an instance's
// references), which says nothing of the entries the other side has.
func ShapeDiff(at string, real, sim any) []string {
	if real == nil || sim == nil {
		return nil
	}
	switch r := real.(type) {
	case map[string]any:
		s, ok := sim.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: the real server sent an object, the simulator %s", at, Shape(sim))}
		}
		if at != "$" && (len(r) == 0 || len(s) == 0) {
			return nil
		}
		var diffs []string
		for _, k := range sortedKeys(r) {
			sv, ok := s[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing (the real server sent %s)", at, k, Shape(r[k])))
				continue
			}
			diffs = append(diffs, ShapeDiff(at+"."+k, r[k], sv)...)
		}
		for _, k := range sortedKeys(s) {
			if _, ok := r[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: not sent by the real server (the simulator sent %s)", at, k, Shape(s[k])))
			}
		}
		return diffs
	case []any:
		s, ok := sim.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: the real server sent an array, the simulator %s", at, Shape(sim))}
		}
		if len(r) == 0 || len(s) == 0 {
			return nil
		}
		var diffs []string
		for i, se := range s {
			best := r[0]
			fits := false
			for _, re := range r {
				if n := field(re, "name"); n != "" && n == field(se, "name") {
					best = re
				}
				if len(ShapeDiff("", re, se)) == 0 {
					fits = true
					break
				}
			}
			if !fits {
				diffs = append(diffs, ShapeDiff(fmt.Sprintf("%s[%d]", at, i), best, se)...)
			}
		}
		return diffs
	}
	if Shape(real) != Shape(sim) {
		return []string{fmt.Sprintf("%s: the real server sent a %s, the simulator a %s", at, Shape(real), Shape(sim))}
	}
	return nil
}
