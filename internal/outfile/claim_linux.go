package outfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// claimRename is renameat2(2) with RENAME_NOREPLACE (Linux 3.15; ext4, xfs,
// btrfs, tmpfs, overlayfs...): one atomic step that fails with EEXIST if
// path exists, whatever it is. A file system that does not support the flag
// answers EINVAL.
func claimRename(tmp, path string) error {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return errNoRenameNoReplace
	}
	return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
}
