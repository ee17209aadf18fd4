package cluster

import (
	"net/http"
	"strings"
)

// Labels (external_api/label.py, da448b1a): an artifact named
// sf://label/<namespace>/<label>.

// labelTarget is _label_url: "ns/label" names another namespace's label,
// a deeper name is LabelHierarchyTooDeep (a 400 here; the exception's
// status was not read).
func labelTarget(name, caller string) (ns, url string, e *apiError) {
	ns, label := caller, name
	if strings.Contains(name, "/") {
		parts := strings.Split(name, "/")
		if len(parts) > 2 {
			return "", "", badRequest("label hierarchy too deep")
		}
		ns, label = parts[0], parts[1]
	}
	return ns, "sf://label/" + ns + "/" + label, nil
}

// handleLabel serves /label/{name...}. POST (LabelEndpoint.post) makes the
// label artifact if new and adds a version on blob_uuid. GET and DELETE
// of a label that does not exist are a 500: at da448b1a sf_api.error(404)
// is called without return, and artifacts[0] then raises IndexError.
func (s *Server) handleLabel(w http.ResponseWriter, r *http.Request, caller string) {
	var accepted []string
	handler := "LabelEndpoint." + strings.ToLower(r.Method)
	if r.Method == http.MethodPost {
		accepted = []string{"blob_uuid", "max_versions"}
	}
	p, err := s.params(r, handler, accepted...)
	if err != nil {
		writeError(w, err)
		return
	}
	name := r.PathValue("label_name")
	ns, url, err := labelTarget(name, caller)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.artifactByURL("label", url, ns)
	switch r.Method {
	case http.MethodPost:
		blobUUID, _ := p["blob_uuid"].(string)
		b := s.blobTable()[blobUUID]
		if b == nil {
			// add_index raises BlobMissing, unhandled at da448b1a.
			writeError(w, &apiError{status: http.StatusInternalServerError, msg: "server error: BlobMissing"})
			return
		}
		if a == nil {
			if e := s.roomForArtifact(); e != nil {
				writeError(w, e)
				return
			}
			a = s.newArtifact("label", url, lastElem(url), ns)
		}
		s.addVersion(a, b)
		a.state = stateCreated
		a.events = appendEvent(a.events, apiFQDN, "create request from REST API", nil)
		writeJSON(w, http.StatusOK, s.artifactView(a))
	case http.MethodGet, http.MethodDelete:
		if a == nil {
			writeError(w, &apiError{status: http.StatusInternalServerError, msg: "list index out of range"})
			return
		}
		if r.Method == http.MethodDelete {
			a.state = stateDeleted
			a.events = appendEvent(a.events, apiFQDN, "delete request from REST API", nil)
			for _, v := range a.versions {
				if b := s.blobTable()[v.blob]; b != nil {
					b.refDec(a.uuid)
				}
			}
		}
		writeJSON(w, http.StatusOK, s.artifactView(a))
	}
}
