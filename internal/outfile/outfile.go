// Package outfile is shakectl's one writer of files: the files a
// user names for output (--out, --plot, the config file the context
// commands edit), every download (artifact, instance, screenshot, console
// file, backup), the directories they need and the private scratch files a
// viewer reads. A source scan (scan_test.go) fails on any other file write
// in shipped code. One rule for every path:
//
//   - "-" is standard output (CheckNew's callers that cannot use stdout
//     refuse it with a usage error that says why);
//   - anything that is not a regular file (a device, a FIFO, a terminal,
//     /dev/stdout) is written in place, never replaced: replacing /dev/null
//     with a regular file, as a rename over it does when run as root, breaks
//     the machine;
//   - a regular file, or a name not yet taken, is replaced atomically through
//     a temporary file in the same directory, so a reader or a crash never
//     sees it half-written;
//   - a symbolic link is followed and the file it points to is replaced (in
//     that file's directory), so a dotfile manager's link stays a link and
//     the real file is the one updated;
//   - every path is checked by Check before the command's work (a load test
//     of minutes) starts, so a directory, a missing parent or a directory
//     that refuses a new file fails at once instead of losing the result;
//   - a download (CheckNew) never replaces a file: one there at the start is
//     refused, and the final name is claimed without replacing (renameat2
//     RENAME_NOREPLACE, renamex_np RENAME_EXCL, MoveFileEx without
//     MOVEFILE_REPLACE_EXISTING, else link(2) or an O_EXCL create), so a file
//     or a symbolic link that appears while the bytes arrive (another
//     download, another backup) is neither replaced nor followed: the write
//     fails with a TakenError naming where the bytes were kept;
//   - a name a server sent (a blob's UUID) becomes a file name only through
//     ServerName, which refuses anything but a plain name of the promised
//     form.
package outfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stdout is the argument that names standard output.
const Stdout = "-"

type kind int

const (
	toStdout kind = iota // "-"
	inPlace              // a device, FIFO, terminal or /dev/stdout: opened and written
	replace              // a regular file or a new name: temporary file, then rename
)

// Path is an output a command has checked it can write.
type Path struct {
	Flag string // the flag that named it, for messages: "--out"
	Arg  string // as the user gave it

	kind   kind
	target string      // the file written: Arg with its symbolic links followed
	perm   os.FileMode // a replaced file keeps its mode; a new one gets the default
	exact  bool        // perm is the mode to set (an existing file's, Private's), not one the umask narrows
	fifo   bool
	keep   bool // never replace a file: claim the name at the end (CheckNew without clobber)
}

// Error is an output that cannot be written; it names the flag and the path.
type Error struct {
	Flag, Arg string
	Writing   bool // the write failed (else the check refused the path)
	Err       error
}

func (e *Error) Error() string {
	reason := e.Err.Error()
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		reason = pe.Err.Error()
	}
	if e.Writing {
		return fmt.Sprintf("writing %s %s: %s", e.Flag, e.Arg, reason)
	}
	return fmt.Sprintf("cannot write %s %s: %s", e.Flag, e.Arg, reason)
}

func (e *Error) Unwrap() error { return e.Err }

// maxLinks bounds a chain of symbolic links, as the kernel's ELOOP does.
const maxLinks = 40

// Check resolves arg and checks that it can be written, without writing it:
// not a directory, its directory exists and takes a new file, a device or
// FIFO is writable. perm is the mode of a file that does not exist yet,
// narrowed by the umask as open(2) narrows it (0o666 for a download: the
// user's umask decides, as for any other program's new file); an existing
// file keeps its mode. An empty arg is no output (nil, nil).
func Check(flag, arg string, perm os.FileMode) (*Path, error) {
	return check(flag, arg, perm, false)
}

// CheckNew is Check for a download's DEST, which replaces no file unless
// clobber: a regular file already there (a symbolic link's target
// included) is refused now, with an error that names --clobber, and the
// written file takes the name only if nothing has taken it meanwhile (see
// TakenError). With clobber it is Check: an existing file is replaced
// atomically. A device or FIFO is written in place either way, which
// replaces nothing.
func CheckNew(flag, arg string, perm os.FileMode, clobber bool) (*Path, error) {
	return check(flag, arg, perm, !clobber)
}

// ExistsError is a download's DEST that holds a file already.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists: pass --clobber to replace it", e.Path)
}

func (e *ExistsError) Unwrap() error { return fs.ErrExist }

func check(flag, arg string, perm os.FileMode, keep bool) (*Path, error) {
	if arg == "" {
		return nil, nil
	}
	p := &Path{Flag: flag, Arg: arg, perm: perm, keep: keep}
	fail := func(err error) (*Path, error) { return nil, &Error{Flag: flag, Arg: arg, Err: err} }
	if arg == Stdout {
		p.kind = toStdout
		return p, nil
	}
	target, viaProc, err := resolve(arg)
	if err != nil {
		return fail(err)
	}
	p.target = target
	st, err := os.Stat(arg)
	switch {
	case err == nil && st.IsDir():
		return fail(errors.New("is a directory"))
	case err == nil && st.Mode()&fs.ModeSocket != 0:
		return fail(errors.New("is a socket"))
	case err == nil && (!st.Mode().IsRegular() || viaProc):
		// A device or FIFO; or a regular file reached through /dev/stdout
		// or /proc/self/fd, which is this process's own open file (a shell
		// redirection): replacing it would lose what was already written.
		p.kind, p.target = inPlace, arg
		p.fifo = st.Mode()&fs.ModeNamedPipe != 0
		if err := checkWritable(arg); err != nil {
			return fail(err)
		}
		return p, nil
	case err == nil && keep:
		return nil, &ExistsError{Path: arg}
	case err == nil:
		p.kind = replace
		p.perm, p.exact = st.Mode().Perm(), true
	case errors.Is(err, fs.ErrNotExist):
		p.kind = replace
	default:
		return fail(err)
	}
	if err := checkDir(filepath.Dir(target)); err != nil {
		return fail(err)
	}
	return p, nil
}

