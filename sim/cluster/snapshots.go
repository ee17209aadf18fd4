package cluster

import (
	"fmt"
	"net/http"
	"time"
)

// Snapshots (external_api/snapshot.py and Instance.snapshot, da448b1a):
// an instance's disk becomes an artifact.

// handleSnapshot is InstanceSnapshotEndpoint.post: the instance must be
// created (406 otherwise); the first disk (all: every disk; device: that
// one) becomes a snapshot artifact named <instance uuid>/<device>, and the
// answer maps each device to its source_url, artifact_uuid and blob_uuid.
func (s *Server) handleSnapshot(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceSnapshotEndpoint.post", []string{"all", "device", "max_versions", "thin"}, func(i *instance, p map[string]any) (any, *apiError) {
		if unplaced(i) {
			return nil, nil
		}
		if err := requireInstanceActive(i); err != nil {
			return nil, err
		}
		view := s.instanceView(i)
		devices, _ := view["disks"].([]any)
		if dev, _ := p["device"].(string); dev != "" {
			var keep []any
			for _, d := range devices {
				if d.(map[string]any)["device"] == dev {
					keep = append(keep, d)
				}
			}
			devices = keep
		} else if !truthy(p["all"]) && len(devices) > 0 {
			devices = devices[:1]
		}
		if len(s.artifacts)+len(devices) > maxArtifacts {
			return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("artifact quota exceeded: the simulator holds at most %d snapshots", maxArtifacts)}
		}
		out := map[string]any{}
		for _, d := range devices {
			dm := d.(map[string]any)
			dev := dm["device"].(string)
			size, _ := pyInt(dm["size"])
			s.seq++
			a := &artifactRec{
				uuid: newUUID(), name: i.uuid + "/" + dev, namespace: i.namespace, artifactType: "snapshot",
				sourceURL: "sf://instance/" + i.uuid + "/" + dev, instance: i.uuid,
				seq: s.seq, created: epoch(time.Now()), state: stateCreated, metadata: map[string]any{},
			}
			s.artifacts = append(s.artifacts, a)
			v := s.addVersion(a, s.newBlob(size<<30, nil))
			out[dev] = map[string]any{"source_url": a.sourceURL, "artifact_uuid": a.uuid, "blob_uuid": v.blob}
		}
		s.addEvent(i, apiFQDN, "snapshot", out)
		return out, nil
	})
}

// handleListSnapshots is InstanceSnapshotEndpoint.get: one entry per blob
// of each snapshot artifact of the instance, the artifact's view merged
// with its blob's (the blob uuid as blob_uuid).
func (s *Server) handleListSnapshots(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceSnapshotEndpoint.get", nil, func(i *instance, _ map[string]any) (any, *apiError) {
		out := []map[string]any{}
		for _, a := range s.artifacts {
			if a.instance != i.uuid {
				continue
			}
			for _, ver := range a.versions {
				b := s.blobs[ver.blob]
				v := s.artifactView(a)
				v["blob_uuid"], v["size"], v["instances"] = b.uuid, b.size, []string{}
				v["reference_count"], v["fetched_at"], v["depends_on"] = b.refs, b.created, nil
				out = append(out, v)
			}
		}
		return out, nil
	})
}
