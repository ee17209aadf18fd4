package outfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// claimRename is renamex_np(2) with RENAME_EXCL (macOS 10.12; APFS and
// HFS+): one atomic step that fails with EEXIST if path exists. A file
// system that does not support the flag answers ENOTSUP.
func claimRename(tmp, path string) error {
	err := unix.RenamexNp(tmp, path, unix.RENAME_EXCL)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return errNoRenameNoReplace
	}
	return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
}
