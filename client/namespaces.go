package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/shakenfist/shakectl/internal/redact"
)

// Routes and shapes of shakenfist external_api/auth.py: da448b1a (2024) and
// the 2026 public copy with keys as objects, expiry and capacity claims.

func namespacePath(ns string, rest ...string) (string, error) {
	if ns == "" {
		return "", &UsageError{Field: "namespace", Problem: "no namespace named"}
	}
	p := "/auth/namespaces/" + url.PathEscape(ns)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p, nil
}

// GetNamespace shows one namespace: GET /auth/namespaces/{ns}.
func (c *Client) GetNamespace(ctx context.Context, ns string) (*Namespace, error) {
	p, err := namespacePath(ns)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Namespace](c, ctx, http.MethodGet, p, nil)
	return v, err
}

// CreateNamespace creates a namespace: POST /auth/namespaces
// {"namespace"} (admin; 403 "namespace exists").
func (c *Client) CreateNamespace(ctx context.Context, ns string) (*Namespace, error) {
	if ns == "" {
		return nil, &UsageError{Field: "namespace", Problem: "no namespace named"}
	}
	v, _, err := getOne[Namespace](c, ctx, http.MethodPost, "/auth/namespaces", map[string]string{"namespace": ns})
	return v, err
}

// DeleteNamespace deletes a namespace: DELETE /auth/namespaces/{ns}. The
// server refuses (400 "you cannot delete a namespace with instances" /
// "… with networks") while it holds live instances or networks: clean it
// first (CleanNamespace). The system namespace cannot be deleted (403).
func (c *Client) DeleteNamespace(ctx context.Context, ns string) error {
	p, err := namespacePath(ns)
	if err != nil {
		return err
	}
	_, _, err = c.call(ctx, http.MethodDelete, p, nil)
	return err
}

// NamespaceCleaned is what CleanNamespace asked the server to delete.
type NamespaceCleaned struct {
	// Instances are the UUIDs of the instances whose deletion was queued.
	Instances []string         `json:"instances"`
	Networks  *NetworksDeleted `json:"networks"`
}

// CleanNamespace deletes every instance and network of a namespace, as
// sf-client's "namespace clean" does (client-python 6c25293c
// commandline/namespace.py): DELETE /instances, then DELETE /networks with
// clean_wait, so networks go once their interfaces have. Waiting for the
// instances to be gone is the caller's. On a partial failure the result so
// far comes back with the error.
func (c *Client) CleanNamespace(ctx context.Context, ns string) (*NamespaceCleaned, error) {
	out := &NamespaceCleaned{}
	ids, err := c.DeleteAllInstances(ctx, ns)
	if err != nil {
		return out, err
	}
	out.Instances = ids
	out.Networks, err = c.DeleteAllNetworks(ctx, ns, true)
	return out, err
}

// ListNamespaceKeys lists a namespace's key names:
// GET /auth/namespaces/{ns}/keys.
func (c *Client) ListNamespaceKeys(ctx context.Context, ns string) ([]string, error) {
	p, err := namespacePath(ns, "keys")
	if err != nil {
		return nil, err
	}
	resp, u, err := c.call(ctx, http.MethodGet, p, nil)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(resp, http.MethodGet, u, '['); err != nil {
		return nil, err
	}
	var names []string
	if err := json.Unmarshal(resp.Body, &names); err != nil {
		return nil, decodeError(resp, http.MethodGet, u, err)
	}
	return names, nil
}

// Secret is a key's secret. It prints as "[redacted]" in every format
// (fmt, JSON, logs), so it cannot leak by accident; Reveal gives the text.
type Secret struct{ s string }

// NewSecret wraps a secret.
func NewSecret(s string) Secret { return Secret{s: s} }

// Reveal is the secret itself.
func (s Secret) Reveal() string { return s.s }

// Empty says there is no secret.
func (s Secret) Empty() bool { return s.s == "" }

func (s Secret) String() string               { return redact.Marker }
func (s Secret) GoString() string             { return "client.Secret{" + redact.Marker + "}" }
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redact.Marker + `"`), nil }

// NamespaceKey is a key as its add or rotation answered: its name, and the
// secret only when the server generated it (2026, capability
// generated-key-secrets: "returned exactly once").
type NamespaceKey struct {
	Name      string `json:"key_name"`
	Generated Secret `json:"key,omitempty"`
}

type keyParams struct {
	KeyName string   `json:"key_name,omitempty"`
	Key     string   `json:"key,omitempty"`
	Expiry  *float64 `json:"expiry,omitempty"`
}

// expirySeconds is the 2026 "expiry" parameter: epoch seconds, a number
// in the future (auth.py _validate_key_expiry).
func expirySeconds(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	v := math.Round(float64(t.UnixMilli())) / 1000
	return &v
}

