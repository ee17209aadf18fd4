package artifact

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/transfer"
)

// NewCmdUpload builds `shakectl artifact upload`.
func NewCmdUpload(f *cmdutil.Factory) *cobra.Command {
	var (
		req      client.ArtifactUploadRequest
		resume   string
		reupload bool
	)
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "upload",
		Short: "Upload a file as a new version of the artifact NAME",
		Long: `Upload FILE and make it the newest version of the artifact NAME (created if
new; its source URL is sf://upload/NAMESPACE/NAME unless --source-url says
otherwise), then print the artifact.

shakectl first reads FILE once for its sha512. When the cluster already
holds a blob with that checksum (servers with blob-search-by-hash), it says
so and makes that blob the new version instead of sending the file again;
--reupload sends it anyway.

The upload goes in chunks of at most 2 MiB, in constant memory whatever
the file's size, with a progress bar on a terminal (JSON lines on stderr
with -o json, nothing when piped or with --quiet). A chunk that fails is
checked against what the server holds and sent again. At the end, the
blob's sha512 as the server computed it is compared with the file's; a
mismatch fails (exit 1).

An interrupted upload (Ctrl-C: exit 130, or a failure) stays on the server,
which has no way to abandon one: shakectl prints its UUID, and
--resume UUID goes on from the bytes the server holds rather than starting
again.`,
		Example: `  shakectl artifact upload ci-image ./disk.qcow2
  shakectl artifact upload ci-image ./disk.qcow2 --resume 0c4a3c9e-8e1f-4b8e-9a51-2b7c3d4e5f60
  shakectl artifact upload base ./base.qcow2 --shared -o json`,
	}, func(s *cmdutil.Session, args []string) error {
		name, path := args[0], args[1]
		if containsSlash(name) {
			return cmdutil.UsageErrorf("NAME %q holds a /; an artifact name may not (the server's route cannot carry it)", name)
		}
		file, size, err := transfer.OpenUpload(path)
		if err != nil {
			return err
		}
		defer file.Close()

		a, err := transfer.UploadFile(s, name, file, path, size, req, resume, reupload,
			func(id string) string {
				return fmt.Sprintf("shakectl artifact upload %s %s --resume %s", name, path, id)
			})
		if err != nil {
			return err
		}
		return s.PrintDetail(artifactResource.Detail(a))
	})
	builders.Args(c, "NAME FILE", nil, complete.Files)
	c.Flags().StringVar(&req.SourceURL, "source-url", "", "the artifact's source URL (default sf://upload/NAMESPACE/NAME)")
	c.Flags().StringVar(&req.SourceURL, "source_url", "", "sf-client's spelling of --source-url")
	cmdutil.Must(c.Flags().MarkHidden("source_url"))
	c.Flags().BoolVar(&req.Shared, "shared", false, "share the artifact with every namespace (system only)")
	c.Flags().StringVar(&req.Namespace, "namespace", "", "the namespace to hold the artifact")
	c.Flags().StringVar(&resume, "resume", "", "go on with this interrupted upload instead of starting a new one")
	c.Flags().BoolVar(&reupload, "reupload", false, "send the file even when the cluster holds a blob with its checksum")
	cmdutil.Must(c.RegisterFlagCompletionFunc("namespace", complete.NamespaceNames(f)))
	return c
}

func containsSlash(s string) bool {
	for _, r := range s {
		if r == '/' {
			return true
		}
	}
	return false
}
