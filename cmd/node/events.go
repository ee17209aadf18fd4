package node

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdEvents builds `shakectl node events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewEventsCmd(f, cmdutil.EventsSpec{
		Noun: "node", Arg: "NODE", Complete: cmdutil.CompleteNodeNames(f),
		Example: `  shakectl node events sf-1 --type resources --limit 5`,
		Fetch:   (*client.Client).NodeEvents,
	})
}
