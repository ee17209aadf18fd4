package cluster

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Uploads (external_api/upload.py; ArtifactUploadEndpoint in
// artifact.py, da448b1a): a spooled upload, its chunks and truncation,
// and turning it into an artifact version.

// uploadRec is an upload in progress (upload.py Upload).
type uploadRec struct {
	uuid    string
	created float64
	path    string
}

// maxUploads bounds the uploads a client can make the simulator hold.
const maxUploads = 256

// maxUploadChunkBytes bounds one POST /upload/{uuid} body (a simulator
// limit; sf-client sends at most 2 MiB, apiclient.py send_upload_file).
const maxUploadChunkBytes = 16 << 20

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

// uploadVersion is the upload object's schema version at da448b1a.
const uploadVersion = 3

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
	// Upload.external_view (da448b1a upload.py): the base object view
	// (uuid, state, metadata, version 3) and node, created_at, as the
	// real server answered it (the captures' u1, u2).
	writeJSON(w, http.StatusOK, map[string]any{"uuid": u.uuid, "state": stateCreated, "metadata": map[string]any{}, "version": uploadVersion,
		"node": s.nodes0(), "created_at": u.created})
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
