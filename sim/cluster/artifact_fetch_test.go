package cluster

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// eventMessages lists an answer's event messages, newest first.
func eventMessages(t *testing.T, a answer) []string {
	t.Helper()
	var out []string
	for _, e := range a.list(t) {
		out = append(out, e["message"].(string))
	}
	return out
}

// TestArtifactFetchTakesTime: POST /artifacts answers the artifact before
// its fetch (ArtifactsEndpoint.post queues a FetchImageTask, da448b1a):
// "initial", index 0, no blobs; after ArtifactFetchTime it is "created"
// with version 1 and "artifact fetch complete" is its newest audit event.
// A second cache of the same (unchanged) URL adds no version.
func TestArtifactFetchTakesTime(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		synctest.Test(t, func(t *testing.T) {
			_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.ArtifactFetchTime = 2 * time.Second })
			a := c.do("POST", "/artifacts", map[string]any{"url": "https://images.example/debian-12.qcow2"}).obj(t)
			if a["state"] != "initial" || a["index"] != float64(0) || len(a["blobs"].(map[string]any)) != 0 {
				t.Fatalf("answer before the fetch: %v", a)
			}
			id := a["uuid"].(string)
			advance(time.Second)
			if got := c.do("GET", "/artifacts/"+id, nil).obj(t); got["state"] != "initial" {
				t.Errorf("half way through the fetch: %v", got["state"])
			}
			advance(time.Second)
			got := c.do("GET", "/artifacts/"+id, nil).obj(t)
			if got["state"] != "created" || got["index"] != float64(1) {
				t.Fatalf("after the fetch: %v", got)
			}
			audit := eventMessages(t, c.do("GET", "/artifacts/"+id+"/events", map[string]any{"event_type": "audit"}))
			if len(audit) < 3 || audit[0] != "artifact fetch complete" || audit[1] != "added index to artifact" || audit[2] != "creation request from REST API" {
				t.Errorf("audit trail: %q", audit)
			}
			again := c.do("POST", "/artifacts", map[string]any{"url": "https://images.example/debian-12.qcow2"}).obj(t)
			if again["state"] != "created" || again["index"] != float64(1) {
				t.Errorf("second cache: %v", again)
			}
			advance(2 * time.Second)
			if got := c.do("GET", "/artifacts/"+id, nil).obj(t); got["index"] != float64(1) {
				t.Errorf("an unchanged source made a new version: %v", got["index"])
			}
			if audit := eventMessages(t, c.do("GET", "/artifacts/"+id+"/events", map[string]any{"event_type": "audit"})); audit[0] != "artifact fetch complete" || audit[1] != "creation request from REST API" {
				t.Errorf("second fetch's trail: %q", audit)
			}
		})
	})
}

// TestArtifactFetchFails: a host under .invalid is never fetched. A new
// artifact goes to "error", its reason in mutate events ("DNS error": the
// message every failure gets at da448b1a); one already created keeps its
// copy and says so.
func TestArtifactFetchFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { cfg.ArtifactFetchTime = time.Second })
		id := c.do("POST", "/artifacts", map[string]any{"url": "https://images.invalid/nope.qcow2"}).obj(t)["uuid"].(string)
		advance(time.Second)
		if got := c.do("GET", "/artifacts/"+id, nil).obj(t); got["state"] != "error" || len(got["blobs"].(map[string]any)) != 0 {
			t.Fatalf("failed fetch: %v", got)
		}
		ev := c.do("GET", "/artifacts/"+id+"/events", map[string]any{"event_type": "mutate"}).list(t)
		if len(ev) < 2 || ev[0]["message"] != "set attribute" {
			t.Fatalf("mutate events: %v", ev)
		}
		if extra := ev[0]["extra"].(map[string]any); extra["attribute"] != "error" || extra["message"] != "DNS error" {
			t.Errorf("error attribute event: %v", extra)
		}
		for _, m := range eventMessages(t, c.do("GET", "/artifacts/"+id+"/events", nil)) {
			if m == "artifact fetch complete" {
				t.Errorf("a failed fetch recorded %q", m)
			}
		}
		// Still in error after another try: error only leaves to deleted.
		c.do("POST", "/artifacts", map[string]any{"url": "https://images.invalid/nope.qcow2"})
		advance(time.Second)
		if got := c.do("GET", "/artifacts/"+id, nil).obj(t); got["state"] != "error" {
			t.Errorf("after a second failed fetch: %v", got["state"])
		}
		audit := eventMessages(t, c.do("GET", "/artifacts/"+id+"/events", map[string]any{"event_type": "audit"}))
		if audit[0] != "updating image failed, using already cached version" {
			t.Errorf("second failure's trail: %q", audit)
		}
	})
}

