package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Namespace keys (AuthNamespaceKeysEndpoint, AuthNamespaceKeyEndpoint,
// da448b1a; the 2026 scoped keys).

// nsKey is one key of a namespace. The simulator keeps the secret itself
// (the server keeps a bcrypt hash); it never answers with it.
type nsKey struct {
	secret string
	nonce  string
	expiry float64 // epoch seconds; 0 never
	scopes []string
}

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
