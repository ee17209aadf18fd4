package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// UsageError is a request the client refuses to send because the server
// would refuse it for the same reason (an events limit outside 1–1000, a
// malformed spec): the command treats it as a usage error (exit 2).
type UsageError struct {
	// Field names the parameter, as the server spells it ("limit").
	Field   string
	Problem string
}

func (e *UsageError) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Problem)
}

// NotSupportedError says the server does not offer what was asked: it does
// not advertise the capability on its root page, or the route is not there
// (its own answer was Flask's HTML 404 page).
type NotSupportedError struct {
	// Feature is what the user asked for, e.g. "cluster resources".
	Feature string
	// Capability is the capability string the server would advertise,
	// when there is one.
	Capability string
	// Route is the route that is missing, when that is how it was found.
	Route string
	// Err is the server's answer when the route's own answer said so.
	Err error
}

func (e *NotSupportedError) Error() string {
	switch {
	case e.Route != "" && e.Err != nil:
		return fmt.Sprintf("this server does not support %s (it has no route %s)", e.Feature, e.Route)
	case e.Capability != "":
		return fmt.Sprintf("this server does not support %s (it does not advertise the capability %q)", e.Feature, e.Capability)
	}
	return fmt.Sprintf("this server does not support %s", e.Feature)
}

func (e *NotSupportedError) Unwrap() error { return e.Err }

// routeMissing says an error is the answer of a server that has no such
// route: Flask's HTML 404 page (catch_all_404s=False, shakenfist da448b1a
// app.py) or Flask-RESTful's 405 for a method the route lacks. A JSON 404
// is the route's own "not found" and is not that.
func routeMissing(err error) bool {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.StatusCode {
	case http.StatusNotFound:
		return apiErr.IsHTML()
	case http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// ClaimRefusalKind says which of the claim routes' refusals an answer is
// (shakenfist 2026 external_api/auth.py CLAIM_REFUSAL_STATUS).
type ClaimRefusalKind string

// The kinds of claim refusal.
const (
	// ClaimNoCapacity is the 507 "the cluster does not have the capacity
	// to promise this claim": permanent, as no transient marker says
	// otherwise (the claim routes send none).
	ClaimNoCapacity ClaimRefusalKind = "no-capacity"
	// ClaimRetryLater is a 503: the capacity accounting is not built yet,
	// or the claim was contended; the server says "please retry".
	ClaimRetryLater ClaimRefusalKind = "retry-later"
	// ClaimAlreadyHeld is the 409 "this namespace already holds an active
	// claim".
	ClaimAlreadyHeld ClaimRefusalKind = "already-held"
	// ClaimConflict is any other 409: a shrink below what the claim uses,
	// or a claim that is no longer active.
	ClaimConflict ClaimRefusalKind = "conflict"
)

// ClaimRefusal is a capacity claim route's refusal, reached with errors.As
// from the error of CreateNamespaceClaim and UpdateNamespaceClaim. It wraps
// the *APIError (errors.As still finds it, with the server's message).
type ClaimRefusal struct {
	Kind ClaimRefusalKind
	Err  *APIError
}

func (e *ClaimRefusal) Error() string { return e.Err.Error() }
func (e *ClaimRefusal) Unwrap() error { return e.Err }

// Transient says waiting and asking again can help: only the 503 (the
// server's own words: "please retry").
func (e *ClaimRefusal) Transient() bool { return e.Kind == ClaimRetryLater }

// claimRefusal turns a claim route's error into a *ClaimRefusal when it is
// one of the refusals the route documents.
func claimRefusal(err error) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	var kind ClaimRefusalKind
	switch apiErr.StatusCode {
	case http.StatusInsufficientStorage:
		kind = ClaimNoCapacity
	case http.StatusServiceUnavailable:
		kind = ClaimRetryLater
	case http.StatusConflict:
		kind = ClaimConflict
		if strings.Contains(apiErr.Message, "already holds") {
			kind = ClaimAlreadyHeld
		}
	default:
		return err
	}
	return &ClaimRefusal{Kind: kind, Err: apiErr}
}

// ClusterOperationFailed is a cluster operation that ended in state error
// or abort (client-python 74d6e129 raises ClusterOperationFailed carrying
// op_type, op_uuid and the final view).
type ClusterOperationFailed struct {
	Handle OperationHandle
	// Op is the operation's final view; Op.Raw is the server's object.
	Op *ClusterOperation
}

func (e *ClusterOperationFailed) Error() string {
	msg := fmt.Sprintf("cluster operation %s/%s ended in state %s", e.Handle.OpType, e.Handle.OpUUID, e.Op.State)
	if m := e.Op.ErrorMessage(); m != "" {
		msg += ": " + m
	}
	return msg
}
