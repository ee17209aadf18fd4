// Package userfile reads the files a user names on the command line: a path,
// or "-" for standard input, whole and within a bound. Every flag that takes
// a file reads it here, so "-" means standard input everywhere and every
// refusal names the flag and the bound.
//
// These are the rules this reader keeps for every flag, not per flag, so
// no flag forgets one:
//   - each purpose has its bound (a body, user data, a key, a config, a
//     script, an actors file); an endless input (/dev/zero) is read up to
//     its bound and refused there, a regular file larger than it is refused
//     before it is read;
//   - a read of standard input, a FIFO or a device ends the moment ctx does
//     (Ctrl-C, SIGTERM): the read itself may sit in the kernel until a
//     writer writes, so it runs on its own goroutine and the caller stops
//     waiting for it;
//   - reading standard input from a terminal says what is being read and
//     how to end it, instead of hanging silently.
package userfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"

	"golang.org/x/term"
)

// Bound says which flag a file was given to, for messages, and the most
// bytes it may hold (Max <= 0 means DefaultMax).
type Bound struct {
	Flag string
	Max  int64
	// What names the content for the terminal notice ("the key"); "" says
	// "Flag's input".
	What string
	// Prompt receives, when standard input is a terminal, one line saying
	// what is being read and how to end it; nil prints nothing.
	Prompt io.Writer
}

// The bounds by purpose: far more than any honest input, far less than
// would hurt. One place, so every flag of a kind has the same.
const (
	MaxBody     = 16 << 20  // a request body: api --input, -F @file, parking-probe --body
	MaxUserData = 1 << 20   // instance user data (base64 on the wire)
	MaxSSHKey   = 64 << 10  // an SSH public key file (authorized_keys lines)
	MaxKey      = 4 << 10   // an API key: one line
	MaxConfig   = 1 << 20   // a config file, shakectl's or sf-client's
	MaxScript   = 1 << 20   // a sim cluster --script
	MaxActors   = 16 << 20  // an actors file, a name a line
	MaxReport   = 256 << 20 // a parking-probe report (wide histograms)
)

// Body, UserData, … are the Bounds of each purpose for a flag.
func Body(flag string) Bound     { return Bound{Flag: flag, Max: MaxBody} }
func UserData(flag string) Bound { return Bound{Flag: flag, Max: MaxUserData} }
func SSHKey(flag string) Bound   { return Bound{Flag: flag, Max: MaxSSHKey} }
func Key(flag string) Bound      { return Bound{Flag: flag, Max: MaxKey, What: "the key"} }
func Config(flag string) Bound   { return Bound{Flag: flag, Max: MaxConfig} }
func Script(flag string) Bound   { return Bound{Flag: flag, Max: MaxScript} }
func Actors(flag string) Bound   { return Bound{Flag: flag, Max: MaxActors} }
func Report(flag string) Bound   { return Bound{Flag: flag, Max: MaxReport} }

// DefaultMax is the bound of a Bound that sets none.
const DefaultMax = MaxBody

// Stdin is the argument that names standard input.
const Stdin = "-"

// Error is a file that could not be read, or was larger than its bound. It
// unwraps to the cause (fs.ErrNotExist, ErrTooLarge, the context's cause…).
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

// Interrupted reports whether the read ended because its context did (Ctrl-C,
// SIGTERM, a deadline), not because of the file: the caller's exit code is
// then the signal's, not a usage error's.
func (e *Error) Interrupted() bool {
	var c *ctxError
	return errors.As(e.Err, &c) || errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded)
}

type tooLargeError struct{ max int64 }

func (e *tooLargeError) Error() string        { return ErrTooLarge.Error() }
func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// terminal is what a stdin stand-in implements to say it is a terminal
// (tests); an *os.File is asked directly.
type terminal interface{ IsTerminal() bool }

func isTerminal(r io.Reader) bool {
	switch t := r.(type) {
	case terminal:
		return t.IsTerminal()
	case *os.File:
		return term.IsTerminal(int(t.Fd()))
	}
	return false
}

// EOFKey is how a person ends standard input at a terminal.
func EOFKey() string {
	if runtime.GOOS == "windows" {
		return "Ctrl-Z then Enter"
	}
	return "Ctrl-D"
}

