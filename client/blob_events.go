package client

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// CapBlobEvents is the capability of GET /blobs/{uuid}/events: listed
// under "blobs" on the 2026 root page (external_api/app.py Root, code
// index id 59153739580, recorded in testdata/sf2026/root.html), absent
// from da448b1a's, which has no such route.
const CapBlobEvents = "blob-events"

// BlobEvents is GET /blobs/{uuid}/events (2026, BlobEventsEndpoint): the
// blob's event trail, newest first, with event_type and limit as the other
// event routes take them. The 2026 handler is not in the public code index;
// the answer is assumed to be the eventlog view every other events route
// sends (unverified). A server that does not advertise blob-events is
// refused before anything is sent; one that lists no capabilities is asked,
// and its HTML 404 (no such route) is the same *NotSupportedError.
func (c *Client) BlobEvents(ctx context.Context, blobUUID string, q EventsQuery) ([]Event, error) {
	if strings.TrimSpace(blobUUID) == "" {
		return nil, &UsageError{Field: "blob", Problem: "empty blob uuid"}
	}
	if err := c.require(ctx, CapBlobEvents, "blob events"); err != nil {
		return nil, err
	}
	events, err := c.events(ctx, "/blobs/"+url.PathEscape(blobUUID)+"/events", q)
	if routeMissing(err) {
		return nil, &NotSupportedError{Feature: "blob events", Route: http.MethodGet + " /blobs/{uuid}/events", Err: err}
	}
	return events, err
}
