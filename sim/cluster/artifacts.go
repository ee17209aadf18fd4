package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
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
// and types the truncate offset (<int:offset>); blobs.go and
// artifacts.go serve those. Each noun has its file (blobs.go, labels.go,
// uploads.go); the routes are in routes.go. The 2026 handler files are
// not in the index, so everything else here answers as da448b1a does in
// both generations.
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

// defaultMaxVersions is config.ARTIFACT_MAX_VERSIONS_DEFAULT (3); an
// artifact made with max_versions 0 (every label) keeps that many.
const defaultMaxVersions = 3

// Artifact states (baseobject.py).
const artifactStateInitial = "initial"

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
	b.refInc("artifact", a.uuid)
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
// version) and blobs keyed by index. withBlobInstances adds each blob's
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

// maxArtifacts bounds the snapshots a client can make the simulator hold.
const maxArtifacts = 4096

// handleDeleteAllArtifacts is ArtifactsEndpoint.delete (sf-client's
// namespace clean calls it after the instances and networks).
func (s *Server) handleDeleteAllArtifacts(w http.ResponseWriter, r *http.Request, caller string) {
	s.withDeleteAll(w, r, caller, "ArtifactsEndpoint.delete", []string{"confirm", "namespace"}, func(ns string, _ map[string]any) (int, any) {
		// Artifacts([namespace_exact_filter]) has no active prefilter: every
		// artifact of the namespace, deleted ones too, is named in the answer.
		out := []string{}
		for _, a := range s.artifacts {
			if a.namespace == ns {
				out = append(out, a.uuid)
				s.deleteArtifact(a)
			}
		}
		return http.StatusOK, out
	})
}

// handleArtifactOperations is the 2026 ArtifactOutstandingOperationsEndpoint:
// the artifact's cluster operations that have not finished, newest first,
// in the view GET /clusteroperations answers. Its shape is unverified,
// and so is which operations a 2026 artifact has: the simulator starts
// none on artifacts (its fetch is not an operation), so the list is empty
// unless one exists.
func (s *Server) handleArtifactOperations(w http.ResponseWriter, r *http.Request, caller string) {
	s.withArtifact(w, r, caller, "ArtifactOutstandingOperationsEndpoint.get", false, nil, func(a *artifactRec, _ map[string]any) (any, *apiError) {
		var list []*clusterOp
		for _, o := range s.ops {
			if o.targetType == "artifact" && o.target == a.uuid && o.state != opComplete && o.state != opError && o.state != "abort" {
				list = append(list, o)
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].seq > list[j].seq })
		out := make([]map[string]any, len(list))
		for k, o := range list {
			out[k] = o.view()
		}
		return out, nil
	})
}
