package cluster

import (
	"fmt"
	"net/http"
	"time"
)

// Namespaces (external_api/auth.py, da448b1a): the record, which
// namespaces a caller may see, list, create, show, delete and trust.

// Authentication, namespaces, their keys, metadata and trust:
// shakenfist/external_api/auth.py and shakenfist/namespace.py at da448b1a
// for Generation2024, auth.py @0209b9ca (keys with expiry, generated
// secrets, the fixed key update) for Generation2026.

// namespaceRec is a namespace: its keys, metadata and the namespaces it
// trusts (every namespace trusts system, Namespace.new).
type namespaceRec struct {
	name     string
	state    string
	metadata map[string]any
	keys     map[string]*nsKey
	keyOrder []string
	trust    []string
	claims   []*claim
}

// maxNamespaces and maxKeys bound what a client can make the simulator hold.
const (
	maxNamespaces = 1000
	maxKeys       = 100
)

func newNamespace(name string) *namespaceRec {
	return &namespaceRec{name: name, state: stateCreated, metadata: map[string]any{}, keys: map[string]*nsKey{}, trust: []string{adminNamespace}}
}

func (n *namespaceRec) live() bool { return n != nil && n.state != stateDeleted }

// view is Namespace.external_view (da448b1a): name, state, metadata,
// version, key names and {"full": trusted namespaces}.
func (n *namespaceRec) view(now time.Time) map[string]any {
	return map[string]any{
		"name": n.name, "state": n.state, "metadata": n.metadata, "version": namespaceVersion,
		"keys": n.keyNames(now), "trust": map[string]any{"full": append([]string{}, n.trust...)},
	}
}

// trusted is namespace_is_trusted(namespace, requestor).
func (s *Server) trusted(ns, requestor string) bool {
	if ns == requestor {
		return true
	}
	n := s.namespaces[ns]
	if n == nil {
		return false
	}
	for _, t := range n.trust {
		if t == requestor {
			return true
		}
	}
	return false
}

func (s *Server) nsLive(name string) bool { return s.namespaces[name].live() }

// nsExists is Namespace.from_db: a deleted namespace still exists.
func (s *Server) nsExists(name string) bool { return s.namespaces[name] != nil }

func (s *Server) namespaceUsable(caller, ns string) bool {
	if caller == adminNamespace {
		return s.nsLive(ns)
	}
	return ns == caller
}

func visible(caller, ns string) bool {
	return caller == adminNamespace || caller == ns
}

