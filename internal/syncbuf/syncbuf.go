// Package syncbuf is a bytes.Buffer safe for concurrent use: a log or
// debug writer that a server's or a client's goroutines write while a test
// reads it.
package syncbuf

import (
	"bytes"
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
