package cluster

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Artifacts, blobs, labels and uploads as shakenfist/shakenfist develop
// da448b1a has them: external_api/artifact.py, blob.py, label.py and
// upload.py, routed in app.py; the objects of artifact.py, blob.py and
// upload.py. The 2026 route table (app.py, code index id 59153739580) was
// compared route by route with da448b1a's (client/testdata/sf2024/
// routes.txt, sf2026/routes.txt): 2026 adds /blobs/{uuid}/events,
// /blobs/{uuid}/checksum/{algorithm} and /artifacts/{ref}/clusteroperations
// and types the truncate offset (<int:offset>); blob_routes.go serves
// those. The 2026 handler files are not in the index, so everything else
// here answers as da448b1a does in both generations.
//
// What the simulator keeps: artifacts with their versions (index -> blob),
// max_versions, shared, metadata and events; blobs with size, sha512,
// reference count and bytes; uploads as files in a spool directory the
// server removes on Close. Blobs the simulator makes up (snapshots, cached
// URLs) have synthetic bytes and no sha512, as a blob the real server has
// not verified has none; uploaded blobs have their sha512 (verify_checksum).

// artifactRec is one artifact.
type artifactRec struct {
	uuid, name, namespace, sourceURL, artifactType string
	// instance is the snapshot's instance, "" for other artifacts.
	instance    string
	state       string
	shared      bool
	maxVersions int
	versions    []artifactIndex
	highest     int
	metadata    map[string]any
	events      []event
	seq         uint64
	created     float64
}

type artifactIndex struct {
	index int
	blob  string
}

// blobRec is one blob. path holds uploaded bytes; a blob without one has
// the synthetic content of syntheticByte.
type blobRec struct {
	uuid     string
	size     int64
	sha512   string
	refs     int
	created  float64
	path     string
	metadata map[string]any
	// events is the blob's trail (BlobEventsEndpoint, 2026): its creation,
	// reference count changes and metadata requests, as blob.py da448b1a
	// records them.
	events []event
}

// uploadRec is an upload in progress (upload.py Upload).
type uploadRec struct {
	uuid    string
	created float64
	path    string
}

// defaultMaxVersions is config.ARTIFACT_MAX_VERSIONS_DEFAULT (3); an
// artifact made with max_versions 0 (every label) keeps that many.
const defaultMaxVersions = 3

// maxUploads bounds the uploads a client can make the simulator hold.
const maxUploads = 256

// maxUploadChunkBytes bounds one POST /upload/{uuid} body (a simulator
// limit; sf-client sends at most 2 MiB, apiclient.py send_upload_file).
const maxUploadChunkBytes = 16 << 20

// Artifact states (baseobject.py).
const artifactStateInitial = "initial"

func (s *Server) blobTable() map[string]*blobRec {
	if s.blobs == nil {
		s.blobs = map[string]*blobRec{}
	}
	return s.blobs
}

// newBlob registers a blob; path "" gives it synthetic bytes.
func (s *Server) newBlob(size int64, upload *uploadRec) *blobRec {
	b := &blobRec{uuid: newUUID(), size: size, created: epoch(time.Now()), metadata: map[string]any{}}
	if upload != nil {
		b.path = upload.path
	}
	b.events = appendEvent(b.events, apiFQDN, "db record created", nil)
	s.blobTable()[b.uuid] = b
	return b
}

// addVersion is Artifact.add_index: the same blob twice in a row, or a
// blob with the current one's sha512, adds nothing; old versions beyond
// max_versions go (delete_old_versions).
func (s *Server) addVersion(a *artifactRec, b *blobRec) artifactIndex {
	if n := len(a.versions); n > 0 {
		cur := a.versions[n-1]
		old := s.blobTable()[cur.blob]
		if cur.blob == b.uuid || (old != nil && old.sha512 != "" && old.sha512 == b.sha512) {
			return cur
		}
	}
	a.highest++
	v := artifactIndex{index: a.highest, blob: b.uuid}
	a.versions = append(a.versions, v)
	b.refInc(a.uuid)
	a.events = appendEvent(a.events, apiFQDN, "added index to artifact", map[string]any{"index": v.index})
	max := a.maxVersions
	if max <= 0 {
		max = defaultMaxVersions
	}
	for len(a.versions) > max {
		s.delVersion(a, a.versions[0].index)
	}
	return v
}

