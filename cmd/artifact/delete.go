package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDelete builds `shakectl artifact delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefDetailCmd(f, artifactResource, builders.RefDetailSpec[client.Artifact]{
		Use: "delete", Arg: "ARTIFACT", Short: "Delete an artifact",
		Long: `Delete an artifact, named by UUID or name, and print it as the server
leaves it ("deleted"). Deleting is immediate: artifacts have no deletion
task to wait for (shakenfist da448b1a ArtifactEndpoint.delete). One that
was already deleted prints nothing and says so on stderr.`,
		Example:  `  shakectl artifact delete debian-12.qcow2`,
		Complete: complete.ArtifactNames(f),
		Call:     (*client.Client).DeleteArtifact,
		Gone:     "artifact",
	})
}
