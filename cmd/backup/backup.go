// Package backup holds `shakectl backup`: a copy of the cluster's
// artifacts and their blobs (sf-client's backup create, client-python
// 6c25293c commandline/backup.py).
package backup

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/transfer"
	"github.com/shakenfist/shakectl/internal/outfile"
	"github.com/shakenfist/shakectl/output"
)

// NewCmd groups the backup commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return builders.NewGroupCmd(builders.GroupSpec{
		Noun:    "backup",
		Short:   "Back up the cluster's artifacts and blobs",
		Example: "  shakectl backup create /srv/backup/2026-12-01/summary.json",
	}, NewCmdCreate(f))
}

// summary is the backup's index, as sf-client writes it: every artifact's
// view by UUID, and every blob's view by UUID (null for a blob an
// artifact names that the blob list lacks).
type summary struct {
	Artifacts map[string]json.RawMessage `json:"artifacts"`
	Blobs     map[string]json.RawMessage `json:"blobs"`
}

// NewCmdCreate builds `shakectl backup create`.
func NewCmdCreate(f *cmdutil.Factory) *cobra.Command {
	var (
		blobsDir string
		clobber  bool
	)
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "create", Short: "Back up every artifact and blob to a directory",
		Long: `Copy the cluster's artifacts and blobs (admin only: GET /blobs needs the
system namespace): every blob's bytes into --blobs-dir (default: "blobs"
beside DEST), one file named by the blob's UUID, then an index of every
artifact and blob (their views, by UUID, as sf-client writes it) to DEST
(a file, or a directory to hold summary.json).

Each blob is downloaded as "artifact download" does: streamed in bounded
memory, reopened at the offset reached when a connection drops, checked
against the blob's size and sha512, and written under a temporary name that
becomes the blob's file only once complete and verified, so an interrupted
backup leaves no partial file. Run the same command again to resume: a blob
whose file is there with the right size is not fetched again. A progress
bar shows on a terminal.

DEST is written last, so it exists only for a complete backup. It is not
replaced if it exists, unless --clobber is given, nor if it appears while
the backup runs (another backup to the same DEST: one of the two fails,
exit 1); a blob file is never replaced, not even with --clobber (one of the
wrong size stops the backup). DEST "-" is refused (exit 2): the blobs go
in files beside it, which stdout cannot hold; so is --blobs-dir "-". Blobs
that are not "created" cannot be read and are listed in the index only
(said on stderr).

Blob files are named by the UUIDs the server sends, which must be UUIDs:
any other name ("../../x", a name with "/", a control character, 300
characters) is refused (exit 1), naming it, before anything is written.`,
		Example: `  cd /srv/backup/$(date +%F) && shakectl backup create summary.json
  shakectl backup create /srv/backup/summary.json --blobs-dir /srv/backup/blobs -o json`,
	}, func(s *cmdutil.Session, args []string) error {
		if args[0] == outfile.Stdout {
			return cmdutil.UsageErrorf("DEST must be a file: the blobs go beside it")
		}
		if blobsDir == outfile.Stdout {
			return cmdutil.UsageErrorf("--blobs-dir must be a directory: the blobs are files, which stdout cannot hold")
		}
		// As every download: the umask decides a new file's mode.
		out, err := transfer.DownloadDest(args[0], "summary.json", 0o666, clobber)
		if err != nil {
			return err
		}
		if blobsDir == "" {
			blobsDir = filepath.Join(filepath.Dir(out.Arg), "blobs")
		}
		return create(s, out, blobsDir)
	})
	builders.Args(c, "DEST", complete.Files)
	c.Flags().StringVar(&blobsDir, "blobs-dir", "", `where the blob files go (default "blobs" beside DEST; sf-client: ./blobs)`)
	transfer.AddClobberFlag(c, &clobber)
	cmdutil.Must(c.MarkFlagDirname("blobs-dir"))
	return c
}

