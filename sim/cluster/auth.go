package cluster

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

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

// nsKey is one key of a namespace. The simulator keeps the secret itself
// (the server keeps a bcrypt hash); it never answers with it.
type nsKey struct {
	secret string
	nonce  string
	expiry float64 // epoch seconds; 0 never
	scopes []string
}

// token is a bearer token: opaque here, a JWT on a real server whose sub
// is [namespace, keyname] with the key's nonce.
type token struct {
	namespace string
	keyName   string
	nonce     string
	scopes    []string
	expires   time.Time
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

// liveKey is the key by name, unless it has expired (Namespace.keys drops
// expired keys, da448b1a; 2026 filters them in SQL).
func (n *namespaceRec) liveKey(name string, now time.Time) *nsKey {
	k := n.keys[name]
	if k == nil || (k.expiry != 0 && epoch(now) > k.expiry) {
		return nil
	}
	return k
}

func (n *namespaceRec) keyNames(now time.Time) []string {
	out := []string{}
	for _, name := range n.keyOrder {
		if n.liveKey(name, now) != nil {
			out = append(out, name)
		}
	}
	return out
}

// addKey is Namespace.add_key: a new hash and a new nonce, so a rotated
// key's old tokens stop working.
func (n *namespaceRec) addKey(name, secret string, expiry float64, scopes []string) {
	if _, ok := n.keys[name]; !ok {
		n.keyOrder = append(n.keyOrder, name)
	}
	n.keys[name] = &nsKey{secret: secret, nonce: newToken()[:16], expiry: expiry, scopes: sortedCopy(scopes)}
}

func (n *namespaceRec) removeKey(name string) {
	delete(n.keys, name)
	for k, v := range n.keyOrder {
		if v == name {
			n.keyOrder = append(n.keyOrder[:k:k], n.keyOrder[k+1:]...)
			break
		}
	}
}

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

// --- POST /auth ---

func (s *Server) handleAuth(w http.ResponseWriter, r *http.Request) {
	p, err := s.params(r, "AuthEndpoint.post", "namespace", "key")
	if err != nil {
		writeError(w, err)
		return
	}
	ns, hasNS := p["namespace"]
	switch {
	case !hasNS || ns == nil:
		writeError(w, badRequest("missing namespace in request"))
		return
	}
	nsName, _ := ns.(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.namespaces[nsName]
	if !rec.live() {
		writeError(w, notFound("namespace not found"))
		return
	}
	if !truthy(p["key"]) {
		writeError(w, badRequest("missing key in request"))
		return
	}
	key, ok := p["key"].(string)
	if !ok {
		writeError(w, badRequest("key is not a string"))
		return
	}
	now := time.Now()
	// Every key is compared, as the bcrypt loop does; the first match wins.
	for _, name := range rec.keyOrder {
		k := rec.liveKey(name, now)
		if k == nil || subtle.ConstantTimeCompare([]byte(key), []byte(k.secret)) != 1 {
			continue
		}
		tok := newToken()
		s.pruneTokens(now)
		s.tokens[tok] = token{namespace: rec.name, keyName: name, nonce: k.nonce, scopes: k.scopes, expires: now.Add(s.cfg.TokenTTL)}
		writeJSON(w, http.StatusOK, map[string]any{
			"access_token": tok, "token_type": "Bearer", "expires_in": int(s.cfg.TokenTTL / time.Second),
		})
		return
	}
	writeError(w, &apiError{status: http.StatusUnauthorized, msg: "unauthorized"})
}

// wantsHTML is Flask-JWT-Extended's test for answering an invalid or
// expired token with a redirect: no Accept header, or one naming text/html.
func wantsHTML(r *http.Request) bool {
	accept := strings.ToLower(strings.Join(r.Header.Values("Accept"), ","))
	return accept == "" || strings.Contains(accept, "text/html")
}

type authedHandler func(w http.ResponseWriter, r *http.Request, caller string)

type scopesKey struct{}

// callerScopes are the scopes of the request's token (nil: the wildcard).
func callerScopes(r *http.Request) []string {
	sc, _ := r.Context().Value(scopesKey{}).([]string)
	return sc
}

// authed is @verify_token (base.py da448b1a): a valid, unexpired token of
// a live namespace whose key still exists with the token's nonce; in 2026
// also a token scoped for the request (403 otherwise). Administrative
// routes check their own scope in requireAdmin.
func (s *Server) authed(h authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		authz := r.Header.Get("Authorization")
		if authz == "" {
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "Missing Authorization Header"})
			return
		}
		scheme, tok, ok := strings.Cut(authz, " ")
		tok = strings.TrimSpace(tok)
		if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "Missing 'Bearer' type in 'Authorization' header. Expected 'Authorization: Bearer <JWT>'"})
			return
		}
		now := time.Now()
		s.mu.Lock()
		t, found := s.tokens[tok]
		revoked := false
		if found {
			ns := s.namespaces[t.namespace]
			k := (*nsKey)(nil)
			if ns.live() {
				k = ns.liveKey(t.keyName, now)
			}
			revoked = k == nil || k.nonce != t.nonce
		}
		s.mu.Unlock()
		switch {
		case !found:
			if wantsHTML(r) {
				http.Redirect(w, r, "/", http.StatusFound)
				return
			}
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "invalid JWT in Authorization header"})
			return
		case !now.Before(t.expires):
			if wantsHTML(r) {
				http.Redirect(w, r, "/", http.StatusFound)
				return
			}
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "Signature has expired"})
			return
		case revoked:
			// NoAuthorizationError: the namespace was deleted, or the key
			// removed or rotated (a new nonce). The text is the
			// simulator's own.
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "unauthorized"})
			return
		}
		if s.is2026() && !adminPath(r) {
			if need := requiredScope(r); !scopesSatisfy(t.scopes, need) {
				writeError(w, &apiError{status: http.StatusForbidden, msg: "token is not scoped for " + need})
				return
			}
		}
		if t.scopes != nil {
			r = r.WithContext(context.WithValue(r.Context(), scopesKey{}, t.scopes))
		}
		h(w, r, t.namespace)
	}
}