func (s *Server) delVersion(a *artifactRec, index int) bool {
	for k, v := range a.versions {
		if v.index == index {
			a.versions = append(a.versions[:k:k], a.versions[k+1:]...)
			if b := s.blobTable()[v.blob]; b != nil {
				b.refDec(a.uuid)
			}
			a.events = appendEvent(a.events, apiFQDN, "deleted index from artifact", map[string]any{"index": index})
			return true
		}
	}
	return false
}

func (s *Server) deleteArtifact(a *artifactRec) {
	if a.state == stateDeleted {
		return
	}
	a.state = stateDeleted
	a.events = appendEvent(a.events, apiFQDN, "deletion request from REST API", nil)
}

func (a *artifactRec) active() bool { return a.state != stateDeleted }

func (a *artifactRec) stateOr() string {
	if a.state == "" {
		return stateCreated
	}
	return a.state
}

// artifactView is Artifact.external_view: the object's fields, the most
// recent index (index, blob_uuid; nothing of them while there is no
// version) and blobs keyed by index. withInstances adds each blob's
// instances, as ArtifactEndpoint.get does (none here: the simulator's
// instances do not boot from blobs).
func (s *Server) artifactView(a *artifactRec) map[string]any {
	if a.metadata == nil {
		a.metadata = map[string]any{}
	}
	max := a.maxVersions
	if max <= 0 {
		max = defaultMaxVersions
	}
	out := map[string]any{
		"uuid": a.uuid, "state": a.stateOr(), "metadata": a.metadata, "version": artifactVersion,
		"artifact_type": a.artifactType, "source_url": a.sourceURL, "max_versions": max,
		"namespace": a.namespace, "shared": a.shared,
	}
	blobs := map[string]any{}
	for _, v := range a.versions {
		if b := s.blobTable()[v.blob]; b != nil {
			blobs[strconv.Itoa(v.index)] = map[string]any{"uuid": b.uuid, "size": b.size, "reference_count": b.refs, "depends_on": nil}
		}
	}
	if n := len(a.versions); n > 0 {
		out["index"], out["blob_uuid"] = a.versions[n-1].index, a.versions[n-1].blob
	} else {
		out["index"] = 0 // most_recent_index of no index is {'index': 0}
	}
	out["blobs"] = blobs
	return out
}

func withBlobInstances(view map[string]any) map[string]any {
	if blobs, ok := view["blobs"].(map[string]any); ok {
		for _, b := range blobs {
			b.(map[string]any)["instances"] = []string{}
		}
	}
	return view
}

// artifactVersion is the artifact object's schema version at da448b1a.
const artifactVersion = 6

// blobVersion is the blob object's schema version at da448b1a.
const blobVersion = 6

// blobView is Blob.external_view, plus instances where the endpoint adds
// them.
func (s *Server) blobView(b *blobRec) map[string]any {
	var sum any
	if b.sha512 != "" {
		sum = b.sha512
	}
	state := stateCreated
	return map[string]any{
		"uuid": b.uuid, "state": state, "metadata": b.metadata, "version": blobVersion,
		"size": b.size, "modified": b.created, "fetched_at": b.created, "depends_on": nil,
		"transcodes": map[string]any{}, "locations": []string{s.nodes0()}, "reference_count": b.refs,
		"sha512": sum, "last_used": nil, "instances": []string{},
		"mime-type": "application/octet-stream",
	}
}

func (s *Server) nodes0() string {
	if len(s.nodes) > 0 {
		return s.nodes[0].name
	}
	return apiFQDN
}

