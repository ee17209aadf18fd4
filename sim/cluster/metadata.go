package cluster

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
)

// Metadata: the *MetadatasEndpoint / *MetadataEndpoint classes of every
// kind that carries it (instances, networks, interfaces, nodes,
// namespaces, artifacts, blobs), in one implementation. What differs
// between the kinds is data in metadataKinds: the handler classes' names,
// the body keys each method declares, who may ask, how the object is
// found, and whether the real handler judges the key and value before or
// after it looks the object up.

// metadataKind is one kind of object that carries metadata.
type metadataKind struct {
	// path is the object's path; the routes are path+"/metadata" (GET,
	// POST) and path+"/metadata/{key}" (PUT, DELETE).
	path string
	// class prefixes the handler classes' names: "Instance" names
	// InstanceMetadatasEndpoint and InstanceMetadataEndpoint.
	class string
	// putAccepts and deleteAccepts are the body keys PUT and DELETE
	// declare; GET declares none and POST key and value.
	putAccepts, deleteAccepts []string
	// admin: only the system namespace may ask (nodes).
	admin bool
	// keyFirst: the key and value are judged before the object is looked
	// up (the instance, network, interface and node handlers), rather
	// than after (namespaces, artifacts, blobs).
	keyFirst bool
	// validate judges a value to set when keyFirst; nil refuses a value
	// the server finds falsy.
	validate func(s *Server, key string, value any) *apiError
	// limit bounds the object's keys; 0 is no bound.
	limit int
	// find looks the object up as the caller may see it; callers hold
	// s.mu.
	find func(s *Server, r *http.Request, caller string) (metadataTarget, *apiError)
}

// metadataTarget is the object's metadata and, for the kinds whose real
// handlers record metadata requests as events, its event trail.
type metadataTarget struct {
	md     *map[string]any
	events *[]event
	// method: the set event names the request's method (blobs).
	method bool
}

// maxMetadataKeys bounds one namespace's metadata.
const maxMetadataKeys = 1000

var (
	// generic is the parameter shape of the instance, network, interface
	// and node handlers (da448b1a).
	genericPut    = []string{"key", "value"}
	genericDelete = []string{"value"}
	valueOnly     = []string{"value"}
)

// metadataKinds are the kinds in the order their routes are listed.
var metadataKinds = []metadataKind{
	{path: "/auth/namespaces/{namespace}", class: "Auth", putAccepts: valueOnly, deleteAccepts: valueOnly, limit: maxMetadataKeys,
		find: func(s *Server, r *http.Request, caller string) (metadataTarget, *apiError) {
			n, err := s.ownedNamespace(r.PathValue("namespace"), caller)
			if err != nil {
				return metadataTarget{}, err
			}
			return metadataTarget{md: &n.metadata}, nil
		}},
	// requires_artifact_ownership (withArtifact's owner rule).
	{path: "/artifacts/{ref}", class: "Artifact", putAccepts: genericPut, deleteAccepts: genericPut,
		find: func(s *Server, r *http.Request, caller string) (metadataTarget, *apiError) {
			a, err := s.findArtifact(r.PathValue("ref"), caller)
			if err == nil && !s.trusted(a.namespace, caller) {
				err = notFound("artifact not found")
			}
			if err != nil {
				return metadataTarget{}, err
			}
			return metadataTarget{md: &a.metadata, events: &a.events}, nil
		}},
	// blob.py: the swagger says admin only, but no decorator enforces it
	// (verify_token, arg_is_blob_uuid, log_token_use), so any namespace's
	// token may. The requests are kept in the blob's event trail (GET
	// /blobs/{uuid}/events in 2026).
	{path: "/blobs/{blob_uuid}", class: "Blob", putAccepts: valueOnly, deleteAccepts: valueOnly,
		find: func(s *Server, r *http.Request, _ string) (metadataTarget, *apiError) {
			b := s.blobTable()[r.PathValue("blob_uuid")]
			if b == nil {
				return metadataTarget{}, notFound("blob not found")
			}
			return metadataTarget{md: &b.metadata, events: &b.events, method: true}, nil
		}},
	// Instances validate as _validate_instance_metadata.
	{path: "/instances/{ref}", class: "Instance", putAccepts: genericPut, deleteAccepts: genericDelete, keyFirst: true,
		validate: func(s *Server, key string, value any) *apiError {
			_, _, err := s.checkMetadata(map[string]any{key: value})
			return err
		},
		find: func(s *Server, r *http.Request, caller string) (metadataTarget, *apiError) {
			i, err := s.findInstance(r.PathValue("ref"), caller)
			if err != nil {
				return metadataTarget{}, err
			}
			return metadataTarget{md: &i.spec.metadata}, nil
		}},
	{path: "/networks/{ref}", class: "Network", putAccepts: genericPut, deleteAccepts: genericDelete, keyFirst: true,
		find: func(s *Server, r *http.Request, caller string) (metadataTarget, *apiError) {
			n, err := s.findNetwork(r.PathValue("ref"), caller, true)
			if err != nil {
				return metadataTarget{}, err
			}
			return metadataTarget{md: &n.metadata}, nil
		}},
	{path: "/interfaces/{ref}", class: "Interface", putAccepts: genericPut, deleteAccepts: genericDelete, keyFirst: true,
		find: func(s *Server, r *http.Request, caller string) (metadataTarget, *apiError) {
			f, err := s.findInterface(r.PathValue("ref"), caller)
			if err != nil {
				return metadataTarget{}, err
			}
			return metadataTarget{md: &f.metadata}, nil
		}},
	{path: "/nodes/{ref}", class: "Node", putAccepts: genericPut, deleteAccepts: genericDelete, keyFirst: true, admin: true,
		find: func(s *Server, r *http.Request, _ string) (metadataTarget, *apiError) {
			n := s.findNode(r.PathValue("ref"))
			if n == nil {
				return metadataTarget{}, notFound("node not found")
			}
			return metadataTarget{md: &n.metadata}, nil
		}},
}

