package cluster

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"io"
	"net/http"
	"os"
	"sort"

	"github.com/zeebo/xxh3"
)

// Blob reference counts and events, and the routes the 2026 app.py adds
// to the blob and artifact families (code index id 59153739580):
// /blobs/<blob_uuid>/events (capability blob-events),
// /blobs/<blob_uuid>/checksum/<algorithm> (blob-single-checksum) and
// /artifacts/<artifact_ref>/clusteroperations (artifact-clusteroperations).
// The 2026 handlers (external_api/blob.py, artifact.py) are not in the
// code index: the answers of the three new routes are the simulator's
// choice, marked unverified here and in docs/shakenfist-generations.md.

// refInc is Blob.ref_count_inc (blob.py da448b1a): the count and a mutate
// event naming the artifact.
func (b *blobRec) refInc(artifactUUID string) {
	b.refs++
	b.events = appendTyped(b.events, "mutate", "incremented reference count", map[string]any{"artifact": artifactUUID, "increment": 1, "reference_count": b.refs})
}

// refDec is Blob.ref_count_dec: never below zero, which it records.
func (b *blobRec) refDec(artifactUUID string) {
	msg := "decremented reference count"
	if b.refs > 0 {
		b.refs--
	} else {
		msg = "decremented reference count below zero"
	}
	b.events = appendTyped(b.events, "mutate", msg, map[string]any{"artifact": artifactUUID, "decrement": 1, "reference_count": b.refs})
}

// withBlob runs fn on the blob the path names (arg_is_blob_uuid: 404
// "blob not found"), under the lock. Blob routes check no namespace at
// da448b1a.
func (s *Server) withBlob(w http.ResponseWriter, r *http.Request, handler string, accepted []string, fn func(b *blobRec, p map[string]any) (any, *apiError)) {
	p, err := s.params(r, handler, accepted...)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	b := s.blobTable()[r.PathValue("blob_uuid")]
	var out any
	if b == nil {
		err = notFound("blob not found")
	} else {
		out, err = fn(b, p)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// handleBlobEvents is the 2026 BlobEventsEndpoint: the blob's events,
// newest first, with event_type and limit as the other event routes take
// them. Which events a 2026 blob records is unverified; the simulator's
// are da448b1a's (creation, reference counts, metadata requests).
func (s *Server) handleBlobEvents(w http.ResponseWriter, r *http.Request, _ string) {
	s.withBlob(w, r, "BlobEventsEndpoint.get", []string{"event_type", "limit"}, func(b *blobRec, p map[string]any) (any, *apiError) {
		return s.readEvents(b.events, p)
	})
}

// checksumAlgorithms are the hashes the root page advertises
// (blob-hash-sha1, blob-hash-sha256, blob-hash-xxh128; sha512 is the one
// every blob has).
var checksumAlgorithms = map[string]func() hash.Hash{
	"sha1": sha1.New, "sha256": sha256.New, "sha512": sha512.New,
	"xxh128": func() hash.Hash { return xxh3.New128() },
}

// handleBlobSingleChecksum is the 2026 BlobChecksumEndpoint: the blob's
// checksum by one algorithm. Its answer's shape is unverified; the
// simulator answers {"<algorithm>": "<hex digest>"}, the entry of
// Blob.checksums (blob.py da448b1a, a dict keyed by algorithm) for it.
// An algorithm outside the advertised ones is 400 "unknown hash
// algorithm", BlobChecksumsEndpoint's text.
func (s *Server) handleBlobSingleChecksum(w http.ResponseWriter, r *http.Request, _ string) {
	algorithm := r.PathValue("algorithm")
	var size int64
	var path string
	var newHash func() hash.Hash
	if _, err := s.params(r, "BlobChecksumEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	b := s.blobTable()[r.PathValue("blob_uuid")]
	if b != nil {
		size, path = b.size, b.path
	}
	s.mu.Unlock()
	if b == nil {
		writeError(w, notFound("blob not found"))
		return
	}
	newHash = checksumAlgorithms[algorithm]
	if newHash == nil {
		writeError(w, badRequest("unknown hash algorithm"))
		return
	}
	// The bytes are hashed outside the lock: a blob may be large.
	h := newHash()
	var src io.Reader = &syntheticReader{end: size}
	if path != "" {
		f, err := os.Open(path)
		switch {
		case os.IsNotExist(err):
			// An upload never sent data has no file: an empty blob, as
			// fileSHA512 counts it.
			src = &syntheticReader{}
		case err != nil:
			writeError(w, notFound("blob missing"))
			return
		default:
			defer f.Close()
			src = f
		}
	}
	if _, err := io.Copy(h, src); err != nil {
		writeError(w, &apiError{status: http.StatusInternalServerError, msg: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{algorithm: hex.EncodeToString(h.Sum(nil))})
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
