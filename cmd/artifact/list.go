package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdList builds `shakectl artifact list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return builders.NewListCmd(f, artifactResource, builders.ListSpec[client.Artifact]{
		Short: "List the artifacts you can see",
		Long: `List the artifacts of your namespace, the shared ones, and those of
namespaces that trust yours (system sees every one); deleted artifacts are
left out, as the server leaves them out. VERSIONS is "N of INDEX": the
versions held, and the highest index given. Piped, and with -o simple,
each artifact is one tab-separated line without a header.`,
		Example: `  shakectl artifact list
  shakectl artifact list -o json --jq '.[] | select(.artifact_type == "image") | .uuid'`,
		Fetch: (*client.Client).ListArtifacts,
	})
}
