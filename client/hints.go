package client

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/shakenfist/shakectl/retry"
)

// What the server's answers mean. The server says little beyond a status and
// a message; these read the message the way shakenfist da448b1a words it
// (external_api/*.py, scheduler.py) and seed 004's capacity-refusal
// contract does, and say what to do next. They sit beside the typed errors
// so that every command, and anything else built on the client, explains a
// refusal the same way.

// NotAnAPIHint is the hint for an HTML answer: Flask's own 404 page for a
// route the API does not have (e.g. http://host:13000/api/auth), an Apache
// or proxy page.
const NotAnAPIHint = "this is not a Shakenfist API: the URL answered with an HTML page; a real API URL is " + APIURLForms

// Hint says what an API error most likely means and what to do about it,
// from its status and message; "" when the status says it all. A capacity
// refusal's own hint is CapacityRefusal.Hint. Refused credentials (401, or
// 404 at login) are the caller's to explain: only it knows where they came
// from.
func (e *APIError) Hint() string {
	msg := strings.ToLower(e.Message)
	switch code := e.StatusCode; {
	case e.IsHTML() && code < 500:
		return NotAnAPIHint
	case code == http.StatusForbidden:
		return "this namespace's key is not allowed to do that; use a key of the owning namespace (or system)"
	case code == http.StatusNotFound:
		return notFoundHint(msg)
	case code == http.StatusConflict:
		return conflictHint(msg)
	case code == http.StatusNotAcceptable:
		return "something the request depends on is not ready yet (a network still initial, an instance not created); wait for it, or give a longer --timeout or --async block"
	case code >= 300 && code < 400:
		return "the API URL must point at the Shakenfist API itself (" + APIURLForms + "); an expired session on a login proxy also redirects"
	case code == http.StatusBadRequest:
		return "the server refused the request's parameters"
	case code >= 500 && code != http.StatusInsufficientStorage:
		if e.RequestID != "" {
			return "the server failed; try again, and quote request id " + e.RequestID + " when reporting it"
		}
		return "the server failed; try again later"
	case code == http.StatusInsufficientStorage:
		// A 507 without a JSON body: no stage, no transient mark.
		return "the cluster refused for lack of capacity without saying where; waiting will not necessarily help"
	}
	return ""
}

// IsAffinityConflict says a 409 is a seed server's hard-affinity refusal
// (seed 004): the only 409 that is a capacity refusal.
func (e *APIError) IsAffinityConflict() bool {
	return e.StatusCode == http.StatusConflict && mentionsAffinity(strings.ToLower(e.Message))
}

func mentionsAffinity(msg string) bool {
	return strings.Contains(msg, "affinity") || strings.Contains(msg, "require_with")
}

// conflictHint reads a 409 by its message: shakenfist da448b1a sends 409
// for a taken fixed address and for a power action the instance's state
// forbids; a seed server also for hard affinity.
func conflictHint(msg string) string {
	switch {
	case mentionsAffinity(msg):
		return "a hard placement constraint (affinity require_with_tag / require_without_tag) cannot be met by any node; the cluster is not full, relax the constraint"
	case strings.Contains(msg, "in use"):
		return "that fixed address is already taken on the network; choose another with -n NET@ADDR, or leave the address out"
	case strings.Contains(msg, "lifecycle state"):
		return "the instance's power state does not allow that (e.g. it is powered off); \"shakectl instance poweron\" first"
	}
	return "the request conflicts with the resource's current state"
}

// notFoundHint reads a 404 by its message: the server names what it could
// not find (shakenfist da448b1a).
func notFoundHint(msg string) string {
	switch {
	case strings.Contains(msg, "namespace"):
		return "the namespace does not exist or does not trust yours; \"shakectl namespace list\" shows the namespaces you can see"
	case strings.Contains(msg, "network"):
		return "no network of yours has that name or UUID; \"shakectl network list\" shows them"
	case strings.Contains(msg, "node"):
		return "the node (--placement) does not exist, is not ready, or is not a candidate; \"shakectl node list\" shows the nodes"
	case strings.Contains(msg, "label") || strings.Contains(msg, "artifact") || strings.Contains(msg, "blob"):
		return "the disk's base image (label or artifact) was not found; check the BASE of -d SIZE@BASE"
	case strings.Contains(msg, "instance"):
		return "no instance of yours has that name or UUID; \"shakectl instance list\" shows them"
	}
	return "nothing has that name or UUID; the list commands show what exists"
}

// Hint says whether waiting can help a capacity refusal, and what else
// would, given how many attempts were already made.
func (c *CapacityRefusal) Hint(attempts int) string {
	switch {
	case c.Transient:
		if attempts >= retry.MaxAttempts {
			return fmt.Sprintf("the cluster is still short of capacity at stage %s after %d attempts, the most --retry-transient-capacity sends; try again later", c.Stage, attempts)
		}
		if attempts > 1 {
			return fmt.Sprintf("the cluster is still short of capacity at stage %s; try again later or give a longer --timeout", c.Stage)
		}
		return fmt.Sprintf("the cluster is short of capacity at stage %s right now; --retry-transient-capacity waits and retries as the server suggests", c.Stage)
	case c.Stage == "cpu_max_per_instance":
		return "no node in the cluster hosts that many vCPUs; ask for fewer vCPUs"
	case c.Stage == "is_hypervisor":
		return "no candidate node is a hypervisor; check --placement and \"shakectl node list\""
	case c.Stage == "pre_schedule":
		return "there were no candidate nodes to place on; check --placement and \"shakectl node list\""
	case c.Stage == "":
		return schedulerMessageHint(strings.ToLower(c.Message))
	case c.Stage == "unknown":
		return "the server gave no stage for this refusal, which should not happen; report it to the cluster's operators"
	}
	return fmt.Sprintf("waiting will not fix a refusal at stage %s; change the request", c.Stage)
}

// schedulerMessageHint reads a 507 without a stage by its message: servers
// before seed 004 (shakenfist da448b1a scheduler.py) send every refusal
// that way, and only "No free addresses on network" (CongestedNetwork) is
// about the address pool.
func schedulerMessageHint(msg string) string {
	switch {
	case strings.Contains(msg, "free addresses") || strings.Contains(msg, "address pool") || strings.Contains(msg, "congested"):
		return "the network's address pool is exhausted: add address space or free a network; retrying will not help"
	case strings.Contains(msg, "vcpu limit"):
		return "no node in the cluster hosts that many vCPUs; ask for fewer vCPUs"
	case strings.Contains(msg, "with metrics"):
		return "no hypervisor has reported its metrics (none is up, or --placement names a node that is not one); \"shakectl node list\" shows the nodes"
	case strings.Contains(msg, "idle cpu"):
		return "no node has enough idle vCPUs for the request; ask for fewer vCPUs or free some instances"
	case strings.Contains(msg, "idle ram"):
		return "no node has enough free memory for the request; ask for less memory or free some instances"
	case strings.Contains(msg, "disk space"):
		return "no node has enough free disk for the request (the scheduler keeps 20 GiB free); ask for smaller disks or free some instances"
	}
	return "the cluster refused for lack of capacity; this server does not say whether waiting helps"
}

// Hint says what an answer that is not the API's JSON most likely means.
func (e *ResponseError) Hint() string {
	switch {
	case strings.Contains(e.Problem, "HTML"):
		return NotAnAPIHint
	case strings.Contains(e.Problem, "truncated"), strings.Contains(e.Problem, "empty"):
		return "the answer was cut short: a proxy or the server may have failed mid-answer; try again"
	}
	return "the server's answer is not what the Shakenfist API sends; check the API URL and the server's version"
}
