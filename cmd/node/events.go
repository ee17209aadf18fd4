package node

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdEvents builds `shakectl node events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	return builders.NewEventsCmd(f, builders.EventsSpec{
		Noun: "node", Arg: "NODE", Complete: complete.NodeNames(f),
		Example: `  shakectl node events sf-1 --type resources --limit 5`,
		Fetch:   (*client.Client).NodeEvents,
	})
}
