package cluster

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"
)

// blobMetadataRoutes are blob.py's BlobMetadatasEndpoint and
// BlobMetadataEndpoint (app.py da448b1a: /blobs/<blob_uuid>/metadata and
// /blobs/<blob_uuid>/metadata/<key>; the same in the 2026 tree). Their
// swagger says admin only, but no decorator enforces it (verify_token,
// arg_is_blob_uuid, log_token_use), so any namespace's token may.
// The audit events the real handlers add to the blob are kept in its
// trail (blob_routes.go; GET /blobs/{uuid}/events in 2026).
func (s *Server) blobMetadataRoutes() []route {
	return []route{
		{"/blobs/{blob_uuid}/metadata", map[string]http.HandlerFunc{
			"GET":  s.authed(s.blobMetadata("BlobMetadatasEndpoint.get")),
			"POST": s.authed(s.blobMetadata("BlobMetadatasEndpoint.post", "key", "value")),
		}},
		{"/blobs/{blob_uuid}/metadata/{key}", map[string]http.HandlerFunc{
			"PUT":    s.authed(s.blobMetadata("BlobMetadataEndpoint.put", "value")),
			"DELETE": s.authed(s.blobMetadata("BlobMetadataEndpoint.delete", "value")),
		}},
	}
}

// blobMetadata serves one method: the body's parameters are checked first
// (the generic wrapper's kwargs), then the blob (404 "blob not found"),
// then the key and, to set, a value the server finds truthy. PUT, POST and
// DELETE answer 200 null.
func (s *Server) blobMetadata(handler string, accepted ...string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, _ string) {
		p, err := s.params(r, handler, accepted...)
		if err != nil {
			writeError(w, err)
			return
		}
		key, _ := p["key"].(string)
		if pk := r.PathValue("key"); pk != "" {
			key = pk
		}
		// The answer is made under the lock and sent after it.
		s.mu.Lock()
		answer, aerr := s.blobMetadataLocked(r, key, p["value"])
		s.mu.Unlock()
		if aerr != nil {
			writeError(w, aerr)
			return
		}
		writeJSON(w, http.StatusOK, answer)
	}
}

// blobMetadataLocked does blobMetadata's work; callers hold s.mu.
func (s *Server) blobMetadataLocked(r *http.Request, key string, value any) (any, *apiError) {
	b := s.blobTable()[r.PathValue("blob_uuid")]
	switch {
	case b == nil:
		return nil, notFound("blob not found")
	case r.Method == http.MethodGet:
		out, _ := json.Marshal(b.metadata) // a map of JSON values cannot fail
		return json.RawMessage(out), nil
	case key == "":
		return nil, badRequest("no key specified")
	}
	// A new map, not the old one changed: a blob view made earlier holds
	// the old map and is encoded after the lock is released.
	md := maps.Clone(b.metadata)
	if md == nil {
		md = map[string]any{}
	}
	if r.Method == http.MethodDelete {
		b.events = appendEvent(b.events, apiFQDN, "delete metadata key request from REST API", map[string]any{"key": key})
		delete(md, key)
	} else {
		if !truthy(value) {
			return nil, badRequest("no value specified")
		}
		b.events = appendEvent(b.events, apiFQDN, "set metadata key request from REST API", map[string]any{"key": key, "value": value, "method": strings.ToLower(r.Method)})
		md[key] = value
	}
	b.metadata = md
	return nil, nil
}