func TestBlobRoutes(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		u := c.do("POST", "/upload", nil).obj(t)["uuid"].(string)
		payload := []byte("hello, blob\n")
		c.do("POST", "/upload/"+u, payload, "Content-Type", "application/octet-stream")
		a := c.do("POST", "/artifacts/upload/hello.txt", map[string]any{"upload_uuid": u, "artifact_type": "other"}).obj(t)
		blob := a["blob_uuid"].(string)

		// Metadata, both generations (blob.py da448b1a).
		nullBody(t, c.do("POST", "/blobs/"+blob+"/metadata", map[string]any{"key": "owner", "value": "ci"}))
		nullBody(t, c.do("PUT", "/blobs/"+blob+"/metadata/stage", map[string]any{"value": "golden"}))
		if md := c.do("GET", "/blobs/"+blob+"/metadata", nil).obj(t); md["owner"] != "ci" || md["stage"] != "golden" {
			t.Errorf("metadata: %v", md)
		}
		wantError(t, c.do("PUT", "/blobs/"+blob+"/metadata/stage", map[string]any{"value": ""}), 400, "no value specified")
		nullBody(t, c.do("DELETE", "/blobs/"+blob+"/metadata/stage", nil))
		if md := c.do("GET", "/blobs/"+blob+"/metadata", nil).obj(t); len(md) != 1 {
			t.Errorf("metadata after delete: %v", md)
		}
		wantError(t, c.do("GET", "/blobs/0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11/metadata", nil), 404, "blob not found")

		events := c.do("GET", "/blobs/"+blob+"/events", nil)
		sum := c.do("GET", "/blobs/"+blob+"/checksum/sha256", nil)
		if gen == Generation2024 {
			for _, got := range []answer{events, sum} {
				if got.status != http.StatusNotFound || got.header.Get("Content-Type") == "application/json" {
					t.Errorf("2024 answers a 2026 blob route: %d %s", got.status, got.raw)
				}
			}
			return
		}
		// Events: newest first, the blob's own trail.
		msgs := eventMessages(t, events)
		want := []string{"delete metadata key request from REST API", "set metadata key request from REST API", "set metadata key request from REST API", "incremented reference count", "db record created"}
		if len(msgs) != len(want) {
			t.Fatalf("blob events %q, want %q", msgs, want)
		}
		for k := range want {
			if msgs[k] != want[k] {
				t.Errorf("blob event %d: %q, want %q", k, msgs[k], want[k])
			}
		}
		if one := c.do("GET", "/blobs/"+blob+"/events", map[string]any{"limit": 1}).list(t); len(one) != 1 {
			t.Errorf("limit 1 gave %d events", len(one))
		}
		// Single checksum: the hex digest alone, a JSON string, over the blob's bytes (2026 blob.py, code index id 59405866988).
		h256 := sha256.Sum256(payload)
		if got := sum.str(t); got != hex.EncodeToString(h256[:]) {
			t.Errorf("sha256: %v", got)
		}
		h1 := sha1.Sum(payload)
		if got := c.do("GET", "/blobs/"+blob+"/checksum/sha1", nil).str(t); got != hex.EncodeToString(h1[:]) {
			t.Errorf("sha1: %v", got)
		}
		if got := c.do("GET", "/blobs/"+blob+"/checksum/sha512", nil).str(t); got != c.do("GET", "/blobs/"+blob, nil).obj(t)["sha512"] {
			t.Errorf("sha512 differs from the blob view's: %v", got)
		}
		if got := c.do("GET", "/blobs/"+blob+"/checksum/xxh128", nil).str(t); len(got) != 32 {
			t.Errorf("xxh128: %v", got)
		}
		wantError(t, c.do("GET", "/blobs/"+blob+"/checksum/md5", nil), 400, "unknown hash algorithm")
		// 2026 blob.py BlobDataEndpoint.get refuses a negative offset or
		// limit (code index id 59405866988).
		wantError(t, c.do("GET", "/blobs/"+blob+"/data?offset=-1", nil), 400, "offset cannot be negative")
		wantError(t, c.do("GET", "/blobs/"+blob+"/data?limit=-1", nil), 400, "limit cannot be negative")
		wantError(t, c.do("GET", "/blobs/0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11/checksum/sha1", nil), 404, "blob not found")
		// The artifact's outstanding operations: none.
		if ops := c.do("GET", "/artifacts/"+a["uuid"].(string)+"/clusteroperations", nil); ops.status != 200 || len(ops.list(t)) != 0 {
			t.Errorf("artifact operations: %d %s", ops.status, ops.raw)
		}
		wantError(t, c.do("GET", "/artifacts/nosuch/clusteroperations", nil), 404, "artifact not found")
	})
}

// TestXXH128OfEmptyBlob pins the digest's byte order to xxhash's
// canonical (big-endian) hexdigest: XXH3_128bits("") is
// 99aa06d3014798d86001c324468d497f.
func TestXXH128OfEmptyBlob(t *testing.T) {
	_, c := startSim(t, gen2026)
	u := c.do("POST", "/upload", nil).obj(t)["uuid"].(string)
	blob := c.do("POST", "/artifacts/upload/empty", map[string]any{"upload_uuid": u}).obj(t)["blob_uuid"].(string)
	if got := c.do("GET", "/blobs/"+blob+"/checksum/xxh128", nil).str(t); got != "99aa06d3014798d86001c324468d497f" {
		t.Errorf("xxh128 of nothing: %v", got)
	}
}

// TestScopesCoverBlobLabelUpload: a 2026 token scoped to blob.read reads
// blobs (and /blob_checksums) but may not upload or label; upload.write
// may upload. Before the families were mapped, every scoped token was
// refused on these routes with "token is not scoped for " (no scope).
func TestScopesCoverBlobLabelUpload(t *testing.T) {
	_, c := startSim(t, func(cfg *Config) { gen2026(cfg); cfg.AuthScopes = []string{"blob.read", "upload.write"} })
	wantError(t, c.do("GET", "/blobs/0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11", nil), 404, "blob not found")
	if a := c.do("GET", "/blob_checksums/sha512/abc", nil); a.status != 200 {
		t.Errorf("blob.read: GET /blob_checksums %d %s", a.status, a.raw)
	}
	if a := c.do("POST", "/upload", nil); a.status != 200 {
		t.Errorf("upload.write: POST /upload %d %s", a.status, a.raw)
	}
	wantError(t, c.do("POST", "/label/prod", map[string]any{"blob_uuid": "x"}), 403, "token is not scoped for label.write")
	wantError(t, c.do("POST", "/blobs/0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11/metadata", map[string]any{"key": "a", "value": "b"}), 403, "token is not scoped for blob.write")
	wantError(t, c.do("GET", "/artifacts", nil), 403, "token is not scoped for artifact.read")
}
