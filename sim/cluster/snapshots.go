package cluster

import (
	"fmt"
	"net/http"
	"time"
)

// Snapshots (external_api/snapshot.py and Instance.snapshot, da448b1a):
// an instance's disk becomes a version of its snapshot artifact.
//
// Instance.snapshot finds the disk's artifact (Artifact.from_url with
// create_if_new: a second snapshot of a disk is a new version of the
// same artifact; the first makes it, "initial" with no version), picks
// the blob's UUID and queues a SnapshotTask for the node; the answer
// names that UUID at once. The node's queue worker (daemons/queues.py
// snapshot) writes the blob with qemu-img and adds it to the artifact,
// which then reads "created": Config.SnapshotTime later in the
// simulator (the real node's n16-snapshot: the artifact was still
// initial, with no blob, 23 s after the answer, and created 63 s after).

// snapshotArtifactType is Artifact.TYPE_SNAPSHOT.
const snapshotArtifactType = "snapshot"

// finishSnapshot is the queue worker's snapshot for one SnapshotTask;
// callers hold s.mu. An artifact deleted, or an instance deleted, by then
// gets no version.
func (s *Server) finishSnapshot(a *artifactRec, i *instance, blobUUID string, size int64) {
	if !a.active() || i.state == stateDeleted {
		return
	}
	s.addVersion(a, s.newBlobNamed(blobUUID, size, nil))
	if a.state != stateCreated {
		a.state = stateCreated
		a.events = appendMutate(a.events, map[string]any{"value": stateCreated, "update_time": epoch(time.Now()), "attribute": "state"})
	}
}

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
			url := "sf://instance/" + i.uuid + "/" + dev
			a := s.artifactByURL(snapshotArtifactType, url, i.namespace)
			if a == nil {
				a = s.newArtifact(snapshotArtifactType, url, i.uuid+"/"+dev, i.namespace)
				a.instance = i.uuid
			}
			blobUUID := newUUID()
			s.afterOrNow(s.cfg.SnapshotTime, func() { s.finishSnapshot(a, i, blobUUID, size<<30) })
			out[dev] = map[string]any{"source_url": url, "artifact_uuid": a.uuid, "blob_uuid": blobUUID}
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
