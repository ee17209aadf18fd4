// Package syncbuf is the one way the project serialises writes that
// several goroutines make: Buffer, a bytes.Buffer safe for concurrent use
// (a log or debug writer that a server's or a client's goroutines write
// while a test reads it), and Writer, a writer whose writes to another
// writer take one lock, so that concurrent lines stay whole.
package syncbuf

import (
	"bytes"
	"io"
	"sync"
)

// Buffer is a goroutine-safe buffer; its zero value is empty and ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Writer passes each write to its destination under a lock.
type Writer struct {
	mu *sync.Mutex
	w  io.Writer
}

// NewWriter serialises the writes to w made through it.
func NewWriter(w io.Writer) *Writer { return &Writer{mu: new(sync.Mutex), w: w} }

// Share is a writer to w that takes the same lock as s: two writers whose
// destinations may be one file.
func (s *Writer) Share(w io.Writer) *Writer { return &Writer{mu: s.mu, w: w} }

func (s *Writer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
