package client_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// ev is an event as the server's code writes it: the messages and extras
// are those of shakenfist da448b1a daemons/queues.py image_fetch,
// images.py and baseobject.py _db_set_attribute.
func ev(typ, msg, extra string) client.Event {
	if extra == "" {
		extra = "{}"
	}
	return client.Event{Type: typ, Message: msg, Extra: json.RawMessage(extra)}
}

func TestArtifactFetchOutcome(t *testing.T) {
	var recorded []client.Event
	if err := json.Unmarshal([]byte(golden(t, "sf2024/artifact_events.json")), &recorded); err != nil {
		t.Fatal(err)
	}
	request := ev("audit", "creation request from REST API", "")
	cases := []struct {
		name   string
		state  string
		events []client.Event
		want   client.FetchOutcome
	}{
		// artifact.py@da448b1a artifact_events_example: the trail's newest
		// event is the fetch's end.
		{"recorded example", "created", recorded, client.FetchOutcome{Done: true}},
		{"queued", "initial", []client.Event{request, ev("audit", "db record created", "")}, client.FetchOutcome{}},
		{"an older fetch's end does not count", "created", []client.Event{request, ev("audit", "artifact fetch complete", "")}, client.FetchOutcome{}},
		{"first fetch fails", "error", []client.Event{
			ev("mutate", "set attribute", `{"message": "DNS error", "attribute": "error"}`),
			ev("mutate", "set attribute", `{"value": "error", "update_time": 1.5, "attribute": "state"}`),
			request,
		}, client.FetchOutcome{Done: true, Failed: true, Reason: "DNS error"}},
		{"refresh fails", "created", []client.Event{
			ev("audit", "updating image failed, using already cached version", `{"message": "DNS error"}`), request,
		}, client.FetchOutcome{Done: true, Failed: true, KeptCached: true, Reason: "DNS error"}},
		{"bad checksum", "initial", []client.Event{ev("audit", "fetched image had bad checksum", ""), request},
			client.FetchOutcome{Done: true, Failed: true, Reason: "the fetched image had a bad checksum"}},
		// An artifact in error before the request: only an end event ends
		// the wait (error leaves only to deleted).
		{"already in error, queued", "error", []client.Event{request, ev("mutate", "set attribute", `{"value": "error", "attribute": "state"}`)}, client.FetchOutcome{}},
		{"refresh of an artifact that never had a copy", "error", []client.Event{
			ev("audit", "updating image failed, using already cached version", `{"message": "DNS error"}`), request,
		}, client.FetchOutcome{Done: true, Failed: true, Reason: "DNS error"}},
		{"deleted while queued", "deleted", []client.Event{request}, client.FetchOutcome{Done: true, Failed: true, Reason: "the artifact was deleted"}},
		{"trail cut short, created", "created", []client.Event{ev("audit", "added index to artifact", `{"index": 1}`)}, client.FetchOutcome{Done: true}},
		{"trail cut short, initial", "initial", nil, client.FetchOutcome{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &client.Artifact{State: tc.state}
			if tc.state == "created" {
				a.Index, a.Blobs = 1, map[string]client.ArtifactVersionBlob{"1": {UUID: "b1"}}
			}
			got := client.ArtifactFetchOutcome(a, tc.events)
			if got != tc.want {
				t.Errorf("outcome %+v, want %+v", got, tc.want)
			}
			if err := got.Err("img"); (err != nil) != tc.want.Failed {
				t.Errorf("Err: %v", err)
			}
		})
	}
	err := client.FetchOutcome{Done: true, Failed: true, KeptCached: true, Reason: "DNS error"}.Err("debian-12.qcow2")
	var ff *client.FetchFailedError
	if !errors.As(err, &ff) || err.Error() != "artifact debian-12.qcow2: the cluster could not fetch the image: DNS error (it keeps serving the copy it already had)" {
		t.Errorf("error %v", err)
	}
}

