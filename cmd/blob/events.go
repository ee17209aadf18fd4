package blob

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdEvents builds `shakectl blob events`: GET /blobs/{uuid}/events,
// which only the 2026 server routes (app.py, code index id 59153739580;
// capability blob-events). The client refuses it on a server that does not
// advertise the capability, so a 2024 cluster gets a clear "does not
// support" (exit 1) rather than an HTML 404.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	c := builders.NewEventsCmd(f, builders.EventsSpec{
		Noun: "blob", Arg: "BLOB_UUID", Complete: complete.BlobUUIDs(f),
		Example: `  shakectl blob events 578da8b6-eb98-4e10-bb36-e4d4d763d312
  shakectl blob events 578da8b6-eb98-4e10-bb36-e4d4d763d312 --type mutate --limit 10`,
		Fetch: (*client.Client).BlobEvents,
	})
	c.Long += `

Blob events are a 2026 server's (capability blob-events): its creation, the
reference count changes as artifact versions and labels take and drop it,
and metadata changes. A 2024 server has no such route; shakectl says so and
exits 1.`
	return c
}
