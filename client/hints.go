package client

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/retry"
)

// What the server's answers mean. The server says little beyond a status and
// a message; these read the message the way shakenfist da448b1a words it
// (external_api/*.py, scheduler.py) and the capacity-refusal contract
// (docs/operator_guide/capacity_refusals.md at 0c24a714, external_api/base.py
// at 565e36e6e) does, and say what to do next. They sit beside the typed errors
// so that every command, and anything else built on the client, explains a
// refusal the same way.

// NotAnAPIHint is the hint for an HTML answer: Flask's own 404 page for a
// route the API does not have (e.g. http://host:13000/api/auth), an Apache
// or proxy page.
const NotAnAPIHint = "this is not a Shakenfist API: the URL answered with an HTML page; a real API URL is " + APIURLForms

// Hint says what an API error most likely means and what to do about it,
// from the route it came from, its status and the server's message; ""
// when the status says it all. The options a hint advises on are named as
// internal/fielderr placeholders ({NotReadyBudget},
// {CreateInstanceRequest.PlacedOn}), written by name as the caller names
// them (a command: its flags), never as a server's text is. A hint never
// names an option the command may not have: the create options (-d
// SIZE@BASE, the placement) are named only for an answer to POST
// /instances. A capacity refusal's own hint is CapacityRefusal.Hint.
// Refused credentials (401 at login, or not known to have logged in:
// KeyAccepted false; 404 at login) are the caller's to explain: only it
// knows where they came from; so is advice that is a command line (a
// namespace that still holds resources: NamespaceNotEmpty; a refused
// parameter and the command's help: RefusedParameter).
func (e *APIError) Hint(name func(field string) string) string {
	msg := strings.ToLower(e.Message)
	switch code := e.StatusCode; {
	case e.IsHTML() && code < 500:
		return NotAnAPIHint
	case code == http.StatusUnauthorized:
		return unauthorizedHint(msg, e.Method, e.route())
	case code == http.StatusForbidden:
		return forbiddenHint(msg)
	case code == http.StatusNotFound && e.Method == http.MethodPost && e.route() == "/instances":
		return fielderr.Placeholders(hintByMessage(msg, createNotFoundHints, notFoundFallback), name)
	case code == http.StatusNotFound:
		return notFoundHint(msg)
	case code == http.StatusConflict:
		return conflictHint(msg)
	case code == http.StatusNotAcceptable:
		return fielderr.Placeholders("something the request depends on is not ready yet (a network still initial, an instance not created); wait for it, or give a longer {NotReadyBudget}", name)
	case code >= 300 && code < 400:
		return "the API URL must point at the Shakenfist API itself (" + APIURLForms + "); an expired session on a login proxy also redirects"
	case e.NamespaceNotEmpty() || e.RefusedParameter() != "":
		// The caller's to explain: the command that clears a namespace,
		// the help that lists what a command takes.
		return ""
	case code == http.StatusBadRequest:
		return "the server refused the request's parameters"
	case code == http.StatusInternalServerError && strings.Contains(msg, "failed to power"):
		// 2026: 500 "instance failed to power on: <hypervisor error>"
		// (tests/external_api/test_instance_power.py @12f0a5ee).
		return "the hypervisor could not carry out the power action (its error follows the colon); \"shakectl instance events INSTANCE\" shows what happened, and trying again may work"
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

// NamespaceNotEmpty says a 400 refuses to delete a namespace that still
// holds live instances or networks (auth.py@da448b1a
// AuthNamespaceEndpoint.delete).
func (e *APIError) NamespaceNotEmpty() bool {
	return e.StatusCode == http.StatusBadRequest && strings.Contains(strings.ToLower(e.Message), "delete a namespace with")
}

// RefusedParameter is the parameter a 400 of a 2026 server names
// ("<parameter>: <reason>", PLAN-api-input-validation decision D4), ""
// when it names none.
func (e *APIError) RefusedParameter() string {
	if e.StatusCode != http.StatusBadRequest || e.NamespaceNotEmpty() {
		return ""
	}
	if p, _, ok := strings.Cut(e.Message, ": "); ok && isParameterName(p) {
		return p
	}
	return ""
}

// IsAffinityConflict says a 409 is a seed server's hard-affinity refusal
// (capacity_refusals.md): the only 409 that is a capacity refusal.
func (e *APIError) IsAffinityConflict() bool {
	return e.StatusCode == http.StatusConflict && mentionsAffinity(strings.ToLower(e.Message))
}

// isParameterName says p looks like a 2026 validation error's parameter:
// a key, or a path into one ("disk[0].size").
func isParameterName(p string) bool {
	if p == "" || len(p) > 64 {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.[]-", r)) {
			return false
		}
	}
	return true
}

// forbiddenHint reads a 403. Most of the 2024 server's 403s are about the
// object, not the key (shakenfist da448b1a external_api/*.py: "artifact
// not shared", "address not routed by this network", "you cannot delete
// the floating network", "namespace exists", the delete-all of networks
// in use), and are read as what they say; a 2026 server also sends one
// for a scoped token asked to do what its scopes do not cover (scopes
// "<family>.<verb>": read for GET/HEAD, write for POST/PUT/PATCH, delete
// for DELETE; external_api/scopes.py @451a0ef2), and for an admin route
// without the cluster-admin scope ("token is not scoped for administrative
// operations", docs/developer_guide/authentication.md @00b8f3e2). Only a
// 403 whose text is none of those is taken to be about the key.
func forbiddenHint(msg string) string {
	return hintByMessage(msg, forbiddenHints, "the key is not allowed to do that: use a key of the owning namespace (or system); on a 2026 server a scoped key also needs the scope for it (<family>.<verb>, e.g. instance.write)")
}

var forbiddenHints = []messageHint{
	{[]string{"administrative"}, "this token is not scoped for administrative operations: admin routes need a key of the system namespace that carries the cluster-admin scope"},
	{[]string{"scope"}, "this key's scopes do not cover that request: a scoped key needs <family>.<verb> for it (e.g. network.delete, instance.write; read is GET, write POST/PUT, delete DELETE); use a key with that scope, or an unscoped one"},
	// The object's state, whatever the key.
	{[]string{"not shared"}, "the artifact is not shared, so there is nothing to unshare; \"shakectl artifact show ARTIFACT\" shows whether it is"},
	{[]string{"in the system namespace can be shared"}, "only an artifact of the system namespace can be shared, and this one belongs to another namespace, whichever key asks"},
	{[]string{"not routed by this network"}, "the server says this network does not route that address: \"shakectl network addresses NETWORK\" lists what it routes (a 2024 server answers this for every routed address: its delete-routed compares the address's owner wrongly, so none can be deleted there)"},
	{[]string{"floating network"}, "the floating network is the cluster's own: it cannot be deleted"},
	{[]string{"delete the system namespace"}, "the system namespace cannot be deleted"},
	{[]string{"namespace exists"}, "a namespace of that name exists already"},
	{[]string{"illegal key name"}, "the server keeps that key name for itself: choose another name"},
	{[]string{"invalid artifact type"}, "the server does not take that artifact type"},
	{[]string{`"unable"`}, "the networks listed as unable still have interfaces and were not deleted: delete their instances first (\"shakectl namespace clean\" deletes both, each network once its interfaces are gone)"},
	// The key's namespace: only the system namespace may.
	{[]string{"only the system namespace"}, "only the system namespace's key may do that"},
}

// unauthorizedHint reads a 401 that came after a login that succeeded
// (APIError.KeyAccepted): the namespace and key are good, and the server
// refuses this request to them. shakenfist da448b1a sends "unauthorized"
// from its admin-only routes (base.py caller_is_admin: /nodes, /admin/…)
// to any namespace but system, "you cannot delete other namespaces" from
// the delete-alls, and "only admins can create resources in a different
// namespace" from network create.
func unauthorizedHint(msg, method, route string) string {
	if msg == "unauthorized" && adminRoute(method, route) {
		return fmt.Sprintf("the namespace and key were accepted at login, but %s %s is for the system namespace's key only (an admin route): use that key", method, route)
	}
	return hintByMessage(msg, unauthorizedHints, "the namespace and key were accepted at login, but the server refused the token it had just issued for this request (was the key removed, or the namespace deleted, meanwhile?)")
}

// adminRoute says a route is one of the 2024 server's admin-only ones
// (shakenfist da448b1a: caller_is_admin on node.py's endpoints,
// admin.py's, BlobsEndpoint.get, and auth.py's namespace create and
// delete and key update), which refuse every namespace but system with
// 401 "unauthorized".
func adminRoute(method, route string) bool {
	switch {
	case route == "/nodes", strings.HasPrefix(route, "/nodes/"), strings.HasPrefix(route, "/admin/"):
		return true
	case method == http.MethodGet && route == "/blobs":
		return true
	case method == http.MethodPost && route == "/auth/namespaces":
		return true
	case strings.HasPrefix(route, "/auth/namespaces/"):
		rest := strings.Split(strings.TrimPrefix(route, "/auth/namespaces/"), "/")
		return (method == http.MethodDelete && len(rest) == 1) || (method == http.MethodPut && len(rest) == 3 && rest[1] == "keys")
	}
	return false
}

var unauthorizedHints = []messageHint{
	{[]string{"delete other namespaces"}, "a key deletes only in its own namespace; the system namespace's key may delete in another"},
	{[]string{"different namespace"}, "only the system namespace's key may create in another namespace"},
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
	case strings.Contains(msg, "lifecycle state") && strings.Contains(msg, "paused"):
		// 2026: "Invalid lifecycle state: you cannot power on a paused
		// instance; unpause it instead" (test_instance_power.py
		// @12f0a5ee).
		return "the instance is paused: \"shakectl instance unpause\" it instead"
	case strings.Contains(msg, "lifecycle state") && strings.Contains(msg, "powered off"):
		return "the instance is powered off: \"shakectl instance poweron\" it first"
	case strings.Contains(msg, "lifecycle state"):
		return "the instance's power state does not allow that; \"shakectl instance show\" shows its power state"
	}
	return "the request conflicts with the resource's current state"
}

