// Package userfile reads the files a user names on the command line: a path,
// or "-" for standard input, whole and within a bound. Every flag that takes
// a file reads it here, so "-" means standard input everywhere and every
// refusal names the flag and the bound.
package userfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Bound says which flag a file was given to, for messages, and the most
// bytes it may hold (Max <= 0 means DefaultMax).
type Bound struct {
	Flag string
	Max  int64
}

// DefaultMax is the bound of a Bound that sets none: far more than any key,
// user data or request body shakectl sends, far less than would hurt.
const DefaultMax = 16 << 20

// Stdin is the argument that names standard input.
const Stdin = "-"

// Error is a file that could not be read, or was larger than its bound. It
// unwraps to the cause (fs.ErrNotExist, ErrTooLarge, …).
type Error struct {
	Flag string // as in the Bound
	Arg  string // the path, or "-"
	Err  error
}

// ErrTooLarge is the cause of an Error for a file larger than its bound.
var ErrTooLarge = errors.New("larger than the bound")

func (e *Error) Error() string {
	from := e.Arg
	if e.Arg == Stdin {
		from = "from standard input"
	}
	var tooLarge *tooLargeError
	if errors.As(e.Err, &tooLarge) {
		return fmt.Sprintf("%s %s is larger than %s, the most %s reads", e.Flag, from, size(tooLarge.max), e.Flag)
	}
	reason := e.Err.Error()
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		reason = pe.Err.Error()
	}
	return fmt.Sprintf("cannot read %s %s: %s", e.Flag, from, reason)
}

func (e *Error) Unwrap() error { return e.Err }

type tooLargeError struct{ max int64 }

func (e *tooLargeError) Error() string        { return ErrTooLarge.Error() }
func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Read reads the whole of arg, a path or "-" (stdin), refusing more than
// b.Max bytes. ctx ends the read between chunks.
func Read(ctx context.Context, stdin io.Reader, arg string, b Bound) ([]byte, error) {
	limit := b.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	fail := func(err error) ([]byte, error) { return nil, &Error{Flag: b.Flag, Arg: arg, Err: err} }
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	r := stdin
	if arg != Stdin {
		f, err := os.Open(arg)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return fail(errors.New("is a directory"))
		}
		r = f
	} else if stdin == nil {
		return fail(errors.New("there is no standard input"))
	}
	// One byte over the bound tells a file at the bound from a larger one.
	lr := io.LimitReader(r, limit+1)
	var buf []byte
	chunk := make([]byte, 32<<10)
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		n, err := lr.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if int64(len(buf)) > limit {
			return fail(&tooLargeError{max: limit})
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return fail(err)
		}
	}
}

// size says a bound the way a person reads it.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
