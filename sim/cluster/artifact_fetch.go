package cluster

import (
	"net/url"
	"strings"
	"time"
)

// The fetch behind POST /artifacts, as shakenfist da448b1a runs it:
// ArtifactsEndpoint.post queues a FetchImageTask; the queue worker's
// image_fetch (daemons/queues.py) runs images.ImageFetchHelper.get_image
// and then records "artifact fetch complete". What a client can see of it
// is the artifact's state and its events, which is what the simulator
// reproduces:
//
//   - success: the first fetch adds a version on a new blob (transcode_image
//     -> add_index, "added index to artifact") and moves "initial" to
//     "created"; a later fetch of an unchanged source (the simulator's
//     sources never change) finds the cluster's copy current
//     (transfer_image not dirty), adds no version and leaves the state as
//     it is (only "initial" becomes "created", so an artifact in "error"
//     stays there). Either way the audit event "artifact fetch complete"
//     follows.
//   - failure (a URL whose host is under .invalid, which never resolves,
//     RFC 2606): image_fetch cleans the message with msg.find(...), which
//     is truthy whenever the text is NOT found, so every failure is stored
//     as "DNS error". An artifact never fetched ("initial") goes to "error"
//     and gets the message as its error attribute: two mutate "set
//     attribute" events (attribute "state", then "error"), since the
//     artifact view has no error field. An artifact already holding a copy
//     keeps it, with the audit event "updating image failed, using already
//     cached version" (extra.message). No "artifact fetch complete" then.

// fetchDNSError is the message every failed fetch stores at da448b1a.
const fetchDNSError = "DNS error"

// fetchFails says whether the simulator cannot fetch raw: a host that is
// .invalid or under it. Shorthands such as "debian:12" have no host and
// are fetched.
func fetchFails(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	return h == "invalid" || strings.HasSuffix(h, ".invalid")
}

// queueFetch queues the artifact's fetch (etcd.enqueue of a
// FetchImageTask); callers hold s.mu.
func (s *Server) queueFetch(a *artifactRec) {
	s.afterOrNow(s.cfg.ArtifactFetchTime, func() { s.finishFetch(a) })
}

// finishFetch is image_fetch for one queued task; callers hold s.mu.
func (s *Server) finishFetch(a *artifactRec) {
	if !a.active() {
		// Deleted while queued: the real task's state change would raise
		// (objects do not undelete); nothing a client sees changes.
		return
	}
	if fetchFails(a.sourceURL) {
		if a.state == artifactStateInitial {
			a.state = stateError
			a.events = appendMutate(a.events, map[string]any{"value": stateError, "update_time": epoch(time.Now()), "attribute": "state"})
			a.events = appendMutate(a.events, map[string]any{"message": fetchDNSError, "attribute": "error"})
			return
		}
		a.events = appendEvent(a.events, apiFQDN, "updating image failed, using already cached version", map[string]any{"message": fetchDNSError})
		return
	}
	if len(a.versions) == 0 {
		s.addVersion(a, s.newBlob(syntheticImageSize, nil))
	}
	if a.state == artifactStateInitial {
		a.state = stateCreated
		a.events = appendMutate(a.events, map[string]any{"value": stateCreated, "update_time": epoch(time.Now()), "attribute": "state"})
	}
	a.events = appendEvent(a.events, apiFQDN, "artifact fetch complete", nil)
}
