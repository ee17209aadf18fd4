package label

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdList builds `shakectl label list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return builders.NewListCmd(f, labelResource, builders.ListSpec[client.Artifact]{
		Short: "List the labels you can see",
		Long: `List the labels: the artifacts of type "label" in the artifact list (the
server has no label list of its own), with the blob each points at now.`,
		Example: `  shakectl label list
  shakectl label list -o json --jq '.[].blob_uuid'`,
		Fetch: (*client.Client).ListLabels,
	})
}
