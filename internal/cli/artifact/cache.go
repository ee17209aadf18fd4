package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdCache builds `shakectl artifact cache`.
func NewCmdCache(f *cmdutil.Factory) *cobra.Command {
	var (
		shared    bool
		namespace string
	)
	c := &cobra.Command{
		Use:   "cache URL",
		Short: "Have the cluster fetch an image from a URL",
		Long: `Ask the cluster to fetch the image at URL into an artifact (created if new,
the existing one otherwise) and print the artifact. The fetch runs on the
cluster after the answer: the artifact may still be "initial"; artifact
show tells when it is "created". Only the system namespace may make
shared artifacts (--shared).`,
		Example: `  shakectl artifact cache https://images.example/debian-12.qcow2
  shakectl artifact cache debian:12 --shared`,
		Args:              cmdutil.RefArgs("URL"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Client.CacheArtifact(s.Ctx, args[0], shared, namespace)
			if err != nil {
				return err
			}
			return s.PrintDetail(artifactResource.Detail(a))
		},
	}
	c.Flags().BoolVar(&shared, "shared", false, "share the artifact with every namespace (system only)")
	c.Flags().StringVar(&namespace, "namespace", "", "the namespace to hold the artifact")
	cmdutil.Must(c.RegisterFlagCompletionFunc("namespace", cmdutil.CompleteNamespaceNames(f)))
	return c
}
