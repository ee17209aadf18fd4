package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdEvents builds `shakectl instance events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	return builders.NewEventsCmd(f, builders.EventsSpec{
		Noun: "instance", Arg: "INSTANCE", Complete: complete.InstanceNames(f),
		Example: `  shakectl instance events web1
  shakectl instance events web1 --type audit --limit 10
  shakectl instance events web1 -o json | jq -r '.[].message'`,
		Fetch: (*client.Client).InstanceEvents,
	})
}
