package cluster

import (
	"fmt"
	"net/http"
	"sort"
	"time"
)

// Cluster operations: how a 2026 server runs a network delete
// asynchronously. DELETE /networks/{ref} answers 202 {"op_type":
// "net_op", "op_uuid": ...} and the client polls GET
// /clusteroperations/{op_type}/{op_uuid} until "complete", failing on
// "error" or "abort" (PLAN-network-facade-phase-07-rest-contract.md
// @1e4defae; client-python apiclient.py delete_network @74d6e129;
// external_api/clusteroperation.py @1bd1c112).

// Operation states. "complete", "error" and "abort" are the ones the
// client reads; "queued" and "executing" name the wait before them (the
// server's own names for those were not read).
const (
	opQueued    = "queued"
	opExecuting = "executing"
	opComplete  = "complete"
	opError     = "error"
)

type clusterOp struct {
	uuid, opType, state string
	targetType, target  string
	namespace           string
	tasks               []string
	created             float64
	errorMessage        *string
	seq                 uint64
}

// maxOps bounds the operations the simulator remembers; the oldest
// finished ones go first.
const maxOps = 10000

// view follows the summary shape of the chain endpoint's example
// (operation_type, uuid, state, tasks); the target, creation time and
// error message are the simulator's additions.
func (o *clusterOp) view() map[string]any {
	var errMsg any
	if o.errorMessage != nil {
		errMsg = *o.errorMessage
	}
	return map[string]any{
		"uuid": o.uuid, "operation_type": o.opType, "state": o.state, "tasks": o.tasks,
		"target_object_type": o.targetType, "target_uuid": o.target, "namespace": o.namespace,
		"created_at": o.created, "error_message": errMsg,
	}
}

// afterOrNow is after, except that a zero delay runs fn at once (still
// under the caller's lock), so a simulator configured without a network
// deploy time answers in the state it will have.
func (s *Server) afterOrNow(d time.Duration, fn func()) {
	if d == 0 {
		fn()
		return
	}
	s.after(d, fn)
}

func (s *Server) pruneOps() {
	if len(s.ops) < maxOps {
		return
	}
	list := make([]*clusterOp, 0, len(s.ops))
	for _, o := range s.ops {
		if o.state == opComplete || o.state == opError {
			list = append(list, o)
		}
	}
	sort.Slice(list, func(a, b int) bool { return list[a].seq < list[b].seq })
	for _, o := range list[:len(list)/2] {
		delete(s.ops, o.uuid)
	}
}

// handleShowOp is ClusterOperationEndpoint.get: 404 for an unknown type
// or operation. The real handler checks no namespace; the simulator hides
// another namespace's operations as not found.
func (s *Server) handleShowOp(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "ClusterOperationEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	if r.PathValue("op_type") != "net_op" {
		writeError(w, notFound("operation type not found"))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	op := s.ops[r.PathValue("op_uuid")]
	if op == nil || op.opType != r.PathValue("op_type") || !visible(caller, op.namespace) {
		writeError(w, notFound("operation not found"))
		return
	}
	writeJSON(w, http.StatusOK, op.view())
}

// handleOpChain is ClusterOperationChainEndpoint.get: a net_op of the
// simulator depends on nothing, so its chain is itself; 403 for an
// operation of another namespace (non-admin callers).
func (s *Server) handleOpChain(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "ClusterOperationChainEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	op := s.ops[r.PathValue("op_uuid")]
	if op == nil {
		writeError(w, notFound("operation not found"))
		return
	}
	if caller != adminNamespace && op.namespace != caller {
		writeError(w, &apiError{status: http.StatusForbidden, msg: "cluster operation chain crosses into a namespace you cannot see"})
		return
	}
	writeJSON(w, http.StatusOK, []map[string]any{op.view()})
}

// handleOpsForTarget is ClusterOperationsEndpoint.get: the query string
// names the target (this endpoint reads flask.request.args, not the body).
func (s *Server) handleOpsForTarget(w http.ResponseWriter, r *http.Request, caller string) {
	q := r.URL.Query()
	typ, target := q.Get("target_object_type"), q.Get("target_uuid")
	switch {
	case typ == "":
		writeError(w, badRequest("target_object_type query parameter is required"))
		return
	case target == "":
		writeError(w, badRequest("target_uuid query parameter is required"))
		return
	case typ != "network" && typ != "instance" && typ != "artifact" && typ != "node" && typ != "namespace":
		writeError(w, badRequest("invalid target_object_type: '%s'", truncate(typ)))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ns string
	switch typ {
	case "network":
		n := s.networks[target]
		if n == nil {
			writeError(w, notFound("target object not found"))
			return
		}
		ns = n.namespace
	case "instance":
		i := s.instances[target]
		if i == nil {
			writeError(w, notFound("target object not found"))
			return
		}
		ns = i.namespace
	default:
		writeError(w, notFound("target object not found"))
		return
	}
	if caller != adminNamespace && ns != caller {
		writeError(w, &apiError{status: http.StatusForbidden, msg: "target object is in a namespace you cannot see"})
		return
	}
	var list []*clusterOp
	for _, o := range s.ops {
		if o.targetType == typ && o.target == target {
			list = append(list, o)
		}
	}
	sort.Slice(list, func(a, b int) bool { return list[a].seq > list[b].seq }) // newest first
	out := make([]map[string]any, len(list))
	for k, o := range list {
		out[k] = o.view()
	}
	writeJSON(w, http.StatusOK, out)
}

// SetNetworkOpErrors makes the next n network delete operations end in
// error (a test or rehearsal can change it while the server runs).
func (s *Server) SetNetworkOpErrors(n int) error {
	if n < 0 || n > maxNetworkOpErrs {
		return fmt.Errorf("invalid network operation error count %d: want 0 to %d", n, maxNetworkOpErrs)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opErrors = n
	return nil
}
