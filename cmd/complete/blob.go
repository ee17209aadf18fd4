package complete

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// BlobSHA512s offers the sha512 of each blob the cluster has
// verified, described by the blob's UUID and size. Only GET /blobs names
// checksums (an artifact's blobs do not), and it is admin only: another
// namespace's key gets no candidates, as the server would refuse the list.
func BlobSHA512s(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListBlobs(ctx, false)
		var items []namedItem
		for i := range list {
			if b := &list[i]; b.SHA512 != nil && *b.SHA512 != "" {
				items = append(items, namedItem{*b.SHA512, describe("blob "+b.UUID, cmdutil.Bytes(b.Size))})
			}
		}
		return items, err
	})
}