// AddNamespaceKey adds a key: POST /auth/namespaces/{ns}/keys {"key_name",
// "key", "expiry"}. secret may be empty on a 2026 server, which then
// generates one and answers it once (in the result's Generated). expiry
// (zero: never) needs a 2026 server; against one that does not advertise
// the 2026 key family the client refuses with *NotSupportedError rather
// than have the server's 400 TypeError say it. The secret is never logged
// (--debug redacts "key") and is scrubbed from errors.
func (c *Client) AddNamespaceKey(ctx context.Context, ns, name string, secret Secret, expiry time.Time) (*NamespaceKey, error) {
	if name == "" {
		return nil, &UsageError{Field: "key name", Problem: "no key name"}
	}
	p, err := namespacePath(ns, "keys")
	if err != nil {
		return nil, err
	}
	if !expiry.IsZero() {
		if err := c.require(ctx, CapGeneratedKeySecrets, "keys with an expiry"); err != nil {
			return nil, err
		}
	}
	if secret.Empty() {
		if err := c.require(ctx, CapGeneratedKeySecrets, "generated key secrets"); err != nil {
			return nil, err
		}
	}
	return c.putKey(ctx, http.MethodPost, p, keyParams{KeyName: name, Key: secret.Reveal(), Expiry: expirySeconds(expiry)}, name, secret)
}

// RotateNamespaceKey gives an existing key a new secret (old tokens stop
// working: the nonce changes). On a 2026 server that is PUT
// /auth/namespaces/{ns}/keys/{name} {"key", "expiry"} (404 "key does not
// exist"; an omitted expiry clears a previous one). The 2024 server's PUT
// handler never worked (it looked the key up in the wrong dict, always
// 404; the 2026 code's NOTE says so), but its POST /keys replaces an
// existing key's hash (namespace.py add_key): that is used when the server
// does not advertise the 2026 key family.
func (c *Client) RotateNamespaceKey(ctx context.Context, ns, name string, secret Secret, expiry time.Time) (*NamespaceKey, error) {
	if name == "" {
		return nil, &UsageError{Field: "key name", Problem: "no key name"}
	}
	if secret.Empty() {
		return nil, &UsageError{Field: "key", Problem: "a rotation needs the new secret (the server never generates one on rotation)"}
	}
	caps, _ := c.Capabilities(ctx)
	if caps.Has(CapGeneratedKeySecrets) {
		p, err := namespacePath(ns, "keys", name)
		if err != nil {
			return nil, err
		}
		return c.putKey(ctx, http.MethodPut, p, keyParams{Key: secret.Reveal(), Expiry: expirySeconds(expiry)}, name, secret)
	}
	if !expiry.IsZero() {
		return nil, &NotSupportedError{Feature: "keys with an expiry", Capability: CapGeneratedKeySecrets}
	}
	p, err := namespacePath(ns, "keys")
	if err != nil {
		return nil, err
	}
	return c.putKey(ctx, http.MethodPost, p, keyParams{KeyName: name, Key: secret.Reveal()}, name, secret)
}

// putKey sends a key and reads the answer: the key's name as a JSON
// string, or {"key_name", "key"} for a generated secret.
func (c *Client) putKey(ctx context.Context, method, p string, params keyParams, name string, secret Secret) (*NamespaceKey, error) {
	c.addSecret(secret.Reveal())
	resp, u, err := c.call(ctx, method, p, params)
	if err != nil {
		return nil, err
	}
	out := &NamespaceKey{Name: name}
	var answered string
	if json.Unmarshal(resp.Body, &answered) == nil {
		if answered != "" {
			out.Name = answered
		}
		return out, nil
	}
	var gen struct {
		KeyName string `json:"key_name"`
		Key     string `json:"key"`
	}
	if err := json.Unmarshal(resp.Body, &gen); err != nil {
		return nil, decodeError(resp, method, u, errors.New("neither a key name nor a generated key"))
	}
	if gen.KeyName != "" {
		out.Name = gen.KeyName
	}
	out.Generated = NewSecret(gen.Key)
	c.addSecret(gen.Key)
	return out, nil
}

// DeleteNamespaceKey removes a key: DELETE /auth/namespaces/{ns}/keys/{name}
// (404 "key name not found in namespace").
func (c *Client) DeleteNamespaceKey(ctx context.Context, ns, name string) error {
	if name == "" {
		return &UsageError{Field: "key name", Problem: "no key name"}
	}
	p, err := namespacePath(ns, "keys", name)
	if err != nil {
		return err
	}
	_, _, err = c.call(ctx, http.MethodDelete, p, nil)
	return err
}