// notFoundFallback is a 404 whose message names nothing known.
const notFoundFallback = "nothing has that name or UUID; the list commands show what exists"

// notFoundHint reads a 404 by its message: the server names what it could
// not find (shakenfist da448b1a). An answer to instance create is read by
// createNotFoundHints instead, where a missing artifact is a disk's base
// and a missing node the placement.
func notFoundHint(msg string) string {
	return hintByMessage(msg, notFoundHints, notFoundFallback)
}

// The readings of a 404 that do not depend on the route.
var (
	// auth.py: "key name not found in namespace" (2024), "key does
	// not exist" (2026 PUT).
	keyNotFound       = messageHint{[]string{"key name", "key does not exist"}, "the namespace has no key of that name; \"shakectl namespace show NAMESPACE\" lists its keys"}
	claimNotFound     = messageHint{[]string{"claim"}, "the namespace has no claim with that UUID; \"shakectl namespace claim list NAMESPACE\" shows its claims"}
	namespaceNotFound = messageHint{[]string{"namespace"}, "the namespace does not exist or does not trust yours; \"shakectl namespace list\" shows the namespaces you can see"}
	networkNotFound   = messageHint{[]string{"network"}, "no network of yours has that name or UUID; \"shakectl network list\" shows them"}
	instanceNotFound  = messageHint{[]string{"instance"}, "no instance of yours has that name or UUID; \"shakectl instance list\" shows them"}
)

