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
