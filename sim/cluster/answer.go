package cluster

import "net/http"

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
	writeJSON(w, status, out)
}
