// Package atomicfile writes files that a reader (or a crash) never sees
// half-written: the probe's --out and --plot, and the config file the
// context commands edit.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file in the same directory, synced
// and renamed into place, with the given mode. The temporary file is 0600
// from its creation (os.CreateTemp), so a file meant to stay private (a
// config holding a key) is never readable by others, not even half-written.
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
