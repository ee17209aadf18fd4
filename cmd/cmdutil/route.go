package cmdutil

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/shakenfist/shakectl/client"
)

// RouteNotFoundError is a 404 for a path the API has no route for, from a
// server that has already answered as the Shakenfist API (the login
// succeeded): Flask answers such a path with its HTML 404 page. It is a not
// found (exit 5, as "shakectl api --help" promises), and its hint speaks of
// the path, not of the API URL.
type RouteNotFoundError struct {
	Method, Path string
	Err          *client.APIError
}

func (e *RouteNotFoundError) Error() string { return e.Err.Error() }
func (e *RouteNotFoundError) Unwrap() error { return e.Err }

// Hint says what to check.
func (e *RouteNotFoundError) Hint() string {
	return fmt.Sprintf("the API answered, but has no route %s %s: check the path (relative to the API URL, e.g. /instances) and the server's version", e.Method, e.Path)
}

// AsRouteNotFound returns err as a RouteNotFoundError when it is a 404
// HTML page answering a request other than the login (which, had it
// failed, would be the error instead); else err unchanged.
func AsRouteNotFound(err error, method, path string) error {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound && apiErr.IsHTML() && !apiErr.AtLogin() {
		return &RouteNotFoundError{Method: method, Path: path, Err: apiErr}
	}
	return err
}