var notFoundHints = []messageHint{
	keyNotFound, claimNotFound, namespaceNotFound,
	// network.py NetworkRouteAddressEndpoint.delete: "address not
	// routed" (recorded from da448b1a, captures r9).
	{[]string{"not routed"}, "the network does not route that address; \"shakectl network addresses NETWORK\" lists the ones it does"},
	networkNotFound,
	{[]string{"interface"}, "no interface has that UUID; \"shakectl instance show INSTANCE\" lists an instance's interfaces"},
	{[]string{"node"}, "no node has that name; \"shakectl node list\" shows the nodes"},
	{[]string{"label"}, "no label has that name; \"shakectl label list\" shows them"},
	{[]string{"artifact"}, "no artifact of yours, or shared with you, has that name or UUID; \"shakectl artifact list\" shows them"},
	{[]string{"blob"}, "no blob has that UUID; \"shakectl blob list\" shows them"},
	instanceNotFound,
}

// createNotFoundHints read the 404s of POST /instances, whose request
// names a base image per disk and a node to place on.
var createNotFoundHints = []messageHint{
	namespaceNotFound, networkNotFound,
	{[]string{"node"}, "the node ({CreateInstanceRequest.PlacedOn}) does not exist, is not ready, or is not a candidate; \"shakectl node list\" shows the nodes"},
	{[]string{"label", "artifact", "blob"}, "the disk's base image (label or artifact) was not found; check the BASE of -d SIZE@BASE"},
	instanceNotFound,
}

