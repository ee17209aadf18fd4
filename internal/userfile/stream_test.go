package userfile

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

var errStreamSignal = errors.New("terminated")

// A quiet input (a pipe whose writer never writes): the first signal ends
// the read at once. scripts/hostile.sh found `merge -` reading such a FIFO
// deaf to SIGINT and SIGTERM; the read blocked until the writer wrote.
func TestStreamReadEndsWhenTheContextDoes(t *testing.T) {
	quiet := &quietReader{started: make(chan struct{}), block: make(chan struct{})}
	t.Cleanup(func() { close(quiet.block) })
	ctx, cancel := context.WithCancelCause(context.Background())
	r := Stream(ctx, quiet)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 64<<10))
		done <- err
	}()
	// The signal comes while the read waits in the input, not before.
	<-quiet.started
	cancel(errStreamSignal)
	select {
	case err := <-done:
		if !errors.Is(err, errStreamSignal) {
			t.Fatalf("want the signal's cause, got %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Read did not return after its context ended")
	}
}

// quietReader is a pipe nobody writes: its Read says it has begun, then
// waits until the test ends.
type quietReader struct{ started, block chan struct{} }

func (q *quietReader) Read([]byte) (int, error) {
	close(q.started)
	<-q.block
	return 0, io.EOF
}

// Until then it reads what the input holds, byte for byte, whatever the
// callers' buffer sizes, and ends with the input's own end.
func TestStreamReadsTheWholeInput(t *testing.T) {
	want := strings.Repeat("a report line\n", 10000)
	r := Stream(context.Background(), iotest.HalfReader(strings.NewReader(want)))
	if err := iotest.TestReader(r, []byte(want)); err != nil {
		t.Fatal(err)
	}
	r = Stream(context.Background(), strings.NewReader(want))
	var got []byte
	p := make([]byte, 7) // smaller than what one read may bring
	for {
		n, err := r.Read(p)
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if string(got) != want {
		t.Fatalf("read %d bytes, want %d", len(got), len(want))
	}
}
