package artifact

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/transfer"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdDownload builds `shakectl artifact download`.
func NewCmdDownload(f *cmdutil.Factory) *cobra.Command {
	var clobber bool
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "download",
		Short: "Download an artifact's newest version to a file",
		Long: `Download the newest version of ARTIFACT to DEST (a file, "-" for stdout, or a
directory to hold a file named ARTIFACT as you typed it, never a name the
server sends), then print what was written, its path included (nothing
with "-": stdout is the file's, and -o json, -o yaml and --jq are
refused with it). An existing file is replaced only with --clobber.

The download streams in constant memory, with a progress bar on a
terminal (JSON lines on stderr with -o json, nothing when piped or with
--quiet). A connection that drops is reopened at the offset reached. The
bytes are checked against the blob's size and, where the server reports
one, its sha512; a mismatch fails (exit 1). A blob without a sha512 (a
2024 server computes it some time after the blob is made) is downloaded,
with a warning on stderr that only its size was checked.

The file is written beside DEST under a temporary name and renamed to DEST
only once complete and verified: an interrupted download (Ctrl-C: exit
130) or a failed one leaves nothing under DEST's name, and an existing DEST
(with --clobber) is replaced only by a complete file.

` + transfer.DestHelp + `

The blob UUIDs the server names must be UUIDs: any other name is refused
(exit 1) before anything is written.`,
		Example: `  shakectl artifact download ci-image ./disk.qcow2
  shakectl artifact download debian-12.qcow2 /var/tmp/ -o json
  shakectl artifact download ci-image - | sha512sum`,
	}, func(s *cmdutil.Session, args []string) error {
		out, err := transfer.DownloadDest(args[1], args[0], 0o666, clobber)
		if err != nil {
			return err
		}
		if out.IsStdout() && (s.Cfg.Output == output.FormatJSON || s.Cfg.Output == output.FormatYAML) {
			return cmdutil.UsageErrorf("DEST - writes the artifact's bytes to stdout; -o %s (or --jq) would print the result there too: give DEST a file name", s.Cfg.Output)
		}

		a, err := s.Client.GetArtifact(s.Ctx, args[0])
		if err != nil {
			return err
		}
		cur, ok := a.CurrentBlob()
		if a.BlobUUID == "" || !ok {
			return fmt.Errorf("artifact %s has no versions to download", args[0])
		}
		if err := transfer.CheckBlobName(cur.UUID); err != nil {
			return err
		}
		b, err := s.Client.GetBlob(s.Ctx, cur.UUID)
		if err != nil {
			return err
		}
		want := b.WantSHA512()
		got, n, err := transfer.DownloadBlobTo(s, cur.UUID, b.Size, want, out)
		if err != nil || out.IsStdout() {
			return err
		}
		return s.PrintDetail(downloadDetail(a, cur.UUID, out.Arg, n, got, want != ""))
	})
	builders.Args(c, "ARTIFACT DEST", complete.ArtifactNames(f), complete.Files)
	transfer.AddClobberFlag(c, &clobber)
	return c
}

func downloadDetail(a *client.Artifact, blobUUID, dest string, n int64, sum string, verified bool) output.Detail {
	raw, _ := json.Marshal(map[string]any{"artifact": a.UUID, "name": a.Name(), "index": a.Index, "blob_uuid": blobUUID,
		"path": dest, "bytes": n, "sha512": sum, "sha512_verified": verified})
	return output.Detail{Raw: raw, Fields: []output.Field{
		{Name: "artifact", Value: a.UUID},
		{Name: "name", Value: a.Name()},
		{Name: "index", Value: strconv.Itoa(a.Index)},
		{Name: "blob_uuid", Value: blobUUID},
		{Name: "path", Value: dest},
		{Name: "bytes", Value: strconv.FormatInt(n, 10)},
		{Name: "sha512", Value: sum},
		{Name: "sha512_verified", Value: builders.YesNo(verified)},
	}}
}