// Hint says whether waiting can help a capacity refusal, and what else
// would, given how many attempts were already made; the options it
// advises on ({Retry}, {Retry.Budget}) are written by name, as
// APIError.Hint's.
func (c *CapacityRefusal) Hint(attempts int, name func(field string) string) string {
	stage := c.Stage
	if stage == "" {
		stage = c.TextStage
	}
	switch {
	case c.Transient && c.NotReplayable != "":
		// The marker says waiting may help; the route says a replay
		// could double what the refused request already did.
		return fielderr.Sprintf(name, "the server marks this refusal transient (stage %s), but %s, so {Retry} does not retry it: check what the server holds before sending it again", OrNone(stage), c.NotReplayable)
	case c.Transient:
		at := "at stage " + stage
		if stage == "" {
			at = "(the server named no stage)"
		}
		if attempts >= retry.MaxAttempts {
			return fielderr.Sprintf(name, "the cluster is still short of capacity %s after %d attempts, the most {Retry} sends; try again later", at, attempts)
		}
		if attempts > 1 {
			return fielderr.Sprintf(name, "the cluster is still short of capacity %s; try again later or give a longer {Retry.Budget}", at)
		}
		return fielderr.Sprintf(name, "the cluster is short of capacity %s right now; {Retry} waits and retries as the server suggests", at)
	case c.MalformedTransient:
		return fmt.Sprintf("the server's \"transient\" field is not a JSON true or false, so whether waiting helps at stage %s is unknown and shakectl does not retry; report the malformed answer to the cluster's operators", OrNone(stage))
	case c.Stage == "" && c.TextStage != "" && TransientStage(c.TextStage):
		return fielderr.Sprintf(name, "the cluster is short of capacity at scheduling stage %s, which waiting usually fixes; this server (older than the stage/transient contract) does not mark it, so {Retry} does not retry it: try again later", c.TextStage)
	case stage == "cpu_max_per_instance":
		return "no node in the cluster hosts that many vCPUs; ask for fewer vCPUs"
	case stage == "is_hypervisor":
		return fielderr.Placeholders("no candidate node is a hypervisor; check {CreateInstanceRequest.PlacedOn} and \"shakectl node list\"", name)
	case stage == "pre_schedule":
		return fielderr.Placeholders("there were no candidate nodes to place on; check {CreateInstanceRequest.PlacedOn} and \"shakectl node list\"", name)
	case stage == "":
		return fielderr.Placeholders(schedulerMessageHint(strings.ToLower(c.Message)), name)
	case stage == "unknown":
		return "the server gave no stage for this refusal, which should not happen; report it to the cluster's operators"
	}
	return fmt.Sprintf("waiting will not fix a refusal at stage %s; change the request", stage)
}

