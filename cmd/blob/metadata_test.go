package blob_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

const recordedBlob = "578da8b6-eb98-4e10-bb36-e4d4d763d312" // sf2024/blob.json

// metadataAPI is a fake 2024 server (its root page lists blob-metadata)
// whose blob metadata routes answer as BlobMetadataEndpoint does at
// da448b1a: 200 null, or arg_is_blob_uuid's 404 for an unknown blob.
func metadataAPI(t *testing.T, root string) *clitest.Stubs {
	fa := recorded(t)
	fa.Root(root)
	fa.Offer("PUT", "/blobs/"+recordedBlob+"/metadata/built-by", 200, "null\n")
	fa.Offer("DELETE", "/blobs/"+recordedBlob+"/metadata/built-by", 200, "null\n")
	fa.Offer("PUT", "/blobs/nosuch/metadata/built-by", 404, `{"error": "blob not found", "status": 404}`)
	return fa
}

// set-metadata and delete-metadata send the blob's own routes (not the
// instance route sf-client 6c25293c's blob set-metadata sends), print
// nothing, and name an unknown blob with exit 5.
func TestBlobMetadataRequests(t *testing.T) {
	fa := metadataAPI(t, clitest.ReadGolden(t, "sf2024/root.html"))
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "blob", "set-metadata", recordedBlob, "built-by", "ci pipeline 7"); res.Code != 0 || res.Stdout != "" || res.Stderr != "" {
		t.Fatalf("set-metadata: %s", res)
	}
	if body := fa.LastBody("PUT", "/blobs/"+recordedBlob+"/metadata/built-by"); body != `{"value":"ci pipeline 7"}` {
		t.Errorf("PUT body %q", body)
	}
	if res := r.Run(t, "blob", "delete-metadata", recordedBlob, "built-by"); res.Code != 0 || res.Stdout != "" {
		t.Fatalf("delete-metadata: %s", res)
	}
	if fa.Count("DELETE", "/blobs/"+recordedBlob+"/metadata/built-by") != 1 {
		t.Errorf("requests: %v", fa.Requests())
	}
	if res := r.Run(t, "blob", "set-metadata", "nosuch", "built-by", "ci"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "blob not found") {
		t.Errorf("unknown blob: %s", res)
	}
	for _, rec := range fa.Requests() {
		if strings.HasPrefix(rec.Path, "/instances/") {
			t.Errorf("sent %s %s", rec.Method, rec.Path)
		}
	}
}

// A server whose root page lacks blob-metadata is not asked (sf-client
// checks the same capability), and the message says what is missing.
func TestBlobMetadataWithoutCapability(t *testing.T) {
	fa := metadataAPI(t, strings.Replace(clitest.ReadGolden(t, "sf2024/root.html"), "blob-metadata, ", "", 1))
	res := clitest.AgainstStubs(fa).Run(t, "blob", "set-metadata", recordedBlob, "built-by", "ci")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "blob-metadata") {
		t.Errorf("%s", res)
	}
	if n := fa.Count("PUT", "/blobs/"+recordedBlob+"/metadata/built-by"); n != 0 {
		t.Errorf("%d PUTs sent to a server without blob metadata", n)
	}
}

// TestBlobMetadataAgainstSimCluster: a key set on a blob shows in blob
// show -o json and goes with delete-metadata; the server refuses an
// unknown blob (exit 5), in both generations.
func TestBlobMetadataAgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			r, _ := clitest.SimCluster(t, gen, nil)
			if res := r.Run(t, "artifact", "cache", "https://images.example/debian-12.qcow2"); res.Code != 0 {
				t.Fatal(res)
			}
			blob := strings.TrimSpace(r.Run(t, "artifact", "show", "debian-12.qcow2", "-o", "json", "--jq", ".blob_uuid").Stdout)
			if res := r.Run(t, "blob", "set-metadata", blob, "built-by", "ci"); res.Code != 0 {
				t.Fatalf("set-metadata: %s", res)
			}
			if got := strings.TrimSpace(r.Run(t, "blob", "show", blob, "-o", "json", "--jq", `.metadata["built-by"]`).Stdout); got != "ci" {
				t.Errorf("metadata after set: %s", got)
			}
			if out := r.Run(t, "blob", "show", blob, "-o", "simple").Stdout; !strings.Contains(out, "\nmetadata\t{\"built-by\":\"ci\"}\n") {
				t.Errorf("blob show does not print the metadata:\n%s", out)
			}
			if res := r.Run(t, "blob", "delete-metadata", blob, "built-by"); res.Code != 0 {
				t.Fatalf("delete-metadata: %s", res)
			}
			if got := strings.TrimSpace(r.Run(t, "blob", "show", blob, "-o", "json", "--jq", ".metadata").Stdout); got != "{}" {
				t.Errorf("metadata after delete: %s", got)
			}
			if out := r.Run(t, "blob", "show", blob, "-o", "simple").Stdout; strings.Contains(out, "metadata") {
				t.Errorf("blob show prints empty metadata:\n%s", out)
			}
			if res := r.Run(t, "blob", "set-metadata", "6c72c98e-e579-48c0-afd5-e1d02a834b99", "built-by", "ci"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "blob not found") {
				t.Errorf("unknown blob: %s", res)
			}
		})
	}
}
