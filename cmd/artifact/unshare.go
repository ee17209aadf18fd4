package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdUnshare builds `shakectl artifact unshare`.
func NewCmdUnshare(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefDetailCmd(f, artifactResource, builders.RefDetailSpec[client.Artifact]{
		Use: "unshare", Arg: "ARTIFACT", Short: "Unshare an artifact",
		Long: `Stop sharing an artifact and print it. An artifact that is not shared is
refused (403 "artifact not shared", exit 4).`,
		Example:  `  shakectl artifact unshare debian-12.qcow2`,
		Complete: complete.ArtifactNames(f),
		Call:     (*client.Client).UnshareArtifact,
	})
}
