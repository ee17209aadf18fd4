package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Artifacts, blobs and labels: shakenfist da448b1a external_api/
// artifact.py, blob.py and label.py, routed in app.py; client-python
// 6c25293 apiclient.py for the calls sf-client makes.

// Artifact is Artifact.external_view (artifact.py da448b1a): the object's
// own fields, the most recent index (index, blob_uuid) mixed in, and blobs,
// one entry per version keyed by the version's index as a JSON string
// ("99"). The view has no name: an artifact's name is the last element of
// its source_url (artifact.py _upgrade_step_4_to_5), which Name returns.
type Artifact struct {
	UUID         string                         `json:"uuid"`
	State        string                         `json:"state"`
	ArtifactType string                         `json:"artifact_type"`
	SourceURL    string                         `json:"source_url"`
	Namespace    string                         `json:"namespace"`
	Shared       bool                           `json:"shared"`
	MaxVersions  int                            `json:"max_versions"`
	Index        int                            `json:"index"`
	BlobUUID     string                         `json:"blob_uuid"`
	Blobs        map[string]ArtifactVersionBlob `json:"blobs"`
	Metadata     map[string]any                 `json:"metadata"`
	Version      int                            `json:"version"`
	Raw          json.RawMessage                `json:"-"`
}

// ArtifactVersionBlob is one entry of an artifact's blobs. instances is
// filled in by GET /artifacts/{ref} only (the list leaves it out).
type ArtifactVersionBlob struct {
	UUID           string   `json:"uuid"`
	Size           int64    `json:"size"`
	ReferenceCount int      `json:"reference_count"`
	DependsOn      *string  `json:"depends_on"`
	Instances      []string `json:"instances"`
}

// Name is the artifact's name as the server matches refs against it.
func (a *Artifact) Name() string {
	u := strings.TrimRight(a.SourceURL, "/")
	if i := strings.LastIndex(u, "/"); i >= 0 {
		return u[i+1:]
	}
	return u
}