// metadataRoutes are the two metadata routes of every kind.
func (s *Server) metadataRoutes() []route {
	var rs []route
	for k := range metadataKinds {
		k := &metadataKinds[k]
		rs = append(rs,
			route{k.path + "/metadata", map[string]http.HandlerFunc{
				"GET":  s.authed(s.metadataHandler(k, http.MethodGet)),
				"POST": s.authed(s.metadataHandler(k, http.MethodPost)),
			}},
			route{k.path + "/metadata/{key}", map[string]http.HandlerFunc{
				"PUT":    s.authed(s.metadataHandler(k, http.MethodPut)),
				"DELETE": s.authed(s.metadataHandler(k, http.MethodDelete)),
			}})
	}
	return rs
}

// metadataHandler serves one method of one kind: the admin check, then
// the body's parameters (the generic wrapper's kwargs), then the key and
// value and the object in the kind's order. GET answers the metadata;
// POST, PUT and DELETE answer 200 null.
func (s *Server) metadataHandler(k *metadataKind, method string) authedHandler {
	var handler string
	var accepted []string
	switch method {
	case http.MethodGet:
		handler = k.class + "MetadatasEndpoint.get"
	case http.MethodPost:
		handler, accepted = k.class+"MetadatasEndpoint.post", []string{"key", "value"}
	case http.MethodPut:
		handler, accepted = k.class+"MetadataEndpoint.put", k.putAccepts
	default:
		handler, accepted = k.class+"MetadataEndpoint.delete", k.deleteAccepts
	}
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		if k.admin && !s.requireAdmin(w, r, caller) {
			return
		}
		p, err := s.params(r, handler, accepted...)
		if err != nil {
			writeError(w, err)
			return
		}
		key, _ := p["key"].(string)
		if pk := r.PathValue("key"); pk != "" {
			key = pk
		}
		value := p["value"]
		if k.keyFirst && (method == http.MethodPost || method == http.MethodPut) {
			if err := k.checkSet(s, key, value); err != nil {
				writeError(w, err)
				return
			}
		}
		// The answer is made under the lock and sent after it.
		s.mu.Lock()
		out, err := s.metadataLocked(k, r, caller, method, key, value)
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// checkSet judges the key and the value to set.
func (k *metadataKind) checkSet(s *Server, key string, value any) *apiError {
	switch {
	case key == "":
		return badRequest("no key specified")
	case k.validate != nil:
		return k.validate(s, key, value)
	case !truthy(value):
		return badRequest("no value specified")
	}
	return nil
}

// metadataLocked does metadataHandler's work on the object; callers hold
// s.mu.
func (s *Server) metadataLocked(k *metadataKind, r *http.Request, caller, method, key string, value any) (any, *apiError) {
	t, err := k.find(s, r, caller)
	if err != nil {
		return nil, err
	}
	if method == http.MethodGet {
		md := *t.md
		if md == nil {
			md = map[string]any{}
		}
		out, _ := json.Marshal(md) // a map of JSON values cannot fail
		return json.RawMessage(out), nil
	}
	if !k.keyFirst && key == "" {
		return nil, badRequest("no key specified")
	}
	// A new map, not the old one changed: a view made earlier holds the
	// old map and is encoded after the lock is released.
	md := maps.Clone(*t.md)
	if md == nil {
		md = map[string]any{}
	}
	if method == http.MethodDelete {
		t.record("delete metadata key request from REST API", map[string]any{"key": key})
		delete(md, key)
		*t.md = md
		return nil, nil
	}
	if !k.keyFirst {
		if !truthy(value) {
			return nil, badRequest("no value specified")
		}
		if k.limit > 0 && len(md) >= k.limit {
			return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("metadata quota exceeded: the simulator holds at most %d keys", k.limit)}
		}
	}
	extra := map[string]any{"key": key, "value": value}
	if t.method {
		extra["method"] = strings.ToLower(method)
	}
	t.record("set metadata key request from REST API", extra)
	md[key] = value
	*t.md = md
	return nil, nil
}

// record adds an audit event to the object's trail, if it keeps one.
func (t metadataTarget) record(msg string, extra map[string]any) {
	if t.events != nil {
		*t.events = appendEvent(*t.events, apiFQDN, msg, extra)
	}
}