// adminPath reports the routes guarded by caller_is_admin, whose scope
// check is cluster-admin rather than family.verb.
func adminPath(r *http.Request) bool {
	p := strings.Trim(r.URL.Path, "/")
	parts := strings.Split(p, "/")
	switch parts[0] {
	case "nodes", "admin":
		return true
	case "auth":
		switch {
		case len(parts) == 2 && r.Method == http.MethodPost: // create a namespace
			return true
		case len(parts) == 3 && r.Method == http.MethodDelete: // delete a namespace
			return true
		case len(parts) == 5 && parts[3] == "keys" && r.Method == http.MethodPut:
			return true
		case len(parts) >= 4 && parts[3] == "claims":
			return true
		}
	}
	return false
}

// requireAdmin is @caller_is_admin: the system namespace, else 401
// unauthorized (not 403); in 2026 also the cluster-admin scope, else 403
// (docs/developer_guide/authentication.md @00b8f3e2).
func (s *Server) requireAdmin(w http.ResponseWriter, r *http.Request, caller string) bool {
	if caller != adminNamespace {
		writeError(w, &apiError{status: http.StatusUnauthorized, msg: "unauthorized"})
		return false
	}
	if s.is2026() && !hasScope(callerScopes(r), scopeAdmin) {
		writeError(w, &apiError{status: http.StatusForbidden, msg: "token is not scoped for administrative operations"})
		return false
	}
	return true
}

// adminRequest checks an admin route's request as the server's decorators
// do, in their order: the endpoint's parameters first (a 400 names the
// key), then the caller (requireAdmin). It has answered when it returns
// false.
func (s *Server) adminRequest(w http.ResponseWriter, r *http.Request, caller, endpoint string) bool {
	if _, err := s.params(r, endpoint); err != nil {
		writeError(w, err)
		return false
	}
	return s.requireAdmin(w, r, caller)
}

// --- /auth/namespaces ---

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

// keyChecks2026 is _validate_key_name and _validate_key_secret (auth.py
// @0209b9ca).
func keyChecks2026(name string, key any) *apiError {
	if name == "service_key" || strings.HasPrefix(name, "_service_key") {
		return &apiError{status: http.StatusForbidden, msg: "illegal key name"}
	}
	if key == nil {
		return nil
	}
	k, ok := key.(string)
	switch {
	case !ok:
		return badRequest("key is not a string")
	case len(k) > 72:
		return &apiError{status: http.StatusUnprocessableEntity, msg: "keys cannot be longer than 72 characters"}
	case strings.HasPrefix(k, generatedKeyPrefix):
		return badRequest("the %s prefix is reserved for cluster generated keys; omit the key entirely to have one generated for you", generatedKeyPrefix)
	}
	return nil
}

// generatedKeyPrefix is credentials.PREFIX: the cluster's own secrets.
const generatedKeyPrefix = "sfk_"

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

// --- keys ---

func (s *Server) handleListKeys(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNamespace(w, r, caller, "AuthNamespaceKeysEndpoint.get", nil, func(n *namespaceRec, _ map[string]any) (any, *apiError) {
		return n.keyNames(time.Now()), nil
	})
}