// metadata routes are the same for every object (client-python 6c25293c
// _get_metadata, _set_metadata, _delete_metadata): GET {obj}/metadata, PUT
// {obj}/metadata/{key} {"value"}, DELETE {obj}/metadata/{key}; PUT and
// DELETE answer 200 null.

func (c *Client) getMetadata(ctx context.Context, objPath string) (map[string]any, error) {
	resp, u, err := c.call(ctx, http.MethodGet, objPath+"/metadata", nil)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(resp, http.MethodGet, u, '{'); err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(resp.Body, &out); err != nil {
		return nil, decodeError(resp, http.MethodGet, u, err)
	}
	return out, nil
}

func (c *Client) setMetadata(ctx context.Context, objPath, key string, value any) error {
	if key == "" {
		return &UsageError{Field: "metadata key", Problem: "no key"}
	}
	_, _, err := c.call(ctx, http.MethodPut, objPath+"/metadata/"+url.PathEscape(key), map[string]any{"value": value})
	return err
}

func (c *Client) deleteMetadata(ctx context.Context, objPath, key string) error {
	if key == "" {
		return &UsageError{Field: "metadata key", Problem: "no key"}
	}
	_, _, err := c.call(ctx, http.MethodDelete, objPath+"/metadata/"+url.PathEscape(key), nil)
	return err
}

// GetNamespaceMetadata reads GET /auth/namespaces/{ns}/metadata.
func (c *Client) GetNamespaceMetadata(ctx context.Context, ns string) (map[string]any, error) {
	p, err := namespacePath(ns)
	if err != nil {
		return nil, err
	}
	return c.getMetadata(ctx, p)
}

// SetNamespaceMetadata sends PUT /auth/namespaces/{ns}/metadata/{key}
// {"value"} (a value the server finds falsy, "" or [], is refused 400).
func (c *Client) SetNamespaceMetadata(ctx context.Context, ns, key string, value any) error {
	p, err := namespacePath(ns)
	if err != nil {
		return err
	}
	return c.setMetadata(ctx, p, key, value)
}

// DeleteNamespaceMetadata sends DELETE /auth/namespaces/{ns}/metadata/{key}.
func (c *Client) DeleteNamespaceMetadata(ctx context.Context, ns, key string) error {
	p, err := namespacePath(ns)
	if err != nil {
		return err
	}
	return c.deleteMetadata(ctx, p, key)
}

// AddNamespaceTrust lets another namespace see this one's objects: POST
// /auth/namespaces/{ns}/trust {"external_namespace"}; the answer is the
// namespace as it now is.
func (c *Client) AddNamespaceTrust(ctx context.Context, ns, trusted string) (*Namespace, error) {
	if trusted == "" {
		return nil, &UsageError{Field: "external namespace", Problem: "no namespace to trust"}
	}
	p, err := namespacePath(ns, "trust")
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Namespace](c, ctx, http.MethodPost, p, map[string]string{"external_namespace": trusted})
	return v, err
}

// RemoveNamespaceTrust withdraws it: DELETE
// /auth/namespaces/{ns}/trust/{external}; the answer is the namespace.
func (c *Client) RemoveNamespaceTrust(ctx context.Context, ns, trusted string) (*Namespace, error) {
	if trusted == "" {
		return nil, &UsageError{Field: "external namespace", Problem: "no namespace named"}
	}
	p, err := namespacePath(ns, "trust", trusted)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Namespace](c, ctx, http.MethodDelete, p, nil)
	return v, err
}

// Claim is a namespace's capacity claim (2026 auth.py claim_example):
// limits in vCPUs, MiB and GB, what it uses, and when it lapses.
type Claim struct {
	UUID          string `json:"uuid"`
	Namespace     string `json:"namespace"`
	State         string `json:"state"`
	CoverageState string `json:"coverage_state"`
	LimitCPUs     int    `json:"limit_cpus"`
	LimitMemoryMB int    `json:"limit_memory_mb"`
	LimitDiskGB   int    `json:"limit_disk_gb"`
	// The use is float on the wire where the server's ledger carries a
	// fraction (auth.py _claim_number); whole numbers print as such.
	UsedCPUs     float64         `json:"used_cpus"`
	UsedMemoryMB float64         `json:"used_memory_mb"`
	UsedDiskGB   float64         `json:"used_disk_gb"`
	ExpiresAt    float64         `json:"expires_at"`
	UpdatedAt    float64         `json:"updated_at"`
	Raw          json.RawMessage `json:"-"`
}

func (c *Claim) keepRaw(r json.RawMessage) { c.Raw = r }

