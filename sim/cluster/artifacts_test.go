package cluster

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
)

// The artifact, blob, label and upload routes as shakenfist da448b1a
// external_api/artifact.py, blob.py, label.py and upload.py serve them.

func TestArtifactLifecycle(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		a := c.do("POST", "/artifacts", map[string]any{"url": "https://images.example/debian-12.qcow2"}).obj(t)
		if a["state"] != "created" || a["artifact_type"] != "image" || a["index"] != float64(1) || a["max_versions"] != float64(3) {
			t.Fatalf("cache: %v", a)
		}
		id := a["uuid"].(string)
		// Caching the same URL again finds the same artifact.
		if again := c.do("POST", "/artifacts", map[string]any{"url": "https://images.example/debian-12.qcow2"}).obj(t); again["uuid"] != id {
			t.Errorf("second cache made %v", again["uuid"])
		}
		// By name: the last element of the source URL.
		shown := c.do("GET", "/artifacts/debian-12.qcow2", nil).obj(t)
		blobs := shown["blobs"].(map[string]any)
		if shown["uuid"] != id || len(blobs) != 1 || blobs["1"].(map[string]any)["instances"] == nil {
			t.Errorf("show by name: %v", shown)
		}
		wantError(t, c.do("GET", "/artifacts/nosuch", nil), 404, "artifact not found")
		vers := c.do("GET", "/artifacts/"+id+"/versions", nil).list(t)
		if len(vers) != 1 || vers[0]["index"] != float64(1) || vers[0]["size"] != float64(syntheticImageSize) {
			t.Errorf("versions: %v", vers)
		}
		nullBody(t, c.do("POST", "/artifacts/"+id+"/versions", map[string]any{"max_versions": 2}))
		wantError(t, c.do("POST", "/artifacts/"+id+"/versions", map[string]any{"max_versions": "lots"}), 400, "max version is not an integer")
		// Labels: two versions on two blobs; max_versions 0 means 3.
		blob1 := shown["blob_uuid"].(string)
		snapBlob := c.do("POST", "/artifacts", map[string]any{"url": "https://images.example/other.qcow2"}).obj(t)["blob_uuid"].(string)
		c.do("POST", "/label/prod", map[string]any{"blob_uuid": blob1}).obj(t)
		l := c.do("POST", "/label/prod", map[string]any{"blob_uuid": snapBlob}).obj(t)
		if l["artifact_type"] != "label" || l["source_url"] != "sf://label/system/prod" || len(l["blobs"].(map[string]any)) != 2 || l["index"] != float64(2) {
			t.Fatalf("label: %v", l)
		}
		if got := c.do("GET", "/label/system/prod", nil).obj(t); got["uuid"] != l["uuid"] {
			t.Errorf("label by namespace/name: %v", got)
		}
		wantError(t, c.do("GET", "/label/nosuch", nil), 500, "list index out of range")
		if b := c.do("GET", "/blobs/"+blob1, nil).obj(t); b["reference_count"] != float64(2) {
			t.Errorf("blob referenced by an artifact and a label: %v", b)
		}
		labelID := l["uuid"].(string)
		if d := c.do("DELETE", "/artifacts/"+labelID+"/versions/1", nil).obj(t); len(d["blobs"].(map[string]any)) != 1 || d["state"] != "created" {
			t.Errorf("delete version: %v", d)
		}
		wantError(t, c.do("DELETE", "/artifacts/"+labelID+"/versions/9", nil), 404, "artifact index not found")
		if b := c.do("GET", "/blobs/"+blob1, nil).obj(t); b["reference_count"] != float64(1) {
			t.Errorf("a deleted version gives its blob's reference back: %v", b)
		}
		if d := c.do("DELETE", "/label/prod", nil).obj(t); d["state"] != "deleted" {
			t.Errorf("label delete: %v", d)
		}
		// Metadata, share, unshare, events.
		nullBody(t, c.do("PUT", "/artifacts/"+id+"/metadata/owner", map[string]any{"value": "ci"}))
		wantError(t, c.do("PUT", "/artifacts/"+id+"/metadata/owner", map[string]any{"value": ""}), 400, "no value specified")
		if md := c.do("GET", "/artifacts/"+id+"/metadata", nil).obj(t); md["owner"] != "ci" {
			t.Errorf("metadata %v", md)
		}
		nullBody(t, c.do("DELETE", "/artifacts/"+id+"/metadata/owner", nil))
		wantError(t, c.do("POST", "/artifacts/"+id+"/unshare", nil), 403, "artifact not shared")
		if sh := c.do("POST", "/artifacts/"+id+"/share", nil).obj(t); sh["shared"] != true {
			t.Errorf("share: %v", sh)
		}
		evs := c.do("GET", "/artifacts/"+id+"/events", nil).list(t)
		if len(evs) < 2 || evs[0]["message"] != "artifact share request from REST API" {
			t.Errorf("events, newest first: %v", evs)
		}
		if d := c.do("DELETE", "/artifacts/"+id, nil).obj(t); d["state"] != "deleted" {
			t.Errorf("delete: %v", d)
		}
		nullBody(t, c.do("DELETE", "/artifacts/"+id, nil))
		if l := c.do("GET", "/artifacts", nil).list(t); len(l) != 1 {
			t.Errorf("list after deletes, want the other image only: %v", l)
		}
		if bl := c.do("GET", "/blobs", nil).list(t); len(bl) != 2 {
			t.Errorf("blobs: %v", bl)
		}
	})
}

