package network

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdEvents builds `shakectl network events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	return builders.NewEventsCmd(f, builders.EventsSpec{
		Noun: "network", Arg: "NETWORK", Complete: complete.NetworkNames(f),
		Example: `  shakectl network events net1 --limit 20`,
		Fetch:   (*client.Client).NetworkEvents,
	})
}
