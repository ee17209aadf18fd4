package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/client"
)

// The artifact, blob and label methods against the real answers of
// testdata/sf2024 (the swagger examples of shakenfist da448b1a
// external_api/artifact.py, blob.py, label.py; SOURCES.md at the top).

func TestArtifactRealViews(t *testing.T) {
	s := newSF(t)
	s.handle("GET /artifacts/debian:11", reply(200, golden(t, "sf2024/artifact.json")))
	s.handle("GET /artifacts", reply(200, "["+golden(t, "sf2024/artifact.json")+","+golden(t, "sf2024/label.json")+"]"))
	s.handle("GET /artifacts/debian:11/versions", reply(200, golden(t, "sf2024/artifact_versions.json")))
	s.handle("GET /artifacts/debian:11/events", reply(200, golden(t, "sf2024/artifact_events.json")))
	c := sfClient(t, s, nil)
	a, err := c.GetArtifact(t.Context(), "debian:11")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() != "debian:11" || a.Index != 101 || a.MaxVersions != 3 || !a.Shared || a.ArtifactType != "image" {
		t.Errorf("artifact %+v", a)
	}
	if got := a.VersionIndexes(); len(got) != 3 || got[0] != 99 || got[2] != 101 {
		t.Errorf("version indexes %v", got)
	}
	if b, ok := a.CurrentBlob(); !ok || b.UUID != a.BlobUUID || b.Size != 308406784 {
		t.Errorf("current blob %+v %v", b, ok)
	}
	labels, err := c.ListLabels(t.Context(), false)
	if err != nil || len(labels) != 1 || labels[0].Name() != "debian-11-production" {
		t.Errorf("labels %v %v", labels, err)
	}
	vers, err := c.ArtifactVersions(t.Context(), "debian:11")
	if err != nil || len(vers) != 1 || vers[0].Index != 6 || vers[0].FileFormat != "qcow2" || vers[0].VirtualSize != 32212254720 || len(vers[0].Instances) != 1 {
		t.Errorf("versions %+v %v", vers, err)
	}
	evs, err := c.ArtifactEvents(t.Context(), "debian:11", client.EventsQuery{})
	if err != nil || len(evs) != 1 || evs[0].Message != "artifact fetch complete" {
		t.Errorf("events %+v %v", evs, err)
	}
	// The blob behind version 101 is referenced by the artifact.
	refs, err := c.ArtifactsOfBlob(t.Context(), "25adc99e-369b-4959-a387-2ae046ee6ad4")
	if err != nil || len(refs) != 1 || refs[0].UUID != "69ff59a7-f6ac-4f64-a575-bb54a7ee8961" {
		t.Errorf("referencing artifacts %v %v", refs, err)
	}
}

func TestBlobRealView(t *testing.T) {
	s := newSF(t)
	s.handle("GET /blobs/578da8b6-eb98-4e10-bb36-e4d4d763d312", reply(200, golden(t, "sf2024/blob.json")))
	c := sfClient(t, s, nil)
	b, err := c.GetBlob(t.Context(), "578da8b6-eb98-4e10-bb36-e4d4d763d312")
	if err != nil {
		t.Fatal(err)
	}
	if b.Size != 3566573056 || b.ReferenceCount != 26 || len(b.Locations) != 4 || len(b.Instances) != 3 ||
		b.SHA512 == nil || !strings.HasPrefix(*b.SHA512, "e83e19c98de906") || b.Transcodes["zlib;qcow2;cluster_size"] == "" {
		t.Errorf("blob %+v", b)
	}
}

