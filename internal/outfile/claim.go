package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// claim gives the complete temporary file tmp the name path, only if
// nothing has that name: never replacing, never following a symbolic link
// found there. It is the system's own no-replace rename where there is one
// (claimRename, per platform: a single atomic step); a file system that
// lacks it gets linkClaim, then copyClaim. An error that wraps
// fs.ErrExist means path was taken, and tmp is still there.
func claim(tmp, path string) error {
	err := claimRename(tmp, path)
	if !errors.Is(err, errNoRenameNoReplace) {
		return err
	}
	return linkClaim(tmp, path)
}

// errNoRenameNoReplace is claimRename's answer where the system or the file
// system has no rename that refuses to replace.
var errNoRenameNoReplace = errors.New("no rename without replace here")

// linkClaim is claim by link(2), which never replaces its new name nor
// follows a symbolic link there, then the temporary name's removal: atomic
// too, as the file is complete under both names before either changes. A
// file system without hard links (FAT, some network and FUSE mounts) gets
// copyClaim.
func linkClaim(tmp, path string) error {
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		return os.Remove(tmp)
	case errors.Is(err, fs.ErrExist):
		return err
	}
	// Which errno a file system without links answers varies (EPERM,
	// ENOTSUP, EOPNOTSUPP, EMLINK...): whatever it is, an exclusive create
	// of the name says whether it is free.
	return copyClaim(tmp, path)
}

// copyClaim is claim's last resort: path created exclusively (O_EXCL, which
// fails on a symbolic link as on a file) and tmp's bytes copied into it.
// path never replaces anything, but is visible before it is complete; a
// failed copy removes it (it is ours: O_EXCL made it).
func copyClaim(tmp, path string) (err error) {
	src, err := os.Open(tmp)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dst.Close()
			os.Remove(path)
		}
	}()
	if _, err = io.Copy(dst, src); err != nil {
		return err
	}
	if err = dst.Chmod(st.Mode().Perm()); err != nil {
		return err
	}
	if err = dst.Sync(); err != nil {
		return err
	}
	if err = dst.Close(); err != nil {
		return err
	}
	return os.Remove(tmp)
}
