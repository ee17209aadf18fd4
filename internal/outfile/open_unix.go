//go:build unix

package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shakenfist/shakectl/client/poll"
)

// checkWritable asks the kernel whether this process may write path (a
// device or FIFO, which cannot be tried by making a file beside it).
func checkWritable(path string) error {
	if err := unix.Access(path, unix.W_OK); err != nil {
		return &os.PathError{Op: "access", Path: path, Err: err}
	}
	return nil
}

// fifoPoll is how often a write waits for a FIFO's reader to appear.
const fifoPoll = 50 * time.Millisecond

// openInPlace opens a device or FIFO for writing, appending (so a regular
// file behind /dev/stdout keeps what this process wrote to it before).
// A FIFO is opened without blocking, retried until a reader opens it or ctx
// ends: a blocking open(2) would sit in the kernel past any Ctrl-C.
func openInPlace(ctx context.Context, path string, fifo bool) (io.WriteCloser, error) {
	if !fifo {
		return os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	}
	f, err := poll.Poll[*os.File]{
		Every: poll.Constant(fifoPoll),
		Get: func(context.Context) (*os.File, error) {
			f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if errors.Is(err, syscall.ENXIO) { // no reader yet
				return nil, nil
			}
			return f, err
		},
		Done: func(f *os.File) (bool, error) { return f != nil, nil },
	}.Wait(ctx)
	switch {
	case err == nil:
		// The descriptor is non-blocking, so the runtime's poller carries
		// its writes and a deadline can end them.
		stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now()) })
		return &fileWithStop{File: f, stop: stop}, nil
	case ctx.Err() != nil:
		// The cause kept (%w): a --timeout that ran out is a deadline,
		// exit 124, like every other wait's.
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("no reader opened the FIFO: %w", err)}
	}
	return nil, err
}

// fileWithStop is a FIFO whose writes ctx ends; Close releases that.
type fileWithStop struct {
	*os.File
	stop func() bool
}

func (f *fileWithStop) Close() error {
	f.stop()
	return f.File.Close()
}
