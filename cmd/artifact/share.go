package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdShare builds `shakectl artifact share`.
func NewCmdShare(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefDetailCmd(f, artifactResource, builders.RefDetailSpec[client.Artifact]{
		Use: "share", Arg: "ARTIFACT", Short: "Share an artifact",
		Long: `Share an artifact with every namespace and print it. Only an artifact of the
system namespace may be shared (403, exit 4, otherwise).`,
		Example:  `  shakectl artifact share debian-12.qcow2`,
		Complete: complete.ArtifactNames(f),
		Call:     (*client.Client).ShareArtifact,
	})
}
