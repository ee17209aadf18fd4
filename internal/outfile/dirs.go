package outfile

import (
	"fmt"
	"os"
)

// MkdirAll makes dir and its missing parents with mode perm (narrowed by
// the umask), as os.MkdirAll does; an existing directory is left as it is.
// The directories a write needs (a backup's blobs, the config file's) are
// made here, by the writer.
func MkdirAll(dir string, perm os.FileMode) error {
	return os.MkdirAll(dir, perm)
}

// Scratch is a private directory of this process's own (mode 0700, under
// the system's temporary directory) for files handed to another program (a
// console file for a viewer, the demo's image); Remove deletes it with
// everything in it.
type Scratch struct{ Dir string }

// NewScratch makes a scratch directory whose name starts with prefix.
func NewScratch(prefix string) (*Scratch, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	return &Scratch{Dir: dir}, nil
}

// WriteFile writes data as the new file name (a plain name: Scratch makes
// no subdirectories) with mode perm, and returns its path. A name written
// before is refused: nothing in a scratch directory is replaced.
func (s *Scratch) WriteFile(name string, data []byte, perm os.FileMode) (path string, err error) {
	if why := PlainNameProblem(name); why != "" {
		return "", fmt.Errorf("scratch file %s: %s", Quote(name), why)
	}
	path = s.Dir + string(os.PathSeparator) + name
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return path, nil
}

// Remove deletes the scratch directory and everything in it.
func (s *Scratch) Remove() error { return os.RemoveAll(s.Dir) }