// findArtifact is arg_is_artifact_ref: a UUID finds any artifact (deleted
// too, as from_db does); a name finds the caller's active artifact of
// that name, and two of them are a 400 (exceptions.MultipleObjects).
func (s *Server) findArtifact(ref, caller string) (*artifactRec, *apiError) {
	if isUUID(ref) {
		for _, a := range s.artifacts {
			if a.uuid == ref {
				return a, nil
			}
		}
		return nil, notFound("artifact not found")
	}
	var found *artifactRec
	for _, a := range s.artifacts {
		if a.active() && a.namespace == caller && a.name == ref {
			if found != nil {
				return nil, badRequest("multiple artifacts have the name \"%s\" in namespace \"%s\"", ref, caller)
			}
			found = a
		}
	}
	if found == nil {
		return nil, notFound("artifact not found")
	}
	return found, nil
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for k, c := range s {
		switch k {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

// withArtifact runs fn on the artifact the path names, under the lock.
// owner selects requires_artifact_ownership (namespace_is_trusted) over
// requires_artifact_access. The latter is kept as da448b1a writes it: a
// shared artifact is a 404 to every namespace but its own and system,
// and an unshared one of another namespace is not refused.
func (s *Server) withArtifact(w http.ResponseWriter, r *http.Request, caller, handler string, owner bool, accepted []string, fn func(a *artifactRec, p map[string]any) (any, *apiError)) {
	answerOne(s, w, r, handler, accepted, func() (*artifactRec, *apiError) {
		a, err := s.findArtifact(r.PathValue("ref"), caller)
		if err != nil {
			return nil, err
		}
		if owner && !s.trusted(a.namespace, caller) {
			return nil, notFound("artifact not found")
		}
		if !owner && a.shared && caller != a.namespace && caller != adminNamespace {
			return nil, notFound("artifact not found")
		}
		return a, nil
	}, fn)
}

// handleListArtifacts is ArtifactsEndpoint.get: active artifacts passing
// namespace_or_shared_filter (system sees all; others their own, the
// shared ones and those of namespaces that trust them).
func (s *Server) handleListArtifacts(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "ArtifactsEndpoint.get", "node"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	out := []map[string]any{}
	for _, a := range s.artifacts {
		if a.active() && (caller == adminNamespace || a.shared || s.trusted(a.namespace, caller)) {
			out = append(out, s.artifactView(a))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// syntheticImageSize is the size of the blob a cached URL gets.
const syntheticImageSize = 4 << 20

// handleCacheArtifact is ArtifactsEndpoint.post: the image artifact of
// url (found, or made "initial"), shared only by system, and a queued
// fetch (FetchImageTask). The answer is the artifact as it is before the
// fetch: a new one is "initial", with index 0 and no blobs. The fetch
// (artifact_fetch.go) takes Config.ArtifactFetchTime; with 0 it is done
// before the answer. A 403 for --shared comes after the artifact is made
// and before the fetch is queued, as at da448b1a: such an artifact stays
// "initial".
func (s *Server) handleCacheArtifact(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "ArtifactsEndpoint.post", "url", "shared", "namespace")
	if err != nil {
		writeError(w, err)
		return
	}
	url, _ := p["url"].(string)
	ns, _ := p["namespace"].(string)
	if ns == "" {
		ns = caller
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.namespaces[ns] == nil {
		writeError(w, notFound("namespace not found"))
		return
	}
	if !s.trusted(ns, caller) {
		writeError(w, notFound("namespace not found"))
		return
	}
	a := s.artifactByURL("image", url, ns)
	if a == nil {
		if e := s.roomForArtifact(); e != nil {
			writeError(w, e)
			return
		}
		a = s.newArtifact("image", url, lastElem(url), ns)
	}
	a.events = appendEvent(a.events, apiFQDN, "creation request from REST API", nil)
	if truthy(p["shared"]) {
		if caller != adminNamespace {
			writeError(w, &apiError{status: http.StatusForbidden, msg: "only the system namespace can create shared artifacts"})
			return
		}
		a.shared = true
	}
	s.queueFetch(a)
	writeJSON(w, http.StatusOK, s.artifactView(a))
}

func lastElem(u string) string {
	u = strings.TrimRight(u, "/")
	if k := strings.LastIndex(u, "/"); k >= 0 {
		return u[k+1:]
	}
	return u
}

// artifactByURL is Artifact.from_url's lookup: the active artifact of
// that type and source_url in the namespace.
func (s *Server) artifactByURL(kind, url, ns string) *artifactRec {
	for _, a := range s.artifacts {
		if a.active() && a.artifactType == kind && a.sourceURL == url && a.namespace == ns {
			return a
		}
	}
	return nil
}

func (s *Server) roomForArtifact() *apiError {
	if len(s.artifacts) >= maxArtifacts {
		return &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("artifact quota exceeded: the simulator holds at most %d artifacts", maxArtifacts)}
	}
	return nil
}

func (s *Server) newArtifact(kind, url, name, ns string) *artifactRec {
	s.seq++
	a := &artifactRec{uuid: newUUID(), name: name, namespace: ns, sourceURL: url, artifactType: kind,
		state: artifactStateInitial, metadata: map[string]any{}, seq: s.seq, created: epoch(time.Now())}
	a.events = appendEvent(a.events, apiFQDN, "db record created", nil)
	s.artifacts = append(s.artifacts, a)
	return a
}

func (s *Server) handleShowArtifact(w http.ResponseWriter, r *http.Request, caller string) {
	s.withArtifact(w, r, caller, "ArtifactEndpoint.get", false, nil, func(a *artifactRec, _ map[string]any) (any, *apiError) {
		return withBlobInstances(s.artifactView(a)), nil
	})
}

// handleDeleteArtifact is ArtifactEndpoint.delete: 200 null for one
// already deleted, else the artifact, now deleted.
func (s *Server) handleDeleteArtifact(w http.ResponseWriter, r *http.Request, caller string) {
	s.withArtifact(w, r, caller, "ArtifactEndpoint.delete", true, nil, func(a *artifactRec, _ map[string]any) (any, *apiError) {
		if !a.active() {
			return nil, nil
		}
		s.deleteArtifact(a)
		return s.artifactView(a), nil
	})
}

func (s *Server) handleArtifactEvents(w http.ResponseWriter, r *http.Request, caller string) {
	s.withArtifact(w, r, caller, "ArtifactEventsEndpoint.get", false, []string{"event_type", "limit"}, func(a *artifactRec, p map[string]any) (any, *apiError) {
		return s.readEvents(a.events, p)
	})
}

// handleArtifactVersions is ArtifactVersionsEndpoint.get: each version's
// blob view with instances and index.
func (s *Server) handleArtifactVersions(w http.ResponseWriter, r *http.Request, caller string) {
	s.withArtifact(w, r, caller, "ArtifactVersionsEndpoint.get", false, nil, func(a *artifactRec, _ map[string]any) (any, *apiError) {
		out := []map[string]any{}
		for _, v := range a.versions {
			if b := s.blobTable()[v.blob]; b != nil {
				bv := s.blobView(b)
				bv["index"] = v.index
				out = append(out, bv)
			}
		}
		return out, nil
	})
}

// handleSetMaxVersions is ArtifactVersionsEndpoint.post: int(max_versions)
// or 400; 200 null. As at da448b1a, the new limit is not applied to the
// versions held until the next one is added.
func (s *Server) handleSetMaxVersions(w http.ResponseWriter, r *http.Request, caller string) {
	s.withArtifact(w, r, caller, "ArtifactVersionsEndpoint.post", true, []string{"max_versions"}, func(a *artifactRec, p map[string]any) (any, *apiError) {
		v, ok := p["max_versions"]
		if !ok {
			a.maxVersions = defaultMaxVersions
			return nil, nil
		}
		n, err := pyIntLoose(v)
		if err != nil {
			return nil, badRequest("max version is not an integer")
		}
		a.events = appendEvent(a.events, apiFQDN, "max versions set from REST API", nil)
		a.maxVersions = int(n)
		return nil, nil
	})
}

// pyIntLoose is Python's int() of a JSON value: numbers (floats
// truncated) and strings of digits.
func pyIntLoose(v any) (int64, error) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, nil
		}
		f, err := x.Float64()
		return int64(f), err
	case string:
		return strconv.ParseInt(strings.TrimSpace(x), 10, 64)
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("not an integer")
}

// handleDeleteVersion is ArtifactVersionEndpoint.delete.
func (s *Server) handleDeleteVersion(w http.ResponseWriter, r *http.Request, caller string) {
	s.withArtifact(w, r, caller, "ArtifactVersionEndpoint.delete", true, nil, func(a *artifactRec, _ map[string]any) (any, *apiError) {
		idx, err := strconv.Atoi(r.PathValue("version_id"))
		if err != nil {
			return nil, badRequest("version index is not an integer")
		}
		last := len(a.versions) == 1
		if !s.delVersion(a, idx) {
			return nil, notFound("artifact index not found")
		}
		if last {
			a.state = stateDeleted
		}
		return s.artifactView(a), nil
	})
}

func (s *Server) handleShare(share bool) authedHandler {
	handler := "ArtifactUnshareEndpoint.post"
	if share {
		handler = "ArtifactShareEndpoint.post"
	}
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		s.withArtifact(w, r, caller, handler, true, nil, func(a *artifactRec, _ map[string]any) (any, *apiError) {
			if share && a.namespace != adminNamespace {
				return nil, &apiError{status: http.StatusForbidden, msg: "only artifacts in the system namespace can be shared"}
			}
			if !share && !a.shared {
				return nil, &apiError{status: http.StatusForbidden, msg: "artifact not shared"}
			}
			msg := "artifact unshare request from REST API"
			if share {
				msg = "artifact share request from REST API"
			}
			a.events = appendEvent(a.events, apiFQDN, msg, nil)
			a.shared = share
			return s.artifactView(a), nil
		})
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

// --- blobs (blob.py) ---

// handleListBlobs is BlobsEndpoint.get: admin only, every blob.
func (s *Server) handleListBlobs(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.requireAdmin(w, r, caller) {
		return
	}
	if _, err := s.params(r, "BlobsEndpoint.get", "node"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	out := []map[string]any{}
	for _, b := range s.blobTable() {
		v := s.blobView(b)
		delete(v, "instances") // BlobsEndpoint.get does not add them
		out = append(out, v)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i]["uuid"].(string) < out[j]["uuid"].(string) })
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleShowBlob(w http.ResponseWriter, r *http.Request, _ string) {
	if _, err := s.params(r, "BlobEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	b := s.blobTable()[r.PathValue("blob_uuid")]
	var out map[string]any
	if b != nil {
		out = s.blobView(b)
	}
	s.mu.Unlock()
	if b == nil {
		writeError(w, notFound("blob not found"))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// handleBlobChecksum is BlobChecksumsEndpoint.get: the created blob with
// that sha512, or 200 null. As at da448b1a, whatever the algorithm named
// (sha1, sha512, xxh128), the hash is matched against sha512. Several
// blobs may hold the same bytes (two screenshots of one console); the
// server answers the first its hash cache lists, the first hashed
// (cache.py search_blob_hash_cache), so the simulator answers the oldest,
// the same one every time.
func (s *Server) handleBlobChecksum(w http.ResponseWriter, r *http.Request, _ string) {
	if _, err := s.params(r, "BlobChecksumsEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	switch r.PathValue("algorithm") {
	case "sha1", "sha256", "sha512", "xxh128":
	default:
		writeError(w, badRequest("unknown hash algorithm"))
		return
	}
	hash := r.PathValue("hash")
	s.mu.Lock()
	var found *blobRec
	for _, b := range s.blobTable() {
		if b.sha512 == "" || b.sha512 != hash {
			continue
		}
		if found == nil || b.created < found.created || (b.created == found.created && b.uuid < found.uuid) {
			found = b
		}
	}
	var out any
	if found != nil {
		out = s.blobView(found)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// syntheticByte is byte k of a blob without uploaded bytes: a pattern a
// test can recompute.
func syntheticByte(k int64) byte { return byte(k*7 + k>>12) }

// handleBlobData is BlobDataEndpoint.get: ?offset and ?limit (0: to the
// end) from the query string, streamed as text/plain in 128 KiB chunks
// (CHUNK_SIZE), with no Content-Length, as flask streams a generator.
func (s *Server) handleBlobData(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	offset, limit := int64(0), int64(0)
	for name, dst := range map[string]*int64{"offset": &offset, "limit": &limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				writeError(w, &apiError{status: http.StatusUnprocessableEntity, msg: name + ": Not a valid integer."})
				return
			}
			*dst = n
		}
	}
	s.mu.Lock()
	b := s.blobTable()[r.PathValue("blob_uuid")]
	var size int64
	var path string
	if b != nil {
		size, path = b.size, b.path
	}
	s.mu.Unlock()
	if b == nil {
		writeError(w, notFound("blob not found"))
		return
	}
	end := size
	if offset < 0 {
		offset = 0
	}
	if limit > 0 && offset+limit < end {
		end = offset + limit
	}
	var src io.Reader
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			writeError(w, notFound("blob missing"))
			return
		}
		defer f.Close()
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			writeError(w, notFound("blob missing"))
			return
		}
		src = io.LimitReader(f, max(end-offset, 0))
	} else {
		src = &syntheticReader{pos: offset, end: end}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	buf := make([]byte, 128<<10)
	fl, _ := w.(http.Flusher)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

type syntheticReader struct{ pos, end int64 }

func (r *syntheticReader) Read(p []byte) (int, error) {
	if r.pos >= r.end {
		return 0, io.EOF
	}
	n := int64(len(p))
	if r.end-r.pos < n {
		n = r.end - r.pos
	}
	for k := int64(0); k < n; k++ {
		p[k] = syntheticByte(r.pos + k)
	}
	r.pos += n
	return int(n), nil
}

// --- labels (label.py) ---

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

// --- uploads (upload.py; ArtifactUploadEndpoint in artifact.py) ---

func (s *Server) spoolPath(name string) (string, error) {
	if s.spool == "" {
		d, err := os.MkdirTemp("", "shakectl-sim-uploads-")
		if err != nil {
			return "", err
		}
		s.spool = d
	}
	return filepath.Join(s.spool, name), nil
}

// removeSpool deletes the uploads and uploaded blobs (at Close).
func (s *Server) removeSpool() {
	s.mu.Lock()
	d := s.spool
	s.spool = ""
	s.mu.Unlock()
	if d != "" {
		_ = os.RemoveAll(d)
	}
}

// handleCreateUpload is UploadCreateEndpoint.post: {uuid, node,
// created_at}.
func (s *Server) handleCreateUpload(w http.ResponseWriter, r *http.Request, _ string) {
	if _, err := s.params(r, "UploadCreateEndpoint.post"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uploads == nil {
		s.uploads = map[string]*uploadRec{}
	}
	if len(s.uploads) >= maxUploads {
		writeError(w, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("upload quota exceeded: the simulator holds at most %d uploads", maxUploads)})
		return
	}
	u := &uploadRec{uuid: newUUID(), created: epoch(time.Now())}
	path, err := s.spoolPath(u.uuid)
	if err != nil {
		writeError(w, &apiError{status: http.StatusInsufficientStorage, msg: "cannot make the upload spool: " + err.Error()})
		return
	}
	u.path = path
	s.uploads[u.uuid] = u
	writeJSON(w, http.StatusOK, map[string]any{"uuid": u.uuid, "node": s.nodes0(), "created_at": u.created})
}

func (s *Server) upload(id string) *uploadRec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uploads[id]
}

// handleUploadData is UploadDataEndpoint.post: the body is appended to
// the upload's file, and the answer is the file's new size. An empty body
// appends nothing, so it reads the size: how a client resumes, as the API
// has no GET of an upload.
func (s *Server) handleUploadData(w http.ResponseWriter, r *http.Request, _ string) {
	u := s.upload(r.PathValue("upload_uuid"))
	if u == nil {
		writeError(w, notFound("upload not found"))
		return
	}
	f, err := os.OpenFile(u.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: err.Error()})
		return
	}
	_, cerr := io.Copy(f, r.Body)
	st, serr := f.Stat()
	f.Close()
	if cerr != nil {
		// A body cut short leaves what arrived appended, as the real
		// server's f.write of the data it read.
		writeError(w, &apiError{status: http.StatusBadRequest, msg: "upload body: " + cerr.Error()})
		return
	}
	if serr != nil {
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: serr.Error()})
		return
	}
	writeJSON(w, http.StatusOK, st.Size())
}

// handleUploadTruncate is UploadTruncateEndpoint.post: os.truncate to
// offset; 200 null. At da448b1a the route is /upload/<upload_uuid>/
// truncate/<offset>: the upload is looked up first (404), then int(offset)
// of a non-number (or os.truncate of a negative one) raises out of the
// handler, a 500. The 2026 route is <int:offset> (app.py, code index id
// 59153739580): Werkzeug's IntegerConverter (\d+) matches no other
// segment, so anything but digits is the unrouted path's HTML 404, before
// the token or the upload is looked at (truncateOffsetRouted).
func (s *Server) handleUploadTruncate(w http.ResponseWriter, r *http.Request, _ string) {
	raw := r.PathValue("offset")
	u := s.upload(r.PathValue("upload_uuid"))
	if u == nil {
		writeError(w, notFound("upload not found"))
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	switch {
	case err != nil && allDigits(raw):
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: "server error: OverflowError: Python int too large to convert to C long"})
		return
	case err != nil:
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: fmt.Sprintf("server error: invalid literal for int() with base 10: '%s'", raw)})
		return
	case n < 0:
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: "server error: [Errno 22] Invalid argument"})
		return
	}
	f, err := os.OpenFile(u.path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		err = f.Truncate(n)
		f.Close()
	}
	if err != nil {
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, nil)
}

