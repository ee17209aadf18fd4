package cluster

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Authentication: POST /auth, the bearer-token check every authed route
// passes, the admin check, and the 2026 scopes
// (docs/developer_guide/authentication.md @00b8f3e2;
// external_api/scopes.py @451a0ef2 derives family and verb).

// token is a bearer token: opaque here, a JWT on a real server whose sub
// is [namespace, keyname] with the key's nonce.
type token struct {
	namespace string
	keyName   string
	nonce     string
	scopes    []string
	expires   time.Time
}

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

// scopeAdmin is the scope administrative endpoints need in 2026 besides
// the system namespace. scopes.py @451a0ef2 spells it ADMIN = 'admin';
// the authentication guide (@00b8f3e2) and the client use cluster-admin,
// which is what the simulator accepts.
const scopeAdmin = "cluster-admin"

// requiredScope derives "<family>.<verb>" from the path and method as
// scopes.py does from the resource class: the leading word of the class,
// singular; the verb from the method; console endpoints use "console".
func requiredScope(r *http.Request) string {
	path := strings.TrimPrefix(r.URL.Path, "/")
	first, rest, _ := strings.Cut(path, "/")
	family := map[string]string{
		"auth": "auth", "instances": "instance", "networks": "network", "nodes": "node",
		"interfaces": "interface", "clusteroperations": "clusteroperation", "admin": "admin",
		"artifacts": "artifact",
		// The blob, label and upload families (shakenfist-2026.md 2.2 lists
		// them); /blob_checksums is BlobChecksumsEndpoint's, so blob, and
		// /artifacts/upload/<name> ArtifactUploadEndpoint's, so artifact.
		"blobs": "blob", "blob_checksums": "blob", "label": "label", "upload": "upload",
		"agentoperations": "agentoperation",
	}[first]
	if family == "" {
		return ""
	}
	verb := map[string]string{"GET": "read", "HEAD": "read", "POST": "write", "PUT": "write", "PATCH": "write", "DELETE": "delete"}[r.Method]
	// @api_base.scope(verb='console') is on the two VDI routes only (2026
	// instance.py, code index id 59117373307: "Deriving instance.read would
	// let a credential granted only to watch instances take one over");
	// InstanceConsoleDataEndpoint has no override, so its GET is
	// instance.read and its DELETE instance.delete (scopes.py
	// required_scope @451a0ef2).
	if family == "instance" && (strings.HasSuffix(rest, "/vdiconsolehelper") || strings.HasSuffix(rest, "/vdiconsoleproxy")) {
		verb = "console"
	}
	if verb == "" {
		return ""
	}
	return family + "." + verb
}

// scopesSatisfy is scopes.satisfies: nil (no scopes claim) and "*" allow
// everything; otherwise the exact scope or its family wildcard (auth.py
// @0209b9ca speaks of "auth.*, which the family wildcard actively
// encourages").
func scopesSatisfy(held []string, required string) bool {
	if held == nil {
		return true
	}
	fam, _, _ := strings.Cut(required, ".")
	for _, h := range held {
		if h == "*" || (required != "" && (h == required || h == fam+".*")) {
			return true
		}
	}
	return false
}

func hasScope(held []string, want string) bool {
	if held == nil {
		return true
	}
	for _, h := range held {
		if h == "*" || h == want {
			return true
		}
	}
	return false
}

func sortedCopy(in []string) []string {
	if in == nil {
		return nil
	}
	out := append([]string{}, in...)
	sort.Strings(out)
	return out
}

func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// maxTokens bounds the token table; beyond it, long-expired tokens go.
const maxTokens = 10000

func (s *Server) pruneTokens(now time.Time) {
	if len(s.tokens) < maxTokens {
		return
	}
	type aged struct {
		tok     string
		expires time.Time
	}
	var expired []aged
	for t, v := range s.tokens {
		if now.After(v.expires) {
			expired = append(expired, aged{t, v.expires})
		}
	}
	if len(expired) == 0 {
		return
	}
	sort.Slice(expired, func(a, b int) bool { return expired[a].expires.Before(expired[b].expires) })
	for _, e := range expired[:len(expired)/2+1] {
		delete(s.tokens, e.tok)
	}
}
