package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdEvents builds `shakectl instance events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewEventsCmd(f, cmdutil.EventsSpec{
		Noun: "instance", Arg: "INSTANCE", Complete: cmdutil.CompleteInstanceNames(f),
		Example: `  shakectl instance events web1
  shakectl instance events web1 --type audit --limit 10
  shakectl instance events web1 -o json | jq -r '.[].message'`,
		Fetch: (*client.Client).InstanceEvents,
	})
}
