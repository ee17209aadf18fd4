package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/transfer"
)

// NewCmdScreenshot builds `shakectl instance screenshot`, sf-client's
// `instance screenshot INSTANCE DESTINATION` (client-python
// commandline/instance.py; no flags there either).
func NewCmdScreenshot(f *cmdutil.Factory) *cobra.Command {
	var clobber bool
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "screenshot",
		Short: "Save a screenshot of an instance's console",
		Long: `Ask the server for a screenshot of the instance's console and save it at
DESTINATION (a file, "-" for stdout, or a directory to hold INSTANCE.png;
an existing file is replaced only with --clobber, as every download). The server
captures the console into a new blob and answers its UUID (shakenfist
da448b1a InstanceScreenshotEndpoint); shakectl then streams the blob as
artifact download does, checked against its size and sha512 where the
server reports one, and renamed to DESTINATION only when complete. The
image's format is the hypervisor's (libvirt's screenshot; PNG from the
simulator). An instance that is not created is refused (406).`,
		Example: `  shakectl instance screenshot web1 ./web1.png`,
	}, func(s *cmdutil.Session, args []string) error {
		out, err := transfer.DownloadDest(args[1], args[0]+".png", 0o666, clobber)
		if err != nil {
			return err
		}

		blob, err := s.Client.InstanceScreenshot(s.Ctx, args[0])
		if err != nil {
			return err
		}
		b, err := s.Client.GetBlob(s.Ctx, blob)
		if err != nil {
			return err
		}
		if _, _, err := transfer.DownloadBlobTo(s, b.UUID, b.Size, b.WantSHA512(), out); err != nil {
			return err
		}
		if !out.IsStdout() {
			s.Note("saved", "screenshot of instance %s is %s (blob %s, %d bytes)", args[0], out.Arg, b.UUID, b.Size)
		}
		return nil
	})
	builders.Args(c, "INSTANCE DESTINATION", complete.InstanceNames(f))
	transfer.AddClobberFlag(c, &clobber)
	return c
}
