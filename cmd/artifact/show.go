package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdShow builds `shakectl artifact show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return builders.NewShowCmd(f, artifactResource, builders.ShowSpec[client.Artifact]{
		Arg: "ARTIFACT", Short: "Show one artifact and its versions",
		Long: `Show an artifact, named by UUID or name: its type, state, source URL, the
current version's blob, and each version (index, blob, size, and the
instances using it).`,
		Example:  `  shakectl artifact show debian-12.qcow2`,
		Complete: complete.ArtifactNames(f),
		Get:      (*client.Client).GetArtifact,
	})
}