// Expires is ExpiresAt as a time (zero when the server sent none).
func (c *Claim) Expires() time.Time {
	if c.ExpiresAt == 0 {
		return time.Time{}
	}
	sec, frac := math.Modf(c.ExpiresAt)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// ClaimRequest is the body of a claim create: every limit and the
// duration are required (2026 AuthNamespaceClaimsEndpoint.post).
type ClaimRequest struct {
	LimitCPUs     int `json:"limit_cpus"`
	LimitMemoryMB int `json:"limit_memory_mb"`
	LimitDiskGB   int `json:"limit_disk_gb"`
	// ExpiresInSeconds is a duration from now on the cluster's clock,
	// not a timestamp; at least 1.
	ExpiresInSeconds int `json:"expires_in_seconds"`
}

// ClaimUpdate is a claim update's field mask: only the fields set are
// sent, because the server reads the body as a mask (client-python
// test_update_namespace_claim_sends_only_what_changed).
type ClaimUpdate struct {
	LimitCPUs        *int `json:"limit_cpus,omitempty"`
	LimitMemoryMB    *int `json:"limit_memory_mb,omitempty"`
	LimitDiskGB      *int `json:"limit_disk_gb,omitempty"`
	ExpiresInSeconds *int `json:"expires_in_seconds,omitempty"`
}

// ExpiresIn turns a duration into the server's whole seconds, rounding
// up so a duration under a second is still positive.
func ExpiresIn(d time.Duration) int {
	return int(math.Ceil(d.Seconds()))
}

func checkClaimNumbers(limits map[string]*int, expires *int) error {
	for name, v := range limits {
		if v != nil && *v < 0 {
			return &UsageError{Field: name, Problem: fmt.Sprintf("%d is negative", *v)}
		}
	}
	if expires != nil && *expires < 1 {
		return &UsageError{Field: "expires_in_seconds", Problem: "must be at least 1 second"}
	}
	return nil
}

// ListNamespaceClaims lists GET /auth/namespaces/{ns}/claims, expired
// claims included (admin).
func (c *Client) ListNamespaceClaims(ctx context.Context, ns string) ([]Claim, error) {
	p, err := namespacePath(ns, "claims")
	if err != nil {
		return nil, err
	}
	return getList[Claim](c, ctx, http.MethodGet, p, nil)
}

// GetNamespaceClaim shows GET /auth/namespaces/{ns}/claims/{uuid}.
func (c *Client) GetNamespaceClaim(ctx context.Context, ns, claimUUID string) (*Claim, error) {
	p, err := claimPath(ns, claimUUID)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Claim](c, ctx, http.MethodGet, p, nil)
	return v, err
}

func claimPath(ns, claimUUID string) (string, error) {
	if claimUUID == "" {
		return "", &UsageError{Field: "claim", Problem: "no claim uuid"}
	}
	return namespacePath(ns, "claims", claimUUID)
}

// CreateNamespaceClaim sends POST /auth/namespaces/{ns}/claims. Its
// refusals come back as *ClaimRefusal: 507 no capacity (permanent), 503
// retry later, 409 the namespace already holds a claim.
func (c *Client) CreateNamespaceClaim(ctx context.Context, ns string, req ClaimRequest) (*Claim, error) {
	if err := checkClaimNumbers(map[string]*int{"limit_cpus": &req.LimitCPUs, "limit_memory_mb": &req.LimitMemoryMB,
		"limit_disk_gb": &req.LimitDiskGB}, &req.ExpiresInSeconds); err != nil {
		return nil, err
	}
	p, err := namespacePath(ns, "claims")
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Claim](c, ctx, http.MethodPost, p, req)
	return v, claimRefusal(err)
}

// UpdateNamespaceClaim sends PUT /auth/namespaces/{ns}/claims/{uuid} with
// the fields set (an empty mask is the server's 400 to give). Refusals as
// for CreateNamespaceClaim; a 409 also means a shrink below use or an
// inactive claim.
func (c *Client) UpdateNamespaceClaim(ctx context.Context, ns, claimUUID string, upd ClaimUpdate) (*Claim, error) {
	if err := checkClaimNumbers(map[string]*int{"limit_cpus": upd.LimitCPUs, "limit_memory_mb": upd.LimitMemoryMB,
		"limit_disk_gb": upd.LimitDiskGB}, upd.ExpiresInSeconds); err != nil {
		return nil, err
	}
	p, err := claimPath(ns, claimUUID)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Claim](c, ctx, http.MethodPut, p, upd)
	return v, claimRefusal(err)
}

// DeleteNamespaceClaim sends DELETE /auth/namespaces/{ns}/claims/{uuid};
// the answer is the claim as it was just before (a claim has no soft
// delete).
func (c *Client) DeleteNamespaceClaim(ctx context.Context, ns, claimUUID string) (*Claim, error) {
	p, err := claimPath(ns, claimUUID)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Claim](c, ctx, http.MethodDelete, p, nil)
	return v, err
}
