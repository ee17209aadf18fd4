package blob

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// referencedBlob is a blob with the artifacts naming it in a version.
type referencedBlob struct {
	client.Blob
	Artifacts []client.Artifact
}

// blobDetail is what blob show prints: the blob, then who references it.
var blobDetail = builders.Resource[referencedBlob]{
	Singular: "blob", Plural: "blobs",
	Fields: []builders.Column[referencedBlob]{
		builders.Field("uuid", func(b *referencedBlob) string { return b.UUID }),
		builders.StateField("state", func(b *referencedBlob) string { return b.State }),
		builders.Field("size", func(b *referencedBlob) string { return fmt.Sprintf("%d (%s)", b.Size, cmdutil.Bytes(b.Size)) }),
		{Name: "virtual_size", Value: func(b *referencedBlob) string {
			if b.VirtualSize == 0 {
				return ""
			}
			return cmdutil.Bytes(int64(b.VirtualSize))
		}, OmitEmpty: true},
		{Name: "format", Value: func(b *referencedBlob) string { return b.FileFormat }, OmitEmpty: true},
		builders.Field("sha512", func(b *referencedBlob) string { return sha(&b.Blob) }),
		builders.Field("fetched_at", func(b *referencedBlob) string { return builders.FormatUnix(b.FetchedAt) }),
		builders.Field("reference_count", func(b *referencedBlob) string { return strconv.Itoa(b.ReferenceCount) }),
		builders.Field("locations", func(b *referencedBlob) string { return strings.Join(b.Locations, ",") }),
		{Name: "metadata", Value: func(b *referencedBlob) string { return builders.CompactJSON(b.Metadata) }, OmitEmpty: true},
		builders.Field("instances", func(b *referencedBlob) string { return strings.Join(b.Instances, ",") }),
		builders.Field("artifacts", func(b *referencedBlob) string {
			var out []string
			for _, a := range b.Artifacts {
				out = append(out, a.Name()+" ("+a.UUID+")")
			}
			return strings.Join(out, ", ")
		}),
	},
	Raw: func(b *referencedBlob) json.RawMessage {
		// The server's blob as sent, plus "artifacts": the UUIDs of the
		// artifacts naming it, which no server route answers.
		m := map[string]any{}
		if json.Unmarshal(b.Raw, &m) != nil {
			return cmdutil.RawOf(b.Raw, &b.Blob)
		}
		ids := []string{}
		for _, a := range b.Artifacts {
			ids = append(ids, a.UUID)
		}
		m["artifacts"] = ids
		out, _ := json.Marshal(m)
		return out
	},
}

// NewCmdShow builds `shakectl blob show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return builders.NewShowCmd(f, blobDetail, builders.ShowSpec[referencedBlob]{
		Arg: "BLOB", Short: "Show one blob and what references it",
		Long: `Show a blob: its size, format, sha512 (once the cluster has verified it),
where it is stored, the instances using it, and the artifacts (of those you
can see) with a version on it. The server has no route from a blob to its
artifacts, so shakectl reads the artifact list; -o json adds them to the
server's object as "artifacts", a list of UUIDs.`,
		Example:  `  shakectl blob show 578da8b6-eb98-4e10-bb36-e4d4d763d312`,
		Complete: complete.BlobUUIDs(f),
		Get: func(c *client.Client, ctx context.Context, ref string) (*referencedBlob, error) {
			b, err := c.GetBlob(ctx, ref)
			if err != nil {
				return nil, err
			}
			refs, err := c.ArtifactsOfBlob(ctx, b.UUID)
			if err != nil {
				return nil, err
			}
			return &referencedBlob{Blob: *b, Artifacts: refs}, nil
		},
	})
}
