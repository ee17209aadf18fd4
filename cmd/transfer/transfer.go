// Package transfer is the plumbing of the commands that move files to and
// from the cluster (artifact and instance upload and download, screenshots,
// backups): progress, the one naming rule of a download's destination, the
// verified download and the resumable upload.
package transfer

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/shakenfist/shakectl/cmd/cmdutil"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/outfile"
	"github.com/shakenfist/shakectl/internal/progress"
	"github.com/shakenfist/shakectl/output/termtext"
)

// TransferMeter starts the progress report of a transfer on stderr (the
// notifier's Meter): a bar on a terminal, JSON lines with -o json, nothing
// when piped or --quiet.
func TransferMeter(s *cmdutil.Session, op, name string, total, from int64) *progress.Meter {
	return s.F.IOStreams.Notifier().Meter(op, name, total, from, s.F.Now)
}

// DownloadDest is the one naming rule for downloads, and the checked
// output a download writes, decided before anything is asked of the
// server.
//
// DEST is a file, "-" for standard output, or a directory to hold a file
// called name, which the caller takes from what the user typed (the
// ARTIFACT argument, SOURCE's base name, INSTANCE.png), never from the
// server: an artifact's name is the last segment of a source URL its owner
// chose, and a shared artifact's owner is another namespace (".bashrc"
// replaced DIR/.bashrc).
//
// The file is written through internal/outfile's one writer: an existing
// regular file (a symlink's target included) is replaced only with
// --clobber, as `gh release download` does, and without it the name is
// claimed at the end without replacing, so a file or a symbolic link that
// appears at DEST while the bytes arrive (another download) is neither
// replaced nor followed; a device or a FIFO is written in place. perm is a
// new file's mode before the umask: 0o666 for a download (the user's umask
// decides, as cp and curl -o), 0o600 for a file holding a secret.
func DownloadDest(dest, name string, perm os.FileMode, clobber bool) (*outfile.Path, error) {
	path := dest
	// "-" is stdout, even where a directory is named "-".
	if st, err := os.Stat(dest); err == nil && st.IsDir() && dest != outfile.Stdout {
		base := filepath.Base(name)
		if why := outfile.PlainNameProblem(base); why != "" {
			return nil, cmdutil.UsageErrorf("cannot name a file in %s after %s (%s): give DEST as a file path", dest, outfile.Quote(name), why)
		}
		path = filepath.Join(dest, base)
	}
	return outfile.CheckNew("DEST", path, perm, clobber)
}

// AddClobberFlag adds a download's --clobber.
func AddClobberFlag(c *cobra.Command, clobber *bool) {
	c.Flags().BoolVar(clobber, "clobber", false, "replace the file DEST names (or the one in DEST) if it exists")
}

// DestHelp is what a download's --help says of DEST "-" and of an existing
// DEST, in every download's words.
const DestHelp = `DEST "-" is standard output: the bytes alone, as they arrive (a checksum
that does not match is found at the end: exit 1, after the bytes were
written). An existing file is never replaced without --clobber, not even
one that appears while the download runs (another download to the same
DEST): the download then fails (exit 1), the file there is kept, and the
message names the temporary file beside it that holds what was downloaded.`

// CheckBlobName refuses a blob UUID the server sent that is not a UUID
// (outfile.CheckServerName): it names the blob in a URL's path, and in a
// backup a file.
func CheckBlobName(blobUUID string) error {
	return outfile.CheckServerName("blob", blobUUID, outfile.UUIDName)
}

// DownloadBlobTo streams the blob to out (DownloadDest's) and returns the
// bytes' sha512.
//
// out goes through outfile's one writer, as
// --out and the config file do: a regular file (or a new name) is written
// beside DEST under a temporary name and renamed to it only once complete
// and its sha512 is want (when want is known), so an interrupted or corrupt
// download leaves DEST as it was; a symbolic link is followed and the file
// it points to written, so the link stays a link; a device or FIFO is
// written in place; "-" is stdout. Renaming a temporary file over DEST
// whatever it was (before) replaced /dev/null with a regular file when run
// as root, turned a symlink into a file and left a FIFO's reader with
// nothing.
func DownloadBlobTo(s *cmdutil.Session, blobUUID string, size int64, want string, out *outfile.Path) (sum string, n int64, err error) {
	if err := CheckBlobName(blobUUID); err != nil {
		return "", 0, err
	}
	err = out.Write(s.Ctx, s.F.IOStreams.Out, nil, func(w io.Writer) error {
		h := sha512.New()
		m := TransferMeter(s, "download", out.Arg, size, 0)
		var derr error
		n, derr = s.Client.DownloadBlob(s.Ctx, blobUUID, size, io.MultiWriter(w, h), client.DownloadBlobOptions{Progress: m.Update})
		m.Finish(n, derr == nil)
		if derr != nil {
			return derr
		}
		sum = hex.EncodeToString(h.Sum(nil))
		if want != "" && want != sum {
			written := "nothing was written to " + out.Arg
			if out.IsStdout() {
				written = "the bytes were written to stdout"
			}
			return fmt.Errorf("blob %s: the server reports sha512 %s, the bytes received have %s; %s", blobUUID, want, sum, written)
		}
		return nil
	})
	if err != nil {
		return "", n, err
	}
	if want == "" {
		// Nothing to verify against (the server has not computed it yet,
		// or a server left it out): said, never silently "verified no".
		where := out.Arg
		if out.IsStdout() {
			where = "stdout"
		}
		s.Warn("blob %s has no sha512 on the server: the %d bytes written to %s were checked against its size only", blobUUID, n, where)
	}
	return sum, n, nil
}

