package cmd

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/shakenfist/shakectl/output"
)

// lockedBuffer is an output stream shared by a command's goroutines and the
// test reading it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// readyWriter is the stdout of a serving command (sim cluster, sim router):
// it closes ready once done says what has been written so far shows that
// start-up is complete (the commands print their URLs last).
type readyWriter struct {
	lockedBuffer
	ready chan struct{}
	once  sync.Once
	done  func(string) bool
}

func (w *readyWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if w.done(w.String()) {
		w.once.Do(func() { close(w.ready) })
	}
	return n, err
}

// servingFactory is a factory for running a serving command in a test
// goroutine until ctx is cancelled.
func servingFactory(t *testing.T, ctx context.Context, done func(stdout string) bool) (*Factory, *readyWriter, *lockedBuffer) {
	t.Helper()
	ios, _, _, _ := output.Test()
	out := &readyWriter{ready: make(chan struct{}), done: done}
	errOut := &lockedBuffer{}
	ios.Out, ios.ErrOut = out, errOut
	return &Factory{
		IOStreams: ios,
		Build:     BuildInfo{Version: "test"},
		Getenv:    func(string) (string, bool) { return "", false },
		HomeDir:   t.TempDir(),
		Context:   ctx,
	}, out, errOut
}

// firstLineOut: sim cluster's start-up is done once its URL line is out.
func firstLineOut(s string) bool { return strings.Contains(s, "\n") }

// routerURLsOut: sim router's start-up is done once its three URLs (the
// statusz one last) are out.
func routerURLsOut(s string) bool {
	return strings.Contains(s, "statusz") && strings.HasSuffix(s, "\n")
}
