package capture

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Compare lists how the simulator's answer to a recorded request differs
// from the real server's, reading the real one with the simulator's
// identifiers (ids). What is compared:
//
//   - the status;
//   - the Content-Type, and Retry-After and Location when either sends one;
//   - an error answer (any status but 2xx) whose body is JSON: the whole
//     body, the error text included; lists of identifiers in it (the
//     "deleted" and "unable" of a delete-all's 403) in any order;
//   - a success answer whose body is JSON: its shape (keys and value
//     types, recursively: ShapeDiff) and, at the top level, whether a
//     list is empty, a list of identifiers (a delete-all's answer) in any
//     order, a lone value (a string, a number, null) exactly, and every
//     field of the request's JSON body that the real answer repeats (a
//     field the server ignored or changed: "provide_dhcp": false answered
//     true);
//   - a body that is not JSON: only whether it is empty (a console log or
//     a file's bytes are the node's, not the API's).
func Compare(ids *IDs, requestBody []byte, real, sim *Response) []string {
	var diffs []string
	if real.Status != sim.Status {
		diffs = append(diffs, fmt.Sprintf("status %d, the real server's %d", sim.Status, real.Status))
	}
	for _, h := range []string{"Content-Type", "Retry-After", "Location"} {
		rv, sv := real.Header.Get(h), sim.Header.Get(h)
		if h == "Content-Type" || rv != "" || sv != "" {
			if ids.Translate(rv) != sv {
				diffs = append(diffs, fmt.Sprintf("%s %q, the real server's %q", h, sv, rv))
			}
		}
	}
	realV, realJSON := DecodeJSON(real.Body)
	simV, simJSON := DecodeJSON(sim.Body)
	switch {
	case !realJSON:
		if simJSON && len(real.Body) > 0 {
			diffs = append(diffs, "the simulator answered JSON, the real server did not")
		}
		if (len(real.Body) == 0) != (len(sim.Body) == 0) {
			diffs = append(diffs, fmt.Sprintf("body of %d bytes, the real server's %d", len(sim.Body), len(real.Body)))
		}
		return diffs
	case !simJSON:
		return append(diffs, "the real server answered JSON, the simulator did not")
	case real.Status != sim.Status:
		return diffs
	}
	realV = ids.TranslateValue(realV)
	if real.Status < 200 || real.Status > 299 {
		if !sameValue(realV, simV) {
			diffs = append(diffs, "a different body")
		}
		return diffs
	}
	switch r := realV.(type) {
	case map[string]any:
		diffs = append(diffs, ShapeDiff("$", realV, simV)...)
		s, _ := simV.(map[string]any)
		req, _ := DecodeJSON(requestBody)
		reqObj, _ := req.(map[string]any)
		for _, k := range sortedKeys(reqObj) {
			rv, inReal := r[k]
			sv, inSim := s[k]
			if inReal && inSim && scalar(reqObj[k]) && scalar(rv) && !sameValue(rv, sv) {
				diffs = append(diffs, fmt.Sprintf("$.%s: %s (the request sent %s), the real server's %s", k, jsonText(sv), jsonText(reqObj[k]), jsonText(rv)))
			}
		}
	case []any:
		s, _ := simV.([]any)
		switch {
		case (len(r) == 0) != (len(s) == 0):
			diffs = append(diffs, fmt.Sprintf("a list of %d, the real server's of %d", len(s), len(r)))
		case allStrings(r):
			if !sameValue(r, simV) {
				diffs = append(diffs, fmt.Sprintf("the list %s, the real server's %s", jsonText(simV), jsonText(r)))
			}
		default:
			diffs = append(diffs, ShapeDiff("$", realV, simV)...)
		}
	default:
		if !sameValue(realV, simV) {
			diffs = append(diffs, fmt.Sprintf("%s, the real server's %s", jsonText(simV), jsonText(realV)))
		}
	}
	return diffs
}

// ResponseOf is a live answer in the form Compare reads.
func ResponseOf(status int, header http.Header, body []byte) *Response {
	return &Response{Status: status, Header: header, Body: body}
}

func scalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func allStrings(l []any) bool {
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return len(l) > 0
}

// sameValue compares decoded JSON values; lists of strings in any order.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if allStrings(x) && allStrings(y) {
			xs, ys := strs(x), strs(y)
			sort.Strings(xs)
			sort.Strings(ys)
			return strings.Join(xs, "\x00") == strings.Join(ys, "\x00")
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return jsonText(a) == jsonText(b)
}

func strs(l []any) []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i], _ = e.(string)
	}
	return out
}

// jsonText writes a decoded value for a message (and for comparing
// scalars: json.Number "10" and "10.0" differ, as they do on the wire).
func jsonText(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", t)
	}
	return fmt.Sprint(v)
}