// The requests each mutating call sends: method, path, body.
func TestArtifactMutationsWire(t *testing.T) {
	s := newSF(t)
	s.handle("DELETE /artifacts/img", reply(200, golden(t, "sf2024/artifact_deleted.json")))
	s.handle("DELETE /artifacts/gone", reply(200, "null"))
	s.handle("DELETE /artifacts/img/versions/100", reply(200, golden(t, "sf2024/artifact.json")))
	s.handle("POST /artifacts/img/versions", reply(200, "null"))
	s.handle("POST /artifacts/img/share", reply(200, golden(t, "sf2024/artifact.json")))
	s.handle("POST /artifacts/img/unshare", reply(403, `{"error": "artifact not shared", "status": 403}`))
	s.handle("PUT /artifacts/img/metadata/owner", reply(200, "null"))
	s.handle("DELETE /artifacts/img/metadata/owner", reply(200, "null"))
	s.handle("POST /label/ns2/prod", reply(200, golden(t, "sf2024/label.json")))
	s.handle("DELETE /label/prod", reply(200, golden(t, "sf2024/label.json")))
	s.handle("POST /artifacts", reply(200, golden(t, "sf2024/artifact.json")))
	c := sfClient(t, s, nil)
	ctx := t.Context()
	if a, err := c.DeleteArtifact(ctx, "img"); err != nil || a.State != "deleted" {
		t.Errorf("delete: %+v %v", a, err)
	}
	if a, err := c.DeleteArtifact(ctx, "gone"); err != nil || a != nil {
		t.Errorf("delete of a deleted one: %+v %v", a, err)
	}
	if _, err := c.DeleteArtifactVersion(ctx, "img", 100); err != nil {
		t.Error(err)
	}
	if err := c.SetArtifactMaxVersions(ctx, "img", 5); err != nil {
		t.Error(err)
	}
	if _, err := c.ShareArtifact(ctx, "img"); err != nil {
		t.Error(err)
	}
	var apiErr *client.APIError
	if _, err := c.UnshareArtifact(ctx, "img"); !errors.As(err, &apiErr) || apiErr.StatusCode != 403 || apiErr.Message != "artifact not shared" {
		t.Errorf("unshare of an unshared artifact: %v", err)
	}
	if err := c.SetArtifactMetadata(ctx, "img", "owner", "ci"); err != nil {
		t.Error(err)
	}
	if err := c.DeleteArtifactMetadata(ctx, "img", "owner"); err != nil {
		t.Error(err)
	}
	if _, err := c.UpdateLabel(ctx, "ns2/prod", "ffdfce7f-728e-4b76-83c2-304e252f98b1"); err != nil {
		t.Error(err)
	}
	if _, err := c.DeleteLabel(ctx, "prod"); err != nil {
		t.Error(err)
	}
	if _, err := c.CacheArtifact(ctx, "debian:11", false, ""); err != nil {
		t.Error(err)
	}
	want := map[string]string{
		"POST /artifacts/img/versions":       `{"max_versions":5}`,
		"PUT /artifacts/img/metadata/owner":  `{"value":"ci"}`,
		"POST /label/ns2/prod":               `{"blob_uuid":"ffdfce7f-728e-4b76-83c2-304e252f98b1"}`,
		"POST /artifacts":                    `{"url":"debian:11","shared":false}`,
		"DELETE /artifacts/img/versions/100": ``,
	}
	seen := map[string]bool{}
	for _, r := range apiCalls(s) {
		k := r.method + " " + r.path
		if w, ok := want[k]; ok {
			jsonEqual(t, k, r.body, w)
			seen[k] = true
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("%s was not sent", k)
		}
	}
}

func TestLabelAndRefValidation(t *testing.T) {
	s := newSF(t)
	c := sfClient(t, s, nil)
	var ue *client.UsageError
	for _, name := range []string{"", "a/b/c", "/x", "x/"} {
		if _, err := c.UpdateLabel(t.Context(), name, "b"); !errors.As(err, &ue) {
			t.Errorf("label %q: %v", name, err)
		}
	}
	if _, err := c.GetArtifact(t.Context(), " "); !errors.As(err, &ue) {
		t.Errorf("empty artifact ref: %v", err)
	}
	if err := c.SetArtifactMaxVersions(t.Context(), "img", -1); !errors.As(err, &ue) {
		t.Errorf("negative max versions: %v", err)
	}
	if len(apiCalls(s)) != 0 {
		t.Errorf("refused input still sent %d requests", len(apiCalls(s)))
	}
}