// VersionIndexes are the indexes of the artifact's versions, ascending
// (the keys of blobs are JSON strings; sf-client turns them into ints the
// same way, apiclient.py _correct_blob_indexes).
func (a *Artifact) VersionIndexes() []int {
	out := make([]int, 0, len(a.Blobs))
	for k := range a.Blobs {
		if n, err := strconv.Atoi(k); err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// CurrentBlob is the blob of the most recent version, if the view has it.
func (a *Artifact) CurrentBlob() (ArtifactVersionBlob, bool) {
	b, ok := a.Blobs[strconv.Itoa(a.Index)]
	return b, ok
}

func (a *Artifact) keepRaw(r json.RawMessage) { a.Raw = r }

// Blob is Blob.external_view (blob.py da448b1a) plus, from GET
// /blobs/{uuid} and the versions list, instances. The qemu-img facts
// ("virtual size", "file format", ...) are mixed in with spaces in their
// names; the ones shakectl shows are decoded, the rest stay in Raw.
type Blob struct {
	UUID           string            `json:"uuid"`
	State          string            `json:"state"`
	Size           int64             `json:"size"`
	Modified       float64           `json:"modified"`
	FetchedAt      float64           `json:"fetched_at"`
	LastUsed       *float64          `json:"last_used"`
	DependsOn      *string           `json:"depends_on"`
	Transcodes     map[string]string `json:"transcodes"`
	Locations      []string          `json:"locations"`
	ReferenceCount int               `json:"reference_count"`
	SHA512         *string           `json:"sha512"`
	Instances      []string          `json:"instances"`
	VirtualSize    float64           `json:"virtual size"`
	FileFormat     string            `json:"file format"`
	MIMEType       string            `json:"mime-type"`
	Metadata       map[string]any    `json:"metadata"`
	Version        int               `json:"version"`
	// Index is set in GET /artifacts/{ref}/versions: the version's index.
	Index int             `json:"index"`
	Raw   json.RawMessage `json:"-"`
}

// WantSHA512 is the checksum a download of b is verified against: the
// server's sha512, or "" when it recorded none (nothing to verify).
func (b *Blob) WantSHA512() string {
	if b.SHA512 == nil {
		return ""
	}
	return *b.SHA512
}

func (b *Blob) keepRaw(r json.RawMessage) { b.Raw = r }

func artifactPath(ref string, rest ...string) (string, error) {
	if strings.TrimSpace(ref) == "" {
		return "", &UsageError{Field: "artifact", Problem: "empty artifact name or uuid"}
	}
	return refPath("artifacts", ref, rest...)
}

// ListArtifacts is GET /artifacts: the namespace's artifacts and the
// shared ones, deleted ones left out (prefilter 'active'). Labels are
// artifacts too (artifact_type "label").
func (c *Client) ListArtifacts(ctx context.Context, _ bool) ([]Artifact, error) {
	return getList[Artifact](c, ctx, http.MethodGet, "/artifacts", nil)
}

// GetArtifact is GET /artifacts/{ref}, by UUID or name; a name more than
// one artifact has is a 400 (exceptions.MultipleObjects).
func (c *Client) GetArtifact(ctx context.Context, ref string) (*Artifact, error) {
	p, err := artifactPath(ref)
	if err != nil {
		return nil, err
	}
	a, _, err := getOne[Artifact](c, ctx, http.MethodGet, p, nil)
	return a, err
}

// CacheArtifact is POST /artifacts {url, shared, namespace}: the server
// creates (or finds) the image artifact for url and queues its fetch.
func (c *Client) CacheArtifact(ctx context.Context, imageURL string, shared bool, namespace string) (*Artifact, error) {
	body := map[string]any{"url": imageURL, "shared": shared}
	if namespace != "" {
		body["namespace"] = namespace
	}
	a, _, err := getOne[Artifact](c, ctx, http.MethodPost, "/artifacts", body)
	return a, err
}

// ArtifactVersions is GET /artifacts/{ref}/versions: the blob of each
// version, with its index and the instances using it.
func (c *Client) ArtifactVersions(ctx context.Context, ref string) ([]Blob, error) {
	p, err := artifactPath(ref, "versions")
	if err != nil {
		return nil, err
	}
	return getList[Blob](c, ctx, http.MethodGet, p, nil)
}

// ArtifactEvents is GET /artifacts/{ref}/events.
func (c *Client) ArtifactEvents(ctx context.Context, ref string, q EventsQuery) ([]Event, error) {
	p, err := artifactPath(ref, "events")
	if err != nil {
		return nil, err
	}
	return c.events(ctx, p, q)
}

// DeleteArtifact is DELETE /artifacts/{ref}: 200 with the artifact, now
// "deleted", or 200 null when it already was (ArtifactEndpoint.delete).
func (c *Client) DeleteArtifact(ctx context.Context, ref string) (*Artifact, error) {
	p, err := artifactPath(ref)
	if err != nil {
		return nil, err
	}
	return getOneOrNull[Artifact](c, ctx, http.MethodDelete, p, nil)
}

// DeleteArtifactVersion is DELETE /artifacts/{ref}/versions/{index}; the
// artifact whose last version goes is deleted with it. An index the
// artifact does not have is a 404 "artifact index not found".
func (c *Client) DeleteArtifactVersion(ctx context.Context, ref string, index int) (*Artifact, error) {
	p, err := artifactPath(ref, "versions", strconv.Itoa(index))
	if err != nil {
		return nil, err
	}
	return getOneOrNull[Artifact](c, ctx, http.MethodDelete, p, nil)
}

// SetArtifactMaxVersions is POST /artifacts/{ref}/versions {max_versions};
// the server answers 200 null.
func (c *Client) SetArtifactMaxVersions(ctx context.Context, ref string, maxVersions int) error {
	if maxVersions < 0 {
		return &UsageError{Field: "max_versions", Problem: "must not be negative"}
	}
	p, err := artifactPath(ref, "versions")
	if err != nil {
		return err
	}
	_, _, err = c.call(ctx, http.MethodPost, p, map[string]any{"max_versions": maxVersions})
	return err
}

// ShareArtifact is POST /artifacts/{ref}/share: only an artifact of the
// system namespace may be shared (403 otherwise).
func (c *Client) ShareArtifact(ctx context.Context, ref string) (*Artifact, error) {
	return c.artifactAction(ctx, ref, "share")
}

// UnshareArtifact is POST /artifacts/{ref}/unshare: 403 "artifact not
// shared" for one that is not.
func (c *Client) UnshareArtifact(ctx context.Context, ref string) (*Artifact, error) {
	return c.artifactAction(ctx, ref, "unshare")
}

func (c *Client) artifactAction(ctx context.Context, ref, action string) (*Artifact, error) {
	p, err := artifactPath(ref, action)
	if err != nil {
		return nil, err
	}
	a, _, err := getOne[Artifact](c, ctx, http.MethodPost, p, nil)
	return a, err
}

// GetArtifactMetadata reads GET /artifacts/{ref}/metadata.
func (c *Client) GetArtifactMetadata(ctx context.Context, ref string) (map[string]any, error) {
	p, err := artifactPath(ref)
	if err != nil {
		return nil, err
	}
	return c.getMetadata(ctx, p)
}

// SetArtifactMetadata sends PUT /artifacts/{ref}/metadata/{key} {value}.
// (sf-client 6c25293 artifact set-metadata calls the instance route by
// mistake; shakectl calls the artifact's.)
func (c *Client) SetArtifactMetadata(ctx context.Context, ref, key string, value any) error {
	p, err := artifactPath(ref)
	if err != nil {
		return err
	}
	return c.setMetadata(ctx, p, key, value)
}

// DeleteArtifactMetadata sends DELETE /artifacts/{ref}/metadata/{key}.
func (c *Client) DeleteArtifactMetadata(ctx context.Context, ref, key string) error {
	p, err := artifactPath(ref)
	if err != nil {
		return err
	}
	return c.deleteMetadata(ctx, p, key)
}

// ListBlobs is GET /blobs (admin only: caller_is_admin).
func (c *Client) ListBlobs(ctx context.Context, _ bool) ([]Blob, error) {
	return getList[Blob](c, ctx, http.MethodGet, "/blobs", nil)
}

// GetBlob is GET /blobs/{uuid}, with the instances using it.
func (c *Client) GetBlob(ctx context.Context, blobUUID string) (*Blob, error) {
	if strings.TrimSpace(blobUUID) == "" {
		return nil, &UsageError{Field: "blob", Problem: "empty blob uuid"}
	}
	b, _, err := getOne[Blob](c, ctx, http.MethodGet, "/blobs/"+url.PathEscape(blobUUID), nil)
	return b, err
}

// ArtifactsOfBlob lists the artifacts (of those the caller can see) with a
// version on the blob: the server has no reverse index, so this reads
// GET /artifacts, whose blobs name every version's blob.
func (c *Client) ArtifactsOfBlob(ctx context.Context, blobUUID string) ([]Artifact, error) {
	all, err := c.ListArtifacts(ctx, false)
	if err != nil {
		return nil, err
	}
	var out []Artifact
	for _, a := range all {
		for _, b := range a.Blobs {
			if b.UUID == blobUUID {
				out = append(out, a)
				break
			}
		}
	}
	return out, nil
}

// ArtifactTypeLabel is the artifact_type of labels (Artifact.TYPE_LABEL).
const ArtifactTypeLabel = "label"

// ListLabels lists the label artifacts the caller can see: the server has
// no label list route (label.py routes /label/<name> only), so this is
// GET /artifacts filtered on artifact_type "label".
func (c *Client) ListLabels(ctx context.Context, _ bool) ([]Artifact, error) {
	all, err := c.ListArtifacts(ctx, false)
	if err != nil {
		return nil, err
	}
	out := []Artifact{}
	for _, a := range all {
		if a.ArtifactType == ArtifactTypeLabel {
			out = append(out, a)
		}
	}
	return out, nil
}

func labelPath(name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", &UsageError{Field: "label", Problem: "empty label name"}
	}
	// The route is /label/<path:label_name>: "namespace/label" names
	// another namespace's label, so the slash stays a slash.
	parts := strings.Split(name, "/")
	if len(parts) > 2 {
		return "", &UsageError{Field: "label", Problem: "a label is NAME or NAMESPACE/NAME (LabelHierarchyTooDeep)"}
	}
	for i := range parts {
		if parts[i] == "" {
			return "", &UsageError{Field: "label", Problem: "empty part in label name " + strconv.Quote(name)}
		}
		parts[i] = url.PathEscape(parts[i])
	}
	return "/label/" + strings.Join(parts, "/"), nil
}

// GetLabel is GET /label/{name}.
func (c *Client) GetLabel(ctx context.Context, name string) (*Artifact, error) {
	p, err := labelPath(name)
	if err != nil {
		return nil, err
	}
	a, _, err := getOne[Artifact](c, ctx, http.MethodGet, p, nil)
	return a, err
}

// UpdateLabel is POST /label/{name} {blob_uuid}: the label (created if
// new) gains a version on the blob.
func (c *Client) UpdateLabel(ctx context.Context, name, blobUUID string) (*Artifact, error) {
	p, err := labelPath(name)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(blobUUID) == "" {
		return nil, &UsageError{Field: "blob_uuid", Problem: "empty blob uuid"}
	}
	a, _, err := getOne[Artifact](c, ctx, http.MethodPost, p, map[string]any{"blob_uuid": blobUUID})
	return a, err
}

// DeleteLabel is DELETE /label/{name}: the label goes to "deleted" and its
// blobs lose a reference.
func (c *Client) DeleteLabel(ctx context.Context, name string) (*Artifact, error) {
	p, err := labelPath(name)
	if err != nil {
		return nil, err
	}
	return getOneOrNull[Artifact](c, ctx, http.MethodDelete, p, nil)
}
