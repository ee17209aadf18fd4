package cluster

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
)

// Metadata: the *MetadatasEndpoint / *MetadataEndpoint classes of every
// kind that carries it, in one implementation.

// blobMetadataRoutes are blob.py's BlobMetadatasEndpoint and
// BlobMetadataEndpoint (app.py da448b1a: /blobs/<blob_uuid>/metadata and
// /blobs/<blob_uuid>/metadata/<key>; the same in the 2026 tree). Their
// swagger says admin only, but no decorator enforces it (verify_token,
// arg_is_blob_uuid, log_token_use), so any namespace's token may.
// The audit events the real handlers add to the blob are kept in its
// trail (blobs.go; GET /blobs/{uuid}/events in 2026).
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

type kind int

const (
	kindInstance kind = iota
	kindNetwork
	kindInterface
	kindNode
)

// metadataOf finds the metadata map of the object the path names; callers
// hold s.mu.
func (s *Server) metadataOf(k kind, ref, caller string) (map[string]any, *apiError) {
	switch k {
	case kindInstance:
		i, err := s.findInstance(ref, caller)
		if err != nil {
			return nil, err
		}
		if i.spec.metadata == nil {
			i.spec.metadata = map[string]any{}
		}
		return i.spec.metadata, nil
	case kindNetwork:
		n, err := s.findNetwork(ref, caller, true)
		if err != nil {
			return nil, err
		}
		return n.metadata, nil
	case kindInterface:
		f, err := s.findInterface(ref, caller)
		if err != nil {
			return nil, err
		}
		return f.metadata, nil
	}
	n := s.findNode(ref)
	if n == nil {
		return nil, notFound("node not found")
	}
	return n.metadata, nil
}

func (s *Server) metadataGet(k kind) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		if k == kindNode && !s.requireAdmin(w, r, caller) {
			return
		}
		if _, err := s.params(r, "MetadatasEndpoint.get"); err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		md, err := s.metadataOf(k, r.PathValue("ref"), caller)
		var out []byte
		if err == nil {
			out, _ = json.Marshal(md)
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, json.RawMessage(out))
	}
}

// metadataSet is POST .../metadata (key in the body) and PUT
// .../metadata/{key}; instances validate as _validate_instance_metadata.
func (s *Server) metadataSet(k kind, handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		if k == kindNode && !s.requireAdmin(w, r, caller) {
			return
		}
		p, err := s.params(r, handler, "key", "value")
		if err != nil {
			writeError(w, err)
			return
		}
		key, _ := p["key"].(string)
		if pk := r.PathValue("key"); pk != "" {
			key = pk
		}
		value := p["value"]
		switch {
		case key == "":
			err = badRequest("no key specified")
		case k == kindInstance:
			_, _, err = s.checkMetadata(map[string]any{key: value})
		case !truthy(value):
			err = badRequest("no value specified")
		}
		if err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		md, err := s.metadataOf(k, r.PathValue("ref"), caller)
		if err == nil {
			md[key] = value
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, nil)
	}
}

func (s *Server) metadataDelete(k kind, handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		if k == kindNode && !s.requireAdmin(w, r, caller) {
			return
		}
		if _, err := s.params(r, handler, "value"); err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		md, err := s.metadataOf(k, r.PathValue("ref"), caller)
		if err == nil {
			delete(md, r.PathValue("key"))
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, nil)
	}
}

// handleArtifactMetadata serves the metadata routes of an artifact
// (ArtifactMetadatasEndpoint, ArtifactMetadataEndpoint): owner only, a
// value the server finds falsy is refused.
func (s *Server) handleArtifactMetadata(handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		var accepted []string
		if r.Method != http.MethodGet {
			accepted = []string{"key", "value"}
		}
		s.withArtifact(w, r, caller, handler, true, accepted, func(a *artifactRec, p map[string]any) (any, *apiError) {
			if a.metadata == nil {
				a.metadata = map[string]any{}
			}
			if r.Method == http.MethodGet {
				return a.metadata, nil
			}
			key, _ := p["key"].(string)
			if pk := r.PathValue("key"); pk != "" {
				key = pk
			}
			if key == "" {
				return nil, badRequest("no key specified")
			}
			if r.Method == http.MethodDelete {
				a.events = appendEvent(a.events, apiFQDN, "delete metadata key request from REST API", map[string]any{"key": key})
				delete(a.metadata, key)
				return nil, nil
			}
			if !truthy(p["value"]) {
				return nil, badRequest("no value specified")
			}
			a.events = appendEvent(a.events, apiFQDN, "set metadata key request from REST API", map[string]any{"key": key, "value": p["value"]})
			a.metadata[key] = p["value"]
			return nil, nil
		})
	}
}

func (s *Server) handleNamespaceMetadataGet(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNamespace(w, r, caller, "AuthMetadatasEndpoint.get", nil, func(n *namespaceRec, _ map[string]any) (any, *apiError) {
		return copyMap(n.metadata), nil
	})
}

func (s *Server) handleNamespaceMetadataSet(handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		accepted := []string{"key", "value"}
		if r.PathValue("key") != "" {
			accepted = []string{"value"}
		}
		s.withNamespace(w, r, caller, handler, accepted, func(n *namespaceRec, p map[string]any) (any, *apiError) {
			key, _ := p["key"].(string)
			if pk := r.PathValue("key"); pk != "" {
				key = pk
			}
			switch {
			case key == "":
				return nil, badRequest("no key specified")
			case !truthy(p["value"]):
				return nil, badRequest("no value specified")
			case len(n.metadata) >= maxMetadataKeys:
				return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("metadata quota exceeded: the simulator holds at most %d keys", maxMetadataKeys)}
			}
			n.metadata[key] = p["value"]
			return nil, nil
		})
	}
}

func (s *Server) handleNamespaceMetadataDelete(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNamespace(w, r, caller, "AuthMetadataEndpoint.delete", []string{"value"}, func(n *namespaceRec, _ map[string]any) (any, *apiError) {
		delete(n.metadata, r.PathValue("key"))
		return nil, nil
	})
}

// maxMetadataKeys bounds one object's metadata.
const maxMetadataKeys = 1000

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
