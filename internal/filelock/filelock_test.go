package filelock

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A second Acquire waits while the first holds the lock (flock locks are
// per open file, so this holds within one process too), and gets it once
// it is released.
func TestAcquireExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	first, err := Acquire(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, path); err == nil || !strings.Contains(err.Error(), "waiting for the lock") {
		t.Fatalf("a held lock was taken again: %v", err)
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	second, err := Acquire(ctx, path)
	if err != nil {
		t.Fatalf("a released lock was not taken: %v", err)
	}
	second.Unlock()
}
