// Package filelock holds an exclusive lock on a file that several shakectl
// processes rewrite (the config file the context commands edit), as kubectl
// locks its kubeconfig: ten parallel "context create" all exited 0 but only
// five or six contexts were saved before it.
//
// The lock is an advisory flock(2) (LockFileEx on Windows) on a sibling
// file, PATH.lock, never on the file itself: the file is replaced by a
// rename, and a lock on a replaced inode would lock nothing.
package filelock

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/shakenfist/shakectl/client/poll"
)

// Lock is a held lock; Unlock releases it.
type Lock struct{ f *os.File }

// retryEvery is how often a held lock is tried again while waiting.
const retryEvery = 10 * time.Millisecond

// Acquire takes the lock of path (on path+".lock", created 0600 if need
// be), waiting while another process holds it, until ctx ends.
func Acquire(ctx context.Context, path string) (*Lock, error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	// Held by another process: try again until it is let go or ctx ends.
	_, err = poll.Poll[bool]{
		Every: poll.Constant(retryEvery),
		Get:   func(context.Context) (bool, error) { return tryLock(f) },
		Done:  func(locked bool) (bool, error) { return locked, nil },
	}.Wait(ctx)
	switch {
	case err == nil:
		return &Lock{f: f}, nil
	case ctx.Err() != nil:
		f.Close()
		return nil, fmt.Errorf("waiting for the lock on %s (held by another shakectl?): %w", path, err)
	}
	f.Close()
	return nil, fmt.Errorf("locking %s: %w", path, err)
}

// Unlock releases the lock. The lock file stays: removing it would let a
// waiter lock a file that a third process has just recreated.
func (l *Lock) Unlock() error {
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