// OrNone is s, or "(none)" when it is empty.
func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// TransientStage says a 2026 server classes the scheduling stage as
// transient: TRANSIENT_CAPACITY_STAGES in shakenfist
// external_api/base.py @565e36e6e. It reads a stage named only in the
// refusal's text (TextStage) for the hint and the exit code; it never
// decides a retry, which only the body's transient field does.
func TransientStage(stage string) bool {
	switch stage {
	case "sufficient_idle_cpu", "sufficient_idle_memory", "sufficient_free_disk",
		"sufficient_idle_disk", "queue_state", "capacity_guard":
		return true
	}
	return false
}

// WaitMayHelp says a refusal is one that waiting can fix, for the exit
// code (75 rather than 69): the body says transient, or a 2026 server
// older than the contract names a transient stage in its text.
func (c *CapacityRefusal) WaitMayHelp() bool {
	return c.Transient || (c.Stage == "" && !c.MalformedTransient && TransientStage(c.TextStage))
}

// schedulerMessageHint reads a 507 without a stage by its message: servers
// before the capacity-refusal contract (shakenfist da448b1a scheduler.py) send every refusal
// that way, and only "No free addresses on network" (CongestedNetwork) is
// about the address pool.
func schedulerMessageHint(msg string) string {
	return hintByMessage(msg, schedulerMessageHints, "the cluster refused for lack of capacity; this server does not say whether waiting helps")
}

var schedulerMessageHints = []messageHint{
	{[]string{"free addresses", "address pool", "congested"}, "the network's address pool is exhausted: add address space or free a network; retrying will not help"},
	{[]string{"vcpu limit"}, "no node in the cluster hosts that many vCPUs; ask for fewer vCPUs"},
	{[]string{"with metrics"}, "no hypervisor has reported its metrics (none is up, or {CreateInstanceRequest.PlacedOn} names a node that is not one); \"shakectl node list\" shows the nodes"},
	{[]string{"idle cpu"}, "no node has enough idle vCPUs for the request; ask for fewer vCPUs or free some instances"},
	{[]string{"idle ram"}, "no node has enough free memory for the request; ask for less memory or free some instances"},
	{[]string{"disk space"}, "no node has enough free disk for the request (the scheduler keeps 20 GiB free); ask for smaller disks or free some instances"},
}

// Hint says what an answer that is not the API's JSON most likely means.
func (e *ResponseError) Hint() string {
	switch {
	case e.Advice != "":
		return e.Advice
	case strings.Contains(e.Problem, "HTML"):
		return NotAnAPIHint
	case strings.Contains(e.Problem, "truncated"), strings.Contains(e.Problem, "empty"):
		return "the answer was cut short: a proxy or the server may have failed mid-answer; try again"
	}
	return "the server's answer is not what the Shakenfist API sends; check the API URL and the server's version"
}

// Hint says what to do about a capacity claim's refusal (shakenfist 2026
// auth.py CLAIM_REFUSAL_*).
func (e *ClaimRefusal) Hint() string {
	switch e.Kind {
	case ClaimNoCapacity:
		return "the cluster cannot promise that much: ask for smaller limits; waiting will not help"
	case ClaimRetryLater:
		return "the cluster asks to be asked again: retry in a moment"
	case ClaimAlreadyHeld:
		return "a namespace holds one claim at a time: \"shakectl namespace claim list NAMESPACE\" shows it, and \"namespace claim update\" changes its limits"
	}
	return "the claim cannot change that way now: it cannot shrink below what it uses, and an expired or released claim cannot be updated"
}

// messageHint is one reading of a server message: the hint for a message
// that contains any of the words.
type messageHint struct {
	anyOf []string
	hint  string
}

// hintByMessage is the hint of the first reading that matches msg, in the
// table's order (more specific words first), else the fallback.
func hintByMessage(msg string, table []messageHint, fallback string) string {
	for _, h := range table {
		for _, w := range h.anyOf {
			if strings.Contains(msg, w) {
				return h.hint
			}
		}
	}
	return fallback
}
