package network

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdEvents builds `shakectl network events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewEventsCmd(f, cmdutil.EventsSpec{
		Noun: "network", Arg: "NETWORK", Complete: cmdutil.CompleteNetworkNames(f),
		Example: `  shakectl network events net1 --limit 20`,
		Fetch:   (*client.Client).NetworkEvents,
	})
}