func (s *Server) handleListNamespaces(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "AuthNamespacesEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	now := time.Now()
	out := []map[string]any{}
	s.mu.Lock()
	for _, name := range sortedKeys(s.namespaces) {
		if n := s.namespaces[name]; n.live() && s.trusted(name, caller) {
			out = append(out, n.view(now))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// handleCreateNamespace is AuthNamespacesEndpoint.post (admin). 2024
// creates the namespace before it checks the optional first key, so a
// refused key still leaves the namespace; 2026 checks first. A namespace
// that was deleted still exists to Namespace.from_db: 403 namespace exists.
func (s *Server) handleCreateNamespace(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "AuthNamespacesEndpoint.post", "namespace", "key_name", "key")
	if err != nil {
		writeError(w, err)
		return
	}
	if !s.requireAdmin(w, r, caller) {
		return
	}
	name, _ := p["namespace"].(string)
	if !truthy(p["namespace"]) {
		writeError(w, badRequest("no namespace specified"))
		return
	}
	keyName, _ := p["key_name"].(string)
	wantKey := truthy(p["key_name"])
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, exists := s.namespaces[name]; exists {
		writeError(w, &apiError{status: http.StatusForbidden, msg: "namespace exists"})
		return
	}
	if len(s.namespaces) >= maxNamespaces {
		writeError(w, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("namespace quota exceeded: the simulator holds at most %d namespaces", maxNamespaces)})
		return
	}
	if s.is2026() && wantKey {
		if !truthy(p["key"]) {
			writeError(w, badRequest("no key specified"))
			return
		}
		if err := keyChecks2026(keyName, p["key"]); err != nil {
			writeError(w, err)
			return
		}
	}
	ns := newNamespace(name)
	s.namespaces[name] = ns
	if wantKey {
		key, isStr := p["key"].(string)
		switch {
		case !truthy(p["key"]):
			writeError(w, badRequest("no key specified"))
			return
		case !isStr:
			writeError(w, badRequest("key is not a string"))
			return
		case keyName == "service_key":
			writeError(w, &apiError{status: http.StatusForbidden, msg: "illegal key name"})
			return
		}
		ns.addKey(keyName, key, 0, callerScopes(r))
	}
	writeJSON(w, http.StatusOK, ns.view(time.Now()))
}

// ownedNamespace is @requires_namespace_ownership then @arg_is_namespace:
// 404 namespace not found for one the caller is not trusted by, and for a
// missing or deleted one. Callers hold s.mu.
func (s *Server) ownedNamespace(name, caller string) (*namespaceRec, *apiError) {
	if !s.trusted(name, caller) {
		return nil, notFound("namespace not found")
	}
	n := s.namespaces[name]
	if !n.live() {
		return nil, notFound("namespace not found")
	}
	return n, nil
}

// withNamespace checks the body, finds the namespace the path names as
// the caller may see it, and runs fn under the lock; fn's answer is sent
// as JSON (nil is Python's None: 200 null).
func (s *Server) withNamespace(w http.ResponseWriter, r *http.Request, caller, handler string, accepted []string, fn func(n *namespaceRec, p map[string]any) (any, *apiError)) {
	answerOne(s, w, r, handler, accepted, func() (*namespaceRec, *apiError) {
		return s.ownedNamespace(r.PathValue("namespace"), caller)
	}, fn)
}

func (s *Server) handleShowNamespace(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNamespace(w, r, caller, "AuthNamespaceEndpoint.get", nil, func(n *namespaceRec, _ map[string]any) (any, *apiError) {
		return n.view(time.Now()), nil
	})
}

// handleDeleteNamespace is AuthNamespaceEndpoint.delete (admin): refused
// while the namespace holds an instance in any state but deleted or error
// (so a refused create's initial-error record blocks it too), or a
// network that is not dead (deleted, delete-wait or error).
func (s *Server) handleDeleteNamespace(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.adminRequest(w, r, caller, "AuthNamespaceEndpoint.delete") {
		return
	}
	name := r.PathValue("namespace")
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.namespaces[name]
	if !n.live() {
		writeError(w, notFound("namespace not found"))
		return
	}
	if name == adminNamespace {
		writeError(w, &apiError{status: http.StatusForbidden, msg: "you cannot delete the system namespace"})
		return
	}
	for _, i := range s.instances {
		if i.namespace == name && i.state != stateDeleted && i.state != stateError {
			writeError(w, badRequest("you cannot delete a namespace with instances"))
			return
		}
	}
	for _, nw := range s.networks {
		if nw.namespace == name && nw.state != stateDeleted && nw.state != stateDeleteWait && nw.state != stateError {
			writeError(w, badRequest("you cannot delete a namespace with networks"))
			return
		}
	}
	n.state = stateDeleted
	writeJSON(w, http.StatusOK, nil)
}

// trustChange is both trust endpoints: @arg_is_namespace first, then the
// external namespace, then the caller's trust; the answer is the
// namespace's view. Trust in system cannot be removed (remove_trust).
func (s *Server) trustChange(add bool) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		accepted := []string{"external_namespace"}
		handler := "AuthNamespaceTrustsEndpoint.post"
		if !add {
			accepted, handler = nil, "AuthNamespaceTrustEndpoint.delete"
		}
		p, err := s.params(r, handler, accepted...)
		if err != nil {
			writeError(w, err)
			return
		}
		ext, _ := p["external_namespace"].(string)
		if !add {
			ext = r.PathValue("external_namespace")
		}
		name := r.PathValue("namespace")
		s.mu.Lock()
		defer s.mu.Unlock()
		n := s.namespaces[name]
		switch {
		case !n.live():
			writeError(w, notFound("namespace not found"))
			return
		case ext == "":
			writeError(w, badRequest("no external namespace specified"))
			return
		case !s.trusted(name, caller):
			writeError(w, notFound("namespace not found"))
			return
		}
		k := -1
		for i, t := range n.trust {
			if t == ext {
				k = i
			}
		}
		switch {
		case add && k < 0:
			if len(n.trust) >= maxNamespaces {
				writeError(w, &apiError{status: http.StatusForbidden, msg: "trust quota exceeded"})
				return
			}
			n.trust = append(n.trust, ext)
		case !add && k >= 0 && ext != adminNamespace:
			n.trust = append(n.trust[:k:k], n.trust[k+1:]...)
		}
		writeJSON(w, http.StatusOK, n.view(time.Now()))
	}
}