func TestUploadProtocol(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		u := c.do("POST", "/upload", nil).obj(t)
		id, _ := u["uuid"].(string)
		if id == "" || u["node"] == nil || u["created_at"] == nil {
			t.Fatalf("upload: %v", u)
		}
		data := bytes.Repeat([]byte("0123456789abcdef"), 100000) // 1.6 MB
		half := len(data) / 2
		if got := c.do("POST", "/upload/"+id, data[:half], "Content-Type", "application/octet-stream"); string(bytes.TrimSpace(got.raw)) != strconv.Itoa(half) {
			t.Fatalf("first chunk: %d %s", got.status, got.raw)
		}
		// A chunk sent twice is undone by truncating to the size before it.
		c.do("POST", "/upload/"+id, data[half:half+1000], "Content-Type", "application/octet-stream")
		nullBody(t, c.do("POST", "/upload/"+id+"/truncate/"+strconv.Itoa(half), nil))
		// An empty body appends nothing and reads the size (resume).
		if got := c.do("POST", "/upload/"+id, []byte{}, "Content-Type", "application/octet-stream"); string(bytes.TrimSpace(got.raw)) != strconv.Itoa(half) {
			t.Fatalf("size read: %s", got.raw)
		}
		c.do("POST", "/upload/"+id, data[half:], "Content-Type", "application/octet-stream")
		a := c.do("POST", "/artifacts/upload/mydisk", map[string]any{"upload_uuid": id}).obj(t)
		if a["source_url"] != "sf://upload/system/mydisk" || a["state"] != "created" {
			t.Fatalf("convert: %v", a)
		}
		wantError(t, c.do("POST", "/upload/"+id, []byte("x")), 404, "upload not found")
		blobID := a["blob_uuid"].(string)
		sum := sha512.Sum512(data)
		hexSum := hex.EncodeToString(sum[:])
		b := c.do("GET", "/blobs/"+blobID, nil).obj(t)
		if b["sha512"] != hexSum || b["size"] != float64(len(data)) {
			t.Errorf("blob: %v", b)
		}
		if found := c.do("GET", "/blob_checksums/sha512/"+hexSum, nil).obj(t); found["uuid"] != blobID {
			t.Errorf("by checksum: %v", found)
		}
		nullBody(t, c.do("GET", "/blob_checksums/sha512/"+strings.Repeat("0", 128), nil))
		got := c.do("GET", "/blobs/"+blobID+"/data", nil)
		if !bytes.Equal(got.raw, data) {
			t.Errorf("data: %d bytes back of %d", len(got.raw), len(data))
		}
		part := c.do("GET", "/blobs/"+blobID+"/data?offset=10&limit=20", nil)
		if !bytes.Equal(part.raw, data[10:30]) {
			t.Errorf("offset and limit: %q", part.raw)
		}
		// The same blob again, by blob_uuid, as sf-client does for an image
		// the cluster already holds.
		again := c.do("POST", "/artifacts/upload/mydisk", map[string]any{"blob_uuid": blobID}).obj(t)
		if again["uuid"] != a["uuid"] || again["index"] != float64(1) {
			t.Errorf("same blob twice adds no version: %v", again)
		}
		wantError(t, c.do("POST", "/artifacts/upload/x", map[string]any{"upload_uuid": id, "blob_uuid": blobID}), 400, "only specify one")
	})
}

// An upload that was never sent data becomes an empty blob: its data is
// an empty body, as its sha512 and size say, not a "blob missing" 404
// (two backups of a cluster holding one failed on it).
func TestEmptyUploadIsAnEmptyBlob(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		id, _ := c.do("POST", "/upload", nil).obj(t)["uuid"].(string)
		a := c.do("POST", "/artifacts/upload/empty", map[string]any{"upload_uuid": id}).obj(t)
		blobID, _ := a["blob_uuid"].(string)
		empty := sha512.Sum512(nil)
		if b := c.do("GET", "/blobs/"+blobID, nil).obj(t); b["size"] != float64(0) || b["sha512"] != hex.EncodeToString(empty[:]) {
			t.Errorf("blob: %v, want size 0 and the empty sha512", b)
		}
		for _, path := range []string{"/blobs/" + blobID + "/data", "/blobs/" + blobID + "/data?offset=0"} {
			if got := c.do("GET", path, nil); got.status != 200 || len(got.raw) != 0 {
				t.Errorf("GET %s: %d %q, want 200 and no bytes", path, got.status, got.raw)
			}
		}
	})
}
