package artifact

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// versionResource is one entry of GET /artifacts/{ref}/versions: the
// version's blob view (blob.py da448b1a external_view) with its index.
var versionResource = builders.Resource[client.Blob]{
	Singular: "version", Plural: "versions",
	Columns: []builders.Column[client.Blob]{
		builders.Field("INDEX", func(b *client.Blob) string { return strconv.Itoa(b.Index) }),
		builders.Field("BLOB", func(b *client.Blob) string { return b.UUID }),
		builders.Field("SIZE", func(b *client.Blob) string { return cmdutil.Bytes(b.Size) }),
		builders.Field("FORMAT", func(b *client.Blob) string { return b.FileFormat }),
		builders.StateField("STATE", func(b *client.Blob) string { return b.State }),
		builders.Field("REFS", func(b *client.Blob) string { return strconv.Itoa(b.ReferenceCount) }),
		builders.Field("INSTANCES", func(b *client.Blob) string { return strings.Join(b.Instances, ",") }),
	},
	Raw: func(b *client.Blob) json.RawMessage { return cmdutil.RawOf(b.Raw, b) },
}

// NewCmdVersions builds `shakectl artifact versions`.
func NewCmdVersions(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefListCmd(f, versionResource, builders.RefListSpec[client.Blob]{
		Use: "versions", Arg: "ARTIFACT", Short: "List an artifact's versions",
		Long: `List the versions of an artifact, oldest first: each one's index, its blob,
size, format, state, reference count and the instances using it. -o json
prints the server's blob views, each with its "index".`,
		Example:  `  shakectl artifact versions debian-12.qcow2`,
		Complete: complete.ArtifactNames(f),
		Fetch:    (*client.Client).ArtifactVersions,
	})
}
