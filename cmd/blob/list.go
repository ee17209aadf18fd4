package blob

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdList builds `shakectl blob list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return builders.NewListCmd(f, blobResource, builders.ListSpec[client.Blob]{
		Short: "List every blob (system namespace only)",
		Long: `List the cluster's blobs: state, size, format, reference count and the nodes
holding a copy. The server lists blobs to the system namespace only
(BlobsEndpoint.get is caller_is_admin); any other is refused (exit 4).`,
		Example: `  shakectl blob list
  shakectl blob list -o json --jq '.[] | select(.reference_count == 0) | .uuid'`,
		Fetch: (*client.Client).ListBlobs,
	})
}