// truncateOffsetRouted is the route's converter: 2026's <int:offset>
// routes digits only; 2024's bare <offset> routes any segment.
func (s *Server) truncateOffsetRouted(r *http.Request) bool {
	return !s.is2026() || allDigits(r.PathValue("offset"))
}

// allDigits is the IntegerConverter's regex, \d+, over ASCII digits (Python's
// \d also matches other scripts' digits; shakectl never sends them).
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// handleArtifactUpload is ArtifactUploadEndpoint.post: turn an upload (or
// name an existing blob) into a new version of the artifact NAME, whose
// source_url defaults to sf://upload/<caller>/<name>. The upload's file
// becomes the blob and its sha512 is computed (verify_checksum).
func (s *Server) handleArtifactUpload(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "ArtifactUploadEndpoint.post", "upload_uuid", "blob_uuid", "source_url", "shared", "namespace", "artifact_type")
	if err != nil {
		writeError(w, err)
		return
	}
	name := r.PathValue("artifact_name")
	uploadUUID, _ := p["upload_uuid"].(string)
	blobUUID, _ := p["blob_uuid"].(string)
	if uploadUUID != "" && blobUUID != "" {
		writeError(w, badRequest("only specify one of upload_uuid and blob_uuid"))
		return
	}
	var u *uploadRec
	if uploadUUID != "" {
		if u = s.upload(uploadUUID); u == nil {
			writeError(w, notFound("upload not found"))
			return
		}
	}
	kind := "image"
	if t, ok := p["artifact_type"].(string); ok {
		switch t {
		case "image":
		case "other":
			kind = "other"
		default:
			writeError(w, &apiError{status: http.StatusForbidden, msg: "invalid artifact type specified"})
			return
		}
	}
	sourceURL, _ := p["source_url"].(string)
	if sourceURL == "" {
		sourceURL = "sf://upload/" + caller + "/" + name
	}
	ns, _ := p["namespace"].(string)
	if ns == "" {
		ns = caller
	}
	// The checksum is read before the lock: a large upload takes a while.
	var sum string
	var size int64
	if u != nil && blobUUID == "" {
		sum, size, err = fileSHA512(u.path)
		if err != nil {
			writeError(w, err)
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.namespaces[ns] == nil {
		writeError(w, notFound("namespace not found"))
		return
	}
	if !s.trusted(ns, caller) {
		writeError(w, notFound("namespace not found"))
		return
	}
	if truthy(p["shared"]) && caller != adminNamespace {
		writeError(w, &apiError{status: http.StatusForbidden, msg: "only the system namespace can create shared artifacts"})
		return
	}
	var b *blobRec
	if blobUUID != "" {
		if b = s.blobTable()[blobUUID]; b == nil {
			writeError(w, notFound("blob not found"))
			return
		}
	} else {
		if u == nil {
			// shutil.move of uploads/None: unhandled at da448b1a.
			writeError(w, &apiError{status: http.StatusInternalServerError, msg: "server error: no upload_uuid or blob_uuid"})
			return
		}
		b = s.newBlob(size, u)
		b.sha512 = sum
		delete(s.uploads, u.uuid) // u.hard_delete()
	}
	a := s.artifactByURL(kind, sourceURL, ns)
	if a == nil {
		if e := s.roomForArtifact(); e != nil {
			writeError(w, e)
			return
		}
		a = s.newArtifact(kind, sourceURL, name, ns)
	}
	if truthy(p["shared"]) {
		a.shared = true
	}
	a.events = appendEvent(a.events, apiFQDN, "convert upload to artifact from REST API", nil)
	s.addVersion(a, b)
	a.state = stateCreated
	a.events = appendEvent(a.events, apiFQDN, "upload complete", nil)
	writeJSON(w, http.StatusOK, s.artifactView(a))
}

func fileSHA512(path string) (string, int64, *apiError) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		// An upload that was never sent data has no file: an empty blob.
		h := sha512.Sum512(nil)
		return hex.EncodeToString(h[:]), 0, nil
	}
	if err != nil {
		return "", 0, &apiError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	defer f.Close()
	h := sha512.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, &apiError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
