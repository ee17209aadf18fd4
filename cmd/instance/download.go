package instance

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/transfer"
)

// NewCmdDownload builds `shakectl instance download`.
func NewCmdDownload(f *cmdutil.Factory) *cobra.Command {
	var af agentFlags
	var clobber bool
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "download",
		Short: "Copy a file out of an instance through its agent",
		Long: `Copy the file SOURCE inside the instance to the local DEST (a file, "-" for
stdout, or a directory to hold SOURCE's base name; an existing file is
replaced only with --clobber). The agent sends the file back as a
blob (sf-client reads results["0"]["content_blob"]); shakectl then
streams it as artifact download does: constant memory, a progress bar on
a terminal, checked against the blob's size and sha512 where the server
reports one, and renamed to DEST only when complete (an interrupted
download, exit 130, leaves nothing under DEST's name).

` + transfer.DestHelp + `

--deadline and --progress-timeout bound the agent's operation on 2026
servers (expired: exit 124 with the reason); a 2024 server is refused them
before anything is sent.`,
		Example: `  shakectl instance download ci1 /var/log/test.log ./test.log
  shakectl instance download ci1 /var/log/test.log - | grep -c FAIL`,
	}, func(s *cmdutil.Session, args []string) error {
		start := time.Now()
		t, err := af.request(s.F.Command)
		if err != nil {
			return err
		}
		out, err := transfer.DownloadDest(args[2], args[1], 0o666, clobber)
		if err != nil {
			return err
		}

		op, err := s.Client.InstanceGet(s.Ctx, args[0], args[1], t)
		if err != nil {
			return err
		}
		if op, err = awaitAgentOp(s, start, op, af.poll); err != nil {
			return err
		}
		res, ok := op.Results["0"]
		if !ok || res.Failed() || res.ContentBlob == "" {
			why := res.Message
			if why == "" {
				why = "the results did not include content"
			}
			return fmt.Errorf("agent operation %s: cannot fetch %s: %s", op.UUID, args[1], why)
		}
		if err := transfer.CheckBlobName(res.ContentBlob); err != nil {
			return err
		}
		b, err := s.Client.GetBlob(s.Ctx, res.ContentBlob)
		if err != nil {
			return err
		}
		if _, _, err := transfer.DownloadBlobTo(s, b.UUID, b.Size, b.WantSHA512(), out); err != nil {
			return err
		}
		if !out.IsStdout() {
			s.Note("saved", "%s of instance %s is %s", args[1], args[0], out.Arg)
		}
		return nil
	})
	builders.Args(c, "INSTANCE SOURCE DEST", complete.InstanceNames(f))
	af.add(c)
	transfer.AddClobberFlag(c, &clobber)
	return c
}