// handleAddKey is AuthNamespaceKeysEndpoint.post: the key's name as the
// answer. An existing name is rotated. 2026 adds expiry (epoch seconds in
// the future), a generated secret when none is sent (answered once as
// {"key_name", "key"}), and keys inherit the caller's scopes.
func (s *Server) handleAddKey(w http.ResponseWriter, r *http.Request, caller string) {
	accepted := []string{"key_name", "key"}
	if s.is2026() {
		accepted = append(accepted, "expiry")
	}
	s.withNamespace(w, r, caller, "AuthNamespaceKeysEndpoint.post", accepted, func(n *namespaceRec, p map[string]any) (any, *apiError) {
		return s.putKey(n, p, r, true)
	})
}

// putKey is _namespace_keys_putpost of each generation; callers hold s.mu.
func (s *Server) putKey(n *namespaceRec, p map[string]any, r *http.Request, allowGeneration bool) (any, *apiError) {
	name, _ := p["key_name"].(string)
	if !truthy(p["key_name"]) {
		return nil, badRequest("no key name specified")
	}
	if !s.is2026() {
		if !truthy(p["key"]) {
			return nil, badRequest("no key specified")
		}
		if strings.HasPrefix(name, "_service_key") {
			return nil, &apiError{status: http.StatusForbidden, msg: "illegal key name"}
		}
		key, ok := p["key"].(string)
		if !ok { // key.encode() on a non-string: uncaught, a 500
			return nil, &apiError{status: http.StatusInternalServerError, msg: fmt.Sprintf("server error: AttributeError(\"'%s' object has no attribute 'encode'\")", pyType(p["key"]))}
		}
		if _, exists := n.keys[name]; !exists && len(n.keys) >= maxKeys {
			return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("key quota exceeded: the simulator holds at most %d keys per namespace", maxKeys)}
		}
		n.addKey(name, key, 0, nil)
		return name, nil
	}
	if err := keyChecks2026(name, nil); err != nil {
		return nil, err
	}
	var key string
	generated := false
	if !truthy(p["key"]) {
		if !allowGeneration {
			return nil, badRequest("no key specified")
		}
		key, generated = generatedKeyPrefix+newToken()[:40], true
	} else {
		if err := keyChecks2026(name, p["key"]); err != nil {
			return nil, err
		}
		key = p["key"].(string)
	}
	expiry := 0.0
	if v, ok := p["expiry"]; ok && v != nil {
		num, isNum := v.(json.Number)
		f, ferr := num.Float64()
		if !isNum || ferr != nil {
			return nil, badRequest("expiry is not a number")
		}
		if f <= epoch(time.Now()) {
			return nil, badRequest("expiry must be in the future")
		}
		expiry = f
	}
	if _, exists := n.keys[name]; !exists && len(n.keys) >= maxKeys {
		return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("key quota exceeded: the simulator holds at most %d keys per namespace", maxKeys)}
	}
	n.addKey(name, key, expiry, callerScopes(r))
	if generated {
		return map[string]any{"key_name": name, "key": key}, nil
	}
	return name, nil
}

// handleUpdateKey is AuthNamespaceKeyEndpoint.put. At da448b1a it lacks
// @arg_is_namespace, so namespace_from_db is None and the membership test
// raises: every call is a 500 once the decorators pass (the 2026 comment
// "it has never worked" agrees). 2026 (@0209b9ca) rotates an existing key,
// admin only, without generating a secret.
func (s *Server) handleUpdateKey(w http.ResponseWriter, r *http.Request, caller string) {
	accepted := []string{"key"}
	if s.is2026() {
		accepted = append(accepted, "expiry")
	}
	p, err := s.params(r, "AuthNamespaceKeyEndpoint.put", accepted...)
	if err != nil {
		writeError(w, err)
		return
	}
	if !s.requireAdmin(w, r, caller) {
		return
	}
	name := r.PathValue("namespace")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.trusted(name, caller) {
		writeError(w, notFound("namespace not found"))
		return
	}
	if !s.is2026() {
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: `server error: AttributeError("'NoneType' object has no attribute 'keys'")`})
		return
	}
	n := s.namespaces[name]
	if !n.live() {
		writeError(w, notFound("namespace not found"))
		return
	}
	keyName := r.PathValue("key_name")
	if n.liveKey(keyName, time.Now()) == nil {
		writeError(w, notFound("key does not exist"))
		return
	}
	p["key_name"] = keyName
	out, err := s.putKey(n, p, r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteKey(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNamespace(w, r, caller, "AuthNamespaceKeyEndpoint.delete", nil, func(n *namespaceRec, _ map[string]any) (any, *apiError) {
		name := r.PathValue("key_name")
		if n.liveKey(name, time.Now()) == nil {
			return nil, notFound("key name not found in namespace")
		}
		n.removeKey(name)
		return nil, nil
	})
}

// --- namespace metadata (AuthMetadatasEndpoint, AuthMetadataEndpoint) ---

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

// --- trust (AuthNamespaceTrustsEndpoint, AuthNamespaceTrustEndpoint) ---

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
