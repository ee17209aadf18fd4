package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// The framework behaviour every real endpoint shares, as shakenfist-utilities
// 0.6.9 (api.py generic_wrapper, flask_get_post_body) and Flask / Werkzeug /
// Flask-RESTful give it to the server at shakenfist/shakenfist da448b1a.

// params reads the request's JSON body the way each generation does.
//
// 2024 (generic_wrapper, shakenfist-utilities 0.6.9): on every method (GET
// and DELETE too), query strings ignored, an unparsable or empty body
// taken as {}. Every key becomes a keyword argument of the Python handler,
// so a key the handler does not declare is a TypeError, answered 400 with
// Python's own text naming the handler (e.g. InstancesEndpoint.post).
//
// 2026 (PLAN-api-input-validation, decision D4; _webargs_error in
// base.py @565e36e6e): a declared schema per endpoint; a key it does not
// list is refused with {"error": "<key>: <reason>", "status": 400} naming
// it, and JSON null means "not supplied". The reason text is marshmallow's
// default "Unknown field." (the server's own text was not read).
func (s *Server) params(r *http.Request, handler string, accepted ...string) (map[string]any, *apiError) {
	data, rerr := readBody(r)
	if rerr != nil {
		return nil, rerr
	}
	out := map[string]any{}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return out, nil // get_json(silent) falls back to {}
	}
	m, ok := v.(map[string]any)
	if !ok {
		if s.is2026() {
			return nil, badRequest("_schema: Invalid input type.")
		}
		return nil, badRequest("%s() argument after ** must be a mapping, not %s", handler, pyType(v))
	}
	var unknown []string
	for k := range m {
		if !oneOf(k, accepted) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		if s.is2026() {
			return nil, badRequest("%s: Unknown field.", truncate(unknown[0]))
		}
		return nil, badRequest("%s() got an unexpected keyword argument '%s'", handler, truncate(unknown[0]))
	}
	if s.is2026() {
		for k, val := range m {
			if val == nil {
				delete(m, k)
			}
		}
	}
	return m, nil
}

func readBody(r *http.Request) ([]byte, *apiError) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &apiError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body is larger than the simulator's %d byte limit", maxBodyBytes)}
		}
		return nil, badRequest("cannot read the request body: %s", err)
	}
	return data, nil
}

// pyType names a decoded JSON value's Python type, for TypeError texts.
func pyType(v any) string {
	switch v := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(v.String(), ".eE") {
			return "float"
		}
		return "int"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// truthy is Python's truth value of a decoded JSON value.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case json.Number:
		f, _ := v.Float64()
		return f != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// notFoundHTML is Werkzeug's 404 page: the real API registers its routes with
// Flask-RESTful (catch_all_404s=False), so an unknown path gets Flask's HTML,
// not a JSON error.
const notFoundHTML = `<!doctype html>
<html lang=en>
<title>404 Not Found</title>
<h1>Not Found</h1>
<p>The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.</p>
`

func writeFlask404(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, notFoundHTML)
}

// writeFlask405 is Flask-RESTful's answer for a registered route asked with
// a method its resource does not define: no "error" key.
func writeFlask405(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "The method is not allowed for the requested URL."})
}
