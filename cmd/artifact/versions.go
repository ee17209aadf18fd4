package artifact

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// versionResource is one entry of GET /artifacts/{ref}/versions: the
// version's blob view (blob.py da448b1a external_view) with its index.
var versionResource = cmdutil.Resource[client.Blob]{
	Singular: "version", Plural: "versions",
	Columns: []cmdutil.Column[client.Blob]{
		cmdutil.Field("INDEX", func(b *client.Blob) string { return cmdutil.Itoa(b.Index) }),
		cmdutil.Field("BLOB", func(b *client.Blob) string { return b.UUID }),
		cmdutil.Field("SIZE", func(b *client.Blob) string { return cmdutil.Bytes(b.Size) }),
		cmdutil.Field("FORMAT", func(b *client.Blob) string { return b.FileFormat }),
		cmdutil.StateField("STATE", func(b *client.Blob) string { return b.State }),
		cmdutil.Field("REFS", func(b *client.Blob) string { return cmdutil.Itoa(b.ReferenceCount) }),
		cmdutil.Field("INSTANCES", func(b *client.Blob) string { return strings.Join(b.Instances, ",") }),
	},
	Raw: func(b *client.Blob) json.RawMessage { return cmdutil.RawOf(b.Raw, b) },
}

// NewCmdVersions builds `shakectl artifact versions`.
func NewCmdVersions(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewRefListCmd(f, versionResource, cmdutil.RefListSpec[client.Blob]{
		Use: "versions", Arg: "ARTIFACT", Short: "List an artifact's versions",
		Long: `List the versions of an artifact, oldest first: each one's index, its blob,
size, format, state, reference count and the instances using it. -o json
prints the server's blob views, each with its "index".`,
		Example:  `  shakectl artifact versions debian-12.qcow2`,
		Complete: cmdutil.CompleteArtifactNames(f),
		Fetch:    (*client.Client).ArtifactVersions,
	})
}
