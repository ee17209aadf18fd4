package syncbuf_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// Lines written at once through a Writer and a writer sharing its lock
// reach one destination whole, none lost.
func TestWriterKeepsConcurrentLinesWhole(t *testing.T) {
	var dest bytes.Buffer // not safe on its own
	w := syncbuf.NewWriter(&dest)
	shared := w.Share(&dest)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := w
			if g%2 == 1 {
				out = shared
			}
			for k := range 100 {
				fmt.Fprintf(out, "goroutine %d line %03d %s\n", g, k, strings.Repeat("x", 40))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(dest.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	want := strings.Repeat("x", 40)
	for _, l := range lines {
		var g, k int
		var tail string
		if n, err := fmt.Sscanf(l, "goroutine %d line %d %s", &g, &k, &tail); n != 3 || err != nil || tail != want {
			t.Fatalf("a line was torn: %q", l)
		}
	}
}

func TestBufferIsReadWhileWritten(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				_, _ = b.Write([]byte("ab"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := len(b.String()); got != 400 {
		t.Fatalf("%d bytes, want 400", got)
	}
}