// IsStdout reports whether the output is standard output ("-").
func (p *Path) IsStdout() bool { return p.kind == toStdout }

// Private makes a replaced file mode 0600 whatever its mode was: a file
// holding keys (the config file) is never left readable by others.
func (p *Path) Private() *Path {
	p.perm, p.exact = 0o600, true
	return p
}

// resolve follows arg's symbolic links to the file that is to be written,
// which may not exist yet (a dangling link names the file it will create).
// viaProc says the chain went through /proc or /dev/fd, whose links name a
// process's open files rather than paths.
func resolve(arg string) (target string, viaProc bool, err error) {
	p := arg
	for range maxLinks {
		if isProcPath(p) {
			viaProc = true
		}
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, viaProc, nil
		}
		if err != nil {
			return "", false, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return p, viaProc, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", false, fmt.Errorf("more than %d symbolic links", maxLinks)
}

func isProcPath(p string) bool {
	p = filepath.Clean(p)
	return strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/fd/") ||
		p == "/dev/stdout" || p == "/dev/stderr"
}

// checkDir checks that dir exists and takes a new file, by making (and
// removing) one there: the one test that sees permissions, ACLs, read-only
// mounts and root alike, and the very call the write will make.
func checkDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".shakectl-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Write writes the output through write: to stdout for "-", in place for a
// device or FIFO, else atomically. ctx ends a wait for a FIFO's reader. One
// line saying what was written goes to note (nil: none; nothing for "-",
// whose data is the output itself).
func (p *Path) Write(ctx context.Context, stdout, note io.Writer, write func(io.Writer) error) error {
	n, err := p.write(ctx, stdout, write)
	var taken *TakenError
	if errors.As(err, &taken) {
		taken.Flag, taken.Arg = p.Flag, p.Arg
		return taken
	}
	if err != nil {
		return &Error{Flag: p.Flag, Arg: p.Arg, Writing: true, Err: err}
	}
	if note != nil && p.kind != toStdout {
		where := p.Arg
		if p.kind == replace && p.target != p.Arg {
			where = fmt.Sprintf("%s (through %s)", p.target, p.Arg)
		}
		fmt.Fprintf(note, "wrote %s %s, %d bytes\n", p.Flag, where, n)
	}
	return nil
}

func (p *Path) write(ctx context.Context, stdout io.Writer, write func(io.Writer) error) (int64, error) {
	switch p.kind {
	case toStdout:
		return copyTo(stdout, write)
	case inPlace:
		f, err := openInPlace(ctx, p.target, p.fifo)
		if err != nil {
			return 0, err
		}
		n, err := copyTo(f, write)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return n, err
	}
	return replaceFile(p.target, p.perm, p.exact, p.keep, write)
}

// copyTo runs write through a buffer onto w, counting the bytes.
func copyTo(w io.Writer, write func(io.Writer) error) (int64, error) {
	cw := &counter{w: w}
	bw := bufio.NewWriter(cw)
	if err := write(bw); err != nil {
		return cw.n, err
	}
	err := bw.Flush()
	return cw.n, err
}

type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// replaceFile writes path through a temporary file in its directory, synced
// and renamed into place; with keep, the rename claims path only if nothing
// is there (claim), and a path taken meanwhile keeps the temporary file,
// named in the TakenError. An exact perm (a replaced file's, a private
// file's) is set on a temporary file that is 0600 from its creation
// (os.CreateTemp), so a file meant to stay private (a config holding a key)
// is never readable by others, not even half-written. Otherwise the
// temporary file is created with perm and the kernel narrows it by the
// umask, as for any new file (a download).
func replaceFile(path string, perm os.FileMode, exact, keep bool, write func(io.Writer) error) (n int64, err error) {
	var f *os.File
	if exact {
		f, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	} else {
		f, err = createTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-", perm)
	}
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	kept := false
	defer func() {
		if err != nil && !kept {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if n, err = copyTo(f, write); err != nil {
		return n, err
	}
	if err = f.Sync(); err != nil {
		return n, err
	}
	if err = f.Close(); err != nil {
		return n, err
	}
	if exact {
		if err = os.Chmod(tmp, perm); err != nil {
			return n, err
		}
	}
	if !keep {
		return n, os.Rename(tmp, path)
	}
	if err = claim(tmp, path); errors.Is(err, fs.ErrExist) {
		// What appeared is not replaced, and the bytes written are not
		// thrown away: a download of gigabytes is kept, and said where.
		kept = true
		return n, &TakenError{Path: path, Kept: tmp}
	}
	return n, err
}

// TakenError is a download's DEST that something else took (a file, a
// symbolic link, another download's or backup's result) while the bytes
// were being written: it was not replaced, and what was written is kept
// under the temporary name Kept, beside it.
type TakenError struct {
	Flag, Arg string
	Path      string // the name claimed (Arg's target)
	Kept      string // the temporary file holding what was written
}

func (e *TakenError) Error() string {
	return fmt.Sprintf("%s appeared while shakectl was writing it (another download?) and was not replaced: what was written is kept as %s; move it into place, or run again with --clobber", e.Path, e.Kept)
}

func (e *TakenError) Unwrap() error { return fs.ErrExist }

// createTemp is os.CreateTemp with the new file's mode perm (narrowed by
// the umask), where os.CreateTemp always makes 0600.
func createTemp(dir, prefix string, perm os.FileMode) (*os.File, error) {
	for range 10000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, prefix+"*"), Err: fs.ErrExist}
}
