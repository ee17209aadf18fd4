package cluster

import (
	"net/http"
	"testing"
)

// TestBlobMetadataRoutes: blob.py's metadata endpoints as at da448b1a:
// 404 for an unknown blob before any key check, "no key specified" and
// "no value specified" 400s, POST and PUT set, DELETE of a missing key
// is no error, and an unexpected body field is the wrapper's 400.
func TestBlobMetadataRoutes(t *testing.T) {
	s, c := startSim(t, nil)
	s.mu.Lock()
	b := s.newBlob(10, nil)
	s.mu.Unlock()
	base := "/blobs/" + b.uuid + "/metadata"

	wantError(t, c.do("PUT", "/blobs/6c72c98e-e579-48c0-afd5-e1d02a834b99/metadata/k", map[string]any{}), http.StatusNotFound, "blob not found")
	wantError(t, c.do("POST", base, map[string]any{"value": "v"}), http.StatusBadRequest, "no key specified")
	wantError(t, c.do("PUT", base+"/k", map[string]any{"value": ""}), http.StatusBadRequest, "no value specified")
	wantError(t, c.do("PUT", base+"/k", map[string]any{"value": "v", "colour": "red"}), http.StatusBadRequest, "colour")
	for _, a := range []answer{
		c.do("PUT", base+"/built-by", map[string]any{"value": "ci"}),
		c.do("POST", base, map[string]any{"key": "stage", "value": "test"}),
		c.do("DELETE", base+"/never-set", nil),
	} {
		if a.status != http.StatusOK || string(a.raw) != "null\n" {
			t.Errorf("answer %d %q, want 200 null", a.status, a.raw)
		}
	}
	md := c.do("GET", base, nil).obj(t)
	if len(md) != 2 || md["built-by"] != "ci" || md["stage"] != "test" {
		t.Errorf("metadata %v", md)
	}
	c.do("DELETE", base+"/stage", nil)
	if md := c.do("GET", "/blobs/"+b.uuid, nil).obj(t)["metadata"].(map[string]any); len(md) != 1 || md["built-by"] != "ci" {
		t.Errorf("the blob's view after delete: %v", md)
	}
}
