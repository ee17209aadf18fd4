package client

import (
	"encoding/json"
	"fmt"
)

// What an artifact's event trail says about the fetch that POST /artifacts
// queued. At shakenfist da448b1a ArtifactsEndpoint.post records "creation
// request from REST API" and queues a FetchImageTask; the queue worker's
// image_fetch (daemons/queues.py) then ends in one of these ways, each
// visible only in the artifact's events and state (the artifact view has
// no error field, and a fetch of an unchanged image adds no version:
// transfer_image finds the cluster's copy current, add_index skips a blob
// of the same sha512):
//
//   - "artifact fetch complete" (audit): done; the artifact is "created"
//     unless it was in "error" before (error leaves only to deleted).
//   - "updating image failed, using already cached version" (audit,
//     extra.message): the fetch failed, the copy the cluster had is kept.
//   - state set to "error" with an "error" attribute (two mutate "set
//     attribute" events): the first fetch failed. Every failure's message
//     is "DNS error" there, as image_fetch's msg.find() test is inverted.
//   - "fetched image had bad checksum" (audit): the fetch raised out of
//     image_fetch; nothing else changes.
//
// The 2026 fetch code is not in the public code index: the same trail is
// assumed (unverified).

// The event messages of a fetch (daemons/queues.py, images.py da448b1a).
const (
	eventCacheRequest   = "creation request from REST API"
	eventFetchComplete  = "artifact fetch complete"
	eventFetchKeptCache = "updating image failed, using already cached version"
	eventFetchBadSum    = "fetched image had bad checksum"
	eventSetAttribute   = "set attribute"
)

// FetchOutcome is where the newest fetch request of an artifact stands.
type FetchOutcome struct {
	// Done is true once the fetch has ended, well or not.
	Done bool
	// Failed says the fetch ended without fetching; Reason is the server's
	// message, when it recorded one.
	Failed bool
	Reason string
	// KeptCached says the cluster still serves the copy it had.
	KeptCached bool
}

// Err is the outcome as an error, nil unless the fetch failed.
func (o FetchOutcome) Err(ref string) error {
	if !o.Failed {
		return nil
	}
	return &FetchFailedError{Ref: ref, Reason: o.Reason, KeptCached: o.KeptCached}
}

// FetchFailedError is an image fetch (artifact cache) that failed on the
// cluster.
type FetchFailedError struct {
	Ref        string
	Reason     string
	KeptCached bool
}

func (e *FetchFailedError) Error() string {
	msg := fmt.Sprintf("artifact %s: the cluster could not fetch the image", e.Ref)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.KeptCached {
		msg += " (it keeps serving the copy it already had)"
	}
	return msg
}

// ArtifactFetchOutcome reads events (newest first, as GET
// /artifacts/{ref}/events answers, both audit and mutate types) back to
// the newest cache request. A deleted artifact has failed. A trail that does not reach a cache request
// (cut by the events limit) falls back to the artifact's state: "created"
// is done, "error" failed.
func ArtifactFetchOutcome(a *Artifact, events []Event) FetchOutcome {
	if State(a.State) == StateDeleted {
		// Deleted while the fetch was queued: it will never be served.
		return FetchOutcome{Done: true, Failed: true, Reason: "the artifact was deleted"}
	}
	var reason string
	var failedState bool
	for _, e := range events {
		switch e.Message {
		case eventFetchComplete:
			return FetchOutcome{Done: true}
		case eventFetchKeptCache:
			// The server says so even of an artifact in "error" that never
			// had a copy; only one with a version keeps serving it.
			return FetchOutcome{Done: true, Failed: true, KeptCached: len(a.Blobs) > 0, Reason: extraString(e.Extra, "message")}
		case eventFetchBadSum:
			return FetchOutcome{Done: true, Failed: true, Reason: "the fetched image had a bad checksum"}
		case eventSetAttribute:
			var x struct {
				Attribute string `json:"attribute"`
				Value     string `json:"value"`
				Message   string `json:"message"`
			}
			if json.Unmarshal(e.Extra, &x) != nil {
				continue
			}
			switch {
			case x.Attribute == "error" && reason == "":
				reason = x.Message
			case x.Attribute == "state" && x.Value == string(StateError):
				failedState = true
			}
		case eventCacheRequest:
			if failedState {
				return FetchOutcome{Done: true, Failed: true, Reason: reason}
			}
			return FetchOutcome{}
		}
	}
	switch State(a.State) {
	case StateCreated:
		return FetchOutcome{Done: true}
	case StateError:
		return FetchOutcome{Done: true, Failed: true, Reason: reason}
	}
	return FetchOutcome{}
}

func extraString(raw json.RawMessage, key string) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}