// Read reads the whole of arg, a path or "-" (stdin), refusing more than
// b.Max bytes. It returns as soon as ctx ends, whatever the read is doing.
func Read(ctx context.Context, stdin io.Reader, arg string, b Bound) ([]byte, error) {
	limit := b.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	fail := func(err error) ([]byte, error) { return nil, &Error{Flag: b.Flag, Arg: arg, Err: err} }
	if err := ctx.Err(); err != nil {
		return fail(cause(ctx))
	}
	if arg == Stdin {
		if stdin == nil {
			return fail(errors.New("there is no standard input"))
		}
		if b.Prompt != nil && isTerminal(stdin) {
			what := b.What
			if what == "" {
				what = b.Flag + "'s input"
			}
			fmt.Fprintf(b.Prompt, "reading %s from stdin; end with %s\n", what, EOFKey())
		}
		return waitFor(ctx, fail, func() ([]byte, error) { return readBounded(ctx, stdin, limit) })
	}
	st, err := os.Stat(arg)
	if err != nil {
		return fail(err)
	}
	switch {
	case st.IsDir():
		return fail(errors.New("is a directory"))
	case st.Mode().IsRegular():
		// Refused unread when it says it is too large; read within the
		// bound anyway, as it may grow while being read.
		if st.Size() > limit {
			return fail(&tooLargeError{max: limit})
		}
		f, err := os.Open(arg)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		raw, err := readBounded(ctx, f, limit)
		if err != nil {
			return fail(err)
		}
		return raw, nil
	}
	// A FIFO, a device, a socket: opening a FIFO waits for a writer, and
	// reading may wait for ever, so both happen where ctx can stop waiting.
	return waitFor(ctx, fail, func() ([]byte, error) {
		f, err := os.Open(arg)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readBounded(ctx, f, limit)
	})
}

// waitFor runs read on its own goroutine and returns its result, or ctx's
// cause the moment ctx ends. A read left behind blocks in the kernel until
// its input ends or the process does; it stops at its bound either way.
func waitFor(ctx context.Context, fail func(error) ([]byte, error), read func() ([]byte, error)) ([]byte, error) {
	type result struct {
		raw []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		raw, err := read()
		done <- result{raw, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return fail(r.err)
		}
		// Ctrl-C and then Ctrl-D: the read ended, but the user asked to
		// stop first; what was typed is not used.
		if ctx.Err() != nil {
			return fail(cause(ctx))
		}
		return r.raw, nil
	case <-ctx.Done():
		return fail(cause(ctx))
	}
}

// cause is ctx's cause, marked so Error.Interrupted knows it for one.
func cause(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		return &ctxError{c}
	}
	return ctx.Err()
}

// ctxError is a context's cause (the run's ErrInterrupted, say) as the
// reason of a read; it unwraps to it so the exit code follows the signal.
type ctxError struct{ error }

func (e *ctxError) Unwrap() error { return e.error }

// readBounded reads r to its end, refusing more than limit bytes: one byte
// over tells a file at the bound from a larger one. ctx ends it between
// chunks (an endless device is refused at the bound anyway).
func readBounded(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit+1)
	var buf []byte
	chunk := make([]byte, 32<<10)
	for {
		if ctx.Err() != nil {
			return nil, cause(ctx)
		}
		n, err := lr.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if int64(len(buf)) > limit {
			return nil, &tooLargeError{max: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
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

// Stream wraps a reader that a command reads as it goes (merge - reads a
// log stream of any length): Ctrl-C and SIGTERM end a read at once with the
// context's cause, whether the input is endless (/dev/zero, stopped between
// chunks) or quiet (a pipe or FIFO whose writer never writes, where a read
// blocks in the kernel). The quiet case is what scripts/hostile.sh found:
// `merge -` reading a FIFO ignored the first SIGINT, and SIGTERM (which has
// no second chance) not at all. Each read runs on its own goroutine into the
// reader's buffer; one left waiting when ctx ends stays blocked until its
// input ends or the process exits, which it is about to.
func Stream(ctx context.Context, r io.Reader) io.Reader { return &ctxReader{ctx: ctx, r: r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
	// pending is the read under way, if any: a later Read waits for it
	// rather than start a second read of r.
	pending chan streamRead
	// buf is the goroutine's buffer, ours again once its result arrives;
	// rest is what a read brought that p had no room for, and restErr
	// what the read ended with, returned once rest is given out.
	buf     []byte
	rest    []byte
	restErr error
}

type streamRead struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, cause(c.ctx)
	}
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		if len(c.rest) == 0 && c.restErr != nil {
			err := c.restErr
			c.restErr = nil
			return n, err
		}
		return n, nil
	}
	if c.restErr != nil {
		err := c.restErr
		c.restErr = nil
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if c.pending == nil {
		if cap(c.buf) < len(p) {
			c.buf = make([]byte, len(p))
		}
		buf := c.buf[:len(p)]
		done := make(chan streamRead, 1)
		go func() {
			n, err := c.r.Read(buf)
			done <- streamRead{n, err}
		}()
		c.pending = done
	}
	select {
	case r := <-c.pending:
		c.pending = nil
		got := c.buf[:r.n]
		n := copy(p, got)
		if n < len(got) {
			c.rest, c.restErr = got[n:], r.err
			return n, nil
		}
		return n, r.err
	case <-c.ctx.Done():
		return 0, cause(c.ctx)
	}
}