// OpenUpload opens the regular file to upload and returns its size.
//
// Anything else is refused before it is opened: opening a FIFO waits for a
// writer, deaf to Ctrl-C and SIGTERM (scripts/hostile.sh found `artifact
// upload NAME FIFO` and `instance upload` needing SIGKILL), and an upload
// needs a size that only a regular file has.
func OpenUpload(path string) (*os.File, int64, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, 0, cmdutil.UsageErrorf("FILE %q is not a regular file", path)
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, 0, cmdutil.UsageErrorf("FILE: %v", err)
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		file.Close()
		return nil, 0, cmdutil.UsageErrorf("FILE %q is not a regular file", path)
	}
	return file, st.Size(), nil
}

// UploadFile makes the file the newest version of the artifact name: the
// blob the cluster already holds with its sha512 (unless reupload or a
// resume), else a chunked upload, new or resumed, verified at the end.
// resumeCmd names the command line that resumes an interrupted upload.
func UploadFile(s *cmdutil.Session, name string, file *os.File, path string, size int64, req client.ArtifactUploadRequest, resume string, reupload bool, resumeCmd func(id string) string) (*client.Artifact, error) {
	sumMeter := TransferMeter(s, "checksum", path, size, 0)
	sum, err := client.FileSHA512(s.Ctx, file, sumMeter.Update)
	sumMeter.Finish(size, err == nil)
	if err != nil {
		return nil, err
	}
	if resume == "" && !reupload && s.Client.HasCapability(s.Ctx, "blob-search-by-hash") {
		b, err := s.Client.BlobBySHA512(s.Ctx, sum)
		if err != nil {
			return nil, err
		}
		if b != nil {
			s.Note("already_held", "the cluster already holds this file (blob %s, sha512 %s…); not sending it again", b.UUID, sum[:16])
			r := req
			r.BlobUUID = b.UUID
			a, err := s.Client.ArtifactFromUpload(s.Ctx, name, r)
			if err != nil {
				return nil, err
			}
			return a, nil
		}
	}

	id, from := resume, int64(0)
	if id == "" {
		u, err := s.Client.CreateUpload(s.Ctx)
		if err != nil {
			return nil, err
		}
		id = u.UUID
	} else {
		if from, err = s.Client.UploadSize(s.Ctx, id); err != nil {
			return nil, err
		}
		if from > size {
			return nil, fmt.Errorf("upload %s holds %d bytes, more than %s's %d: not an upload of this file", id, from, path, size)
		}
		s.Note("resuming", "resuming upload %s at %d of %d bytes", id, from, size)
	}
	m := TransferMeter(s, "upload", path, size, from)
	held, err := s.Client.SendUploadFile(s.Ctx, id, file, size, client.UploadFileOptions{From: from, Progress: m.Update})
	m.Finish(held, err == nil)
	if err != nil {
		// id is the server's: one line, so it cannot forge another.
		s.F.IOStreams.Notifier().Block("upload_stopped", fmt.Sprintf("upload %s stopped at %d of %d bytes; the server keeps it. Resume with:\n  %s",
			termtext.Line(id), held, size, termtext.Line(resumeCmd(id))))
		return nil, err
	}
	r := req
	r.UploadUUID = id
	a, err := s.Client.ArtifactFromUpload(s.Ctx, name, r)
	if err != nil {
		return nil, err
	}
	if b, err := s.Client.GetBlob(s.Ctx, a.BlobUUID); err == nil && b.SHA512 != nil && *b.SHA512 != "" && *b.SHA512 != sum {
		return nil, fmt.Errorf("the server's blob %s has sha512 %s, the file %s: the upload is corrupt", b.UUID, *b.SHA512, sum)
	}
	return a, nil
}
