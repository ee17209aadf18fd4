package cluster

import (
	"net/http"
	"sort"
	"strconv"
)

// answerOne is the shape of a handler on one object the path names (an
// instance, a network, a namespace, an artifact): the body passes params'
// check first, as the real handlers' flask-restful parsing does; then,
// under the lock, find looks the object up as the caller may see it and fn
// acts on it; fn's answer goes back as JSON, nil being Python's None
// (200 null), or the first refusal as sf_api.error does.
func answerOne[T any](s *Server, w http.ResponseWriter, r *http.Request, handler string, accepted []string,
	find func() (*T, *apiError), fn func(obj *T, p map[string]any) (any, *apiError)) {
	p, err := s.params(r, handler, accepted...)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	var out any
	obj, err := find()
	if err == nil {
		out, err = fn(obj, p)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// withDeleteAll is the shape of the namespace-wide deletes (InstancesEndpoint,
// NetworksEndpoint and ArtifactsEndpoint .delete, da448b1a): the body is
// checked, then, holding the lock until the answer is written, the scope
// (confirm, namespace) is judged and fn deletes; fn answers the status and
// the body.
func (s *Server) withDeleteAll(w http.ResponseWriter, r *http.Request, caller, handler string, accepted []string, fn func(ns string, p map[string]any) (int, any)) {
	p, err := s.params(r, handler, accepted...)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.deleteAllScope(p, caller)
	if err != nil {
		writeError(w, err)
		return
	}
	status, out := fn(ns, p)
	if e, ok := out.(errorObject); ok {
		data, _ := pyJSON(e.body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(status)
		_, _ = w.Write(data)
		return
	}
	writeJSON(w, status, out)
}

// listed is what a list answer needs of a record: its creation order, its
// namespace and whether it is active.
type listed interface {
	listing() (seq uint64, namespace string, active bool)
}

// listVisible answers GET /instances and GET /networks alike: the records
// the caller may see, oldest first, deleted ones only when the body asks for
// "all", each rendered by view under the lock.
func listVisible[R listed](s *Server, w http.ResponseWriter, r *http.Request, caller, handler string, records map[string]R, view func(R) map[string]any) {
	p, err := s.params(r, handler, "all")
	if err != nil {
		writeError(w, err)
		return
	}
	all := truthy(p["all"])
	s.mu.Lock()
	list := make([]R, 0, len(records))
	for _, rec := range records {
		_, ns, active := rec.listing()
		if visible(caller, ns) && (all || active) {
			list = append(list, rec)
		}
	}
	sort.Slice(list, func(a, b int) bool {
		sa, _, _ := list[a].listing()
		sb, _, _ := list[b].listing()
		return sa < sb
	})
	out := make([]map[string]any, len(list))
	for k, rec := range list {
		out[k] = view(rec)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// showOne answers a GET of one record: the body checked against the
// handler's parameters, the record found and rendered under the lock.
func (s *Server) showOne(w http.ResponseWriter, r *http.Request, handler string, accepted []string, view func() (map[string]any, *apiError)) {
	if _, err := s.params(r, handler, accepted...); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	out, err := view()
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// namespaceFilter is baseobject.namespace_filter (da448b1a; unchanged in
// the 2026 tree, code index ids 59152227985, 62463336891): the system
// namespace names every namespace's objects. The instance and network
// delete-alls select with it, so a system key naming "system" deletes
// every namespace's, which the handlers' own comment calls "deleting all
// instances in the cluster (by specifying namespace='system')" (the real
// 2024 server did so in the captures: da1 and nd1). The artifact
// delete-all uses namespace_exact_filter instead.
func namespaceFilter(ns, recordNamespace string) bool {
	return ns == adminNamespace || recordNamespace == ns
}

// deleteAllScope is the namespace check every delete-all endpoint shares
// (InstancesEndpoint.delete, NetworksEndpoint.delete,
// ArtifactsEndpoint.delete at da448b1a): confirm must be JSON true; a
// system caller must name the namespace; anyone else may name only their
// own. Callers hold s.mu.
func (s *Server) deleteAllScope(p map[string]any, caller string) (string, *apiError) {
	if c, ok := p["confirm"].(bool); !ok || !c {
		return "", badRequest("parameter confirm is not set true")
	}
	ns, isStr := p["namespace"].(string)
	if truthy(p["namespace"]) && !s.nsExists(ns) { // @requires_namespace_exist_if_specified
		return "", notFound("namespace not found")
	}
	if caller == adminNamespace {
		if !isStr {
			return "", badRequest("system user must specify parameter namespace")
		}
		return ns, nil
	}
	if truthy(p["namespace"]) && ns != caller {
		return "", &apiError{status: http.StatusUnauthorized, msg: "you cannot delete other namespaces"}
	}
	return caller, nil
}