// TestBlobEventsByGeneration: a 2026 simulator serves the blob's events;
// a 2024 one does not advertise blob-events, and the client refuses
// before sending anything.
func TestBlobEventsByGeneration(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			s := startSim(t, func(cfg *cluster.Config) { cfg.Generation = gen; cfg.ArtifactFetchTime = 0 })
			c, _ := simClient(t, s, nil)
			a, err := c.CacheArtifact(t.Context(), "https://images.example/debian-12.qcow2", false, "")
			if err != nil {
				t.Fatal(err)
			}
			events, err := c.BlobEvents(t.Context(), a.BlobUUID, client.EventsQuery{})
			var ns *client.NotSupportedError
			if gen == cluster.Generation2024 {
				if !errors.As(err, &ns) || ns.Capability != client.CapBlobEvents ||
					err.Error() != `this server does not support blob events (it does not advertise the capability "blob-events")` {
					t.Fatalf("2024: %v", err)
				}
				return
			}
			if err != nil || len(events) != 2 || events[0].Message != "incremented reference count" || events[1].Message != "db record created" {
				t.Fatalf("2026 blob events %+v %v", events, err)
			}
			if _, err := c.BlobEvents(t.Context(), "0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11", client.EventsQuery{}); err == nil || errors.As(err, &ns) {
				t.Errorf("unknown blob: %v, want the server's 404", err)
			}
		})
	}
}

// TestBlobEventsWithoutCapabilityList: a server whose root page lists
// nothing is asked; its HTML 404 (no such route) is a NotSupportedError
// naming the route.
func TestBlobEventsWithoutCapabilityList(t *testing.T) {
	s := newSF(t)
	s.handle("GET /", reply(200, "<html>no list here</html>", "Content-Type", "text/html"))
	s.handle("GET /blobs/b1/events", reply(404, golden(t, "flask_404.html"), "Content-Type", "text/html; charset=utf-8"))
	c := sfClient(t, s, nil)
	_, err := c.BlobEvents(t.Context(), "b1", client.EventsQuery{})
	var ns *client.NotSupportedError
	if !errors.As(err, &ns) || !strings.Contains(err.Error(), "GET /blobs/{uuid}/events") {
		t.Fatalf("err %v", err)
	}
	if _, err := c.BlobEvents(t.Context(), " ", client.EventsQuery{}); err == nil {
		t.Error("an empty uuid was sent")
	}
}

// TestBlobEventsRefusedBefore2026: against the 2024 root page (app.py
// @da448b1a, no blob-events) nothing is asked of /blobs/{uuid}/events.
func TestBlobEventsRefusedBefore2026(t *testing.T) {
	s := newSF(t)
	s.handle("GET /", reply(200, golden(t, "sf2024/root.html"), "Content-Type", "text/html"))
	c := sfClient(t, s, nil)
	var ns *client.NotSupportedError
	if _, err := c.BlobEvents(t.Context(), "b1", client.EventsQuery{}); !errors.As(err, &ns) {
		t.Fatalf("err %v", err)
	}
	for _, r := range s.recorded() {
		if strings.HasPrefix(r.path, "/blobs/") {
			t.Errorf("sent %s %s", r.method, r.path)
		}
	}
}

// FuzzArtifactFetchOutcome feeds hostile event trails (extras of the wrong
// type, huge or null, messages in any order) to the reader: it must not
// panic, and a fetch never fails without having ended.
func FuzzArtifactFetchOutcome(f *testing.F) {
	recorded, err := os.ReadFile("testdata/sf2024/artifact_events.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(recorded, "initial")
	f.Add([]byte(`[{"message": "set attribute", "extra": null}, {"message": "creation request from REST API"}]`), "error")
	f.Add([]byte(`[{"message": "set attribute", "extra": {"attribute": ["error"], "message": 7}}]`), "error")
	f.Add([]byte(`[{"message": "updating image failed, using already cached version", "extra": "DNS error"}]`), "created")
	f.Add([]byte(`[{"message": "set attribute", "extra": {"attribute": "state", "value": {"nested": true}}}, {"message": "creation request from REST API"}]`), "deleted")
	f.Fuzz(func(t *testing.T, data []byte, state string) {
		var events []client.Event
		if json.Unmarshal(data, &events) != nil {
			return
		}
		got := client.ArtifactFetchOutcome(&client.Artifact{State: state}, events)
		if got.Failed && !got.Done {
			t.Errorf("failed but not done: %+v", got)
		}
		if got.KeptCached && !got.Failed {
			t.Errorf("kept a cached copy without failing: %+v", got)
		}
	})
}