// result counts what a backup did.
type result struct {
	Summary    string `json:"summary"`
	BlobsDir   string `json:"blobs_dir"`
	Artifacts  int    `json:"artifacts"`
	Blobs      int    `json:"blobs"`
	Downloaded int    `json:"downloaded"`
	AlreadyHad int    `json:"already_had"`
	Skipped    int    `json:"skipped"`
	Bytes      int64  `json:"bytes"`
}

func create(s *cmdutil.Session, out *outfile.Path, blobsDir string) error {
	artifacts, err := s.Client.ListArtifacts(s.Ctx, false)
	if err != nil {
		return err
	}
	blobs, err := s.Client.ListBlobs(s.Ctx, false)
	if err != nil {
		return err
	}
	sum := summary{Artifacts: map[string]json.RawMessage{}, Blobs: map[string]json.RawMessage{}}
	for _, a := range artifacts {
		sum.Artifacts[a.UUID] = cmdutil.RawOf(a.Raw, a)
		for _, b := range a.Blobs {
			sum.Blobs[b.UUID] = json.RawMessage("null")
		}
	}
	byUUID := map[string]client.Blob{}
	for _, b := range blobs {
		sum.Blobs[b.UUID] = cmdutil.RawOf(b.Raw, b)
		byUUID[b.UUID] = b
	}
	uuids := make([]string, 0, len(sum.Blobs))
	for u := range sum.Blobs {
		uuids = append(uuids, u)
	}
	sort.Strings(uuids)
	// Every blob's name (the blob list's and the artifacts' versions'),
	// before anything is written: a blob file is named by it
	// ("../../PWNED1" once wrote ./PWNED1).
	for _, u := range uuids {
		if err := transfer.CheckBlobName(u); err != nil {
			return err
		}
	}
	if err := outfile.MkdirAll(blobsDir, 0o700); err != nil {
		return err
	}
	res := result{Summary: out.Arg, BlobsDir: blobsDir, Artifacts: len(sum.Artifacts), Blobs: len(sum.Blobs)}
	for _, u := range uuids {
		b, listed := byUUID[u]
		if !listed || b.State != "created" {
			state := "not in the blob list"
			if listed {
				state = "in state " + b.State
			}
			s.Note("blob_skipped", "blob %s is %s: not copied", u, state)
			res.Skipped++
			continue
		}
		path, err := outfile.ServerName(blobsDir, "blob", u, outfile.UUIDName)
		if err != nil {
			return err
		}
		if st, err := os.Stat(path); err == nil {
			if !st.Mode().IsRegular() || st.Size() != b.Size {
				return fmt.Errorf("%s is there but is not blob %s (%d bytes, the blob has %d): move it away and run the backup again", path, u, st.Size(), b.Size)
			}
			res.AlreadyHad++
			continue
		}
		// A blob file is never replaced, --clobber or not: one that
		// appears while the blob is fetched (another backup) stops this one.
		blobOut, err := outfile.CheckNew("blob file", path, 0o666, false)
		if err != nil {
			return err
		}
		_, n, err := transfer.DownloadBlobTo(s, u, b.Size, b.WantSHA512(), blobOut)
		if err != nil {
			return err
		}
		res.Downloaded++
		res.Bytes += n
	}
	index, err := json.MarshalIndent(sum, "", "    ")
	if err != nil {
		return err
	}
	if err := out.Write(s.Ctx, nil, nil, func(w io.Writer) error {
		_, err := w.Write(append(index, '\n'))
		return err
	}); err != nil {
		return err
	}
	return s.PrintDetail(output.Detail{Raw: cmdutil.RawOf(nil, res), Fields: []output.Field{
		{Name: "summary", Value: res.Summary},
		{Name: "blobs_dir", Value: res.BlobsDir},
		{Name: "artifacts", Value: strconv.Itoa(res.Artifacts)},
		{Name: "blobs", Value: strconv.Itoa(res.Blobs)},
		{Name: "downloaded", Value: strconv.Itoa(res.Downloaded)},
		{Name: "already_had", Value: strconv.Itoa(res.AlreadyHad)},
		{Name: "skipped", Value: strconv.Itoa(res.Skipped)},
		{Name: "bytes", Value: strconv.FormatInt(res.Bytes, 10)},
	}})
}
