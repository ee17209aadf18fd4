//go:build unix

package userfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

var errSignal = errors.New("interrupted")

// startedReader is a stdin that never delivers anything (a terminal nobody
// types at) and says when a read of it has begun.
type startedReader struct {
	started chan struct{}
	block   chan struct{}
	tty     bool
}

func newStartedReader() *startedReader {
	return &startedReader{started: make(chan struct{}), block: make(chan struct{})}
}

func (r *startedReader) Read([]byte) (int, error) {
	select {
	case <-r.started:
	default:
		close(r.started)
	}
	<-r.block
	return 0, io.EOF
}

func (r *startedReader) IsTerminal() bool { return r.tty }

// returnsWithin bounds a test's wait for Read (a hung read would otherwise
// hang the test binary until go test's own timeout).
func returnsWithin(t *testing.T, read func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Read did not return after its context ended")
		return nil
	}
}

// Issue 28, item 4: Ctrl-C was ignored while a command read stdin, until the
// read returned.
func TestStdinReadEndsWhenTheContextDoes(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stdin := newStartedReader()
	t.Cleanup(func() { close(stdin.block) })
	go func() {
		<-stdin.started
		cancel(errSignal)
	}()
	err := returnsWithin(t, func() error {
		_, err := Read(ctx, stdin, Stdin, Key("--key-stdin"))
		return err
	})
	var ue *Error
	if !errors.As(err, &ue) || !ue.Interrupted() || !errors.Is(err, errSignal) {
		t.Fatalf("want an interrupted read carrying the signal's cause, got %v", err)
	}
}

// The same for a FIFO no writer ever opens: os.Open alone would block in
// open(2) for ever.
func TestFIFOReadEndsWhenTheContextDoes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "in")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Unblock the goroutine left in open(2) when the test ends.
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errSignal)
	err := returnsWithin(t, func() error {
		_, err := Read(ctx, nil, fifo, Body("-u"))
		return err
	})
	if !errors.Is(err, errSignal) {
		t.Fatalf("got %v", err)
	}
	// Cancelled while already waiting, too.
	ctx, cancel = context.WithCancelCause(context.Background())
	go func() {
		// Give Read its chance to block; the result is the same either way.
		runtime.Gosched()
		cancel(errSignal)
	}()
	err = returnsWithin(t, func() error {
		_, err := Read(ctx, nil, fifo, Body("-u"))
		return err
	})
	if !errors.Is(err, errSignal) {
		t.Fatalf("got %v", err)
	}
}

// A FIFO with a writer is read like a file.
func TestFIFOIsRead(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "in")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		io.WriteString(w, "#cloud-config\n")
		w.Close()
	}()
	got, err := Read(context.Background(), nil, fifo, UserData("-u"))
	if err != nil || string(got) != "#cloud-config\n" {
		t.Errorf("%q %v", got, err)
	}
}

// Ctrl-C, then Ctrl-D: the read ends with what was typed, but the user asked
// to stop first, so it is not used (a context was saved with no key).
func TestInterruptThenEOFUsesNothing(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stdin := readerFunc(func(p []byte) (int, error) {
		cancel(errSignal)
		return copy(p, "half-typed-key\n"), io.EOF
	})
	got, err := Read(ctx, stdin, Stdin, Key("--key-stdin"))
	if got != nil || !errors.Is(err, errSignal) {
		t.Errorf("got %q, %v", got, err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// An endless device is read up to its bound and refused there, naming the
// flag and the bound (issue 28, item 6: --config /dev/zero passed 1.5 GB).
func TestEndlessInputStopsAtTheBound(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := Read(context.Background(), nil, "/dev/zero", Config("--config"))
	if !errors.Is(err, ErrTooLarge) || err.Error() != "--config /dev/zero is larger than 1 MiB, the most --config reads" {
		t.Errorf("got %v", err)
	}
	// Standard input the same.
	_, err = Read(context.Background(), zeros{}, Stdin, Script("--script"))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "--script from standard input is larger than 1 MiB") {
		t.Errorf("got %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A regular file over its bound is refused unread.
func TestLargeRegularFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, bytes.Repeat([]byte("k"), MaxKey+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), nil, path, Key("--key-file")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v", err)
	}
}

// At a terminal, the user is told what is being read and how to end it.
func TestTerminalIsToldWhatIsRead(t *testing.T) {
	var prompt bytes.Buffer
	b := Key("--key-stdin")
	b.Prompt = &prompt
	stdin := &ttyReader{Reader: strings.NewReader("k\n")}
	if _, err := Read(context.Background(), stdin, Stdin, b); err != nil {
		t.Fatal(err)
	}
	if want := "reading the key from stdin; end with " + EOFKey() + "\n"; prompt.String() != want {
		t.Errorf("prompt %q, want %q", prompt.String(), want)
	}
	// A pipe is not asked.
	prompt.Reset()
	Read(context.Background(), strings.NewReader("k"), Stdin, b)
	if prompt.Len() != 0 {
		t.Errorf("a pipe got a prompt: %q", prompt.String())
	}
}

type ttyReader struct{ io.Reader }

func (ttyReader) IsTerminal() bool { return true }

func TestParseKey(t *testing.T) {
	if k, err := ParseKey([]byte("  s3cret-key\n"), "--key-stdin"); err != nil || k != "s3cret-key" {
		t.Errorf("trimmed: %q %v", k, err)
	}
	for name, raw := range map[string]string{
		"empty":      "",
		"blank":      " \n\t\n",
		"multi-line": "line1\nline2",
		"NUL":        strings.Repeat("\x00", 100),
		"control":    "key\x1b[2J",
		"not UTF-8":  "key\xff",
		"too long":   strings.Repeat("k", MaxKey+1),
	} {
		k, err := ParseKey([]byte(raw), "--key-stdin")
		var ke *KeyError
		if !errors.As(err, &ke) || k != "" || !strings.Contains(err.Error(), "--key-stdin") {
			t.Errorf("%s: accepted (%q, %v)", name, k, err)
		}
		if raw != "" && strings.TrimSpace(raw) != "" && strings.Contains(err.Error(), strings.TrimSpace(raw)) {
			t.Errorf("%s: the error repeats the key", name)
		}
	}
}

// FuzzReadFileAndStdinAgree: whatever the input and the bound, a file and standard input
// read the same, never more than the bound, refused only over it.
func FuzzReadFileAndStdinAgree(f *testing.F) {
	f.Add([]byte(""), int64(0))
	f.Add([]byte("key\n"), int64(4))
	f.Add(bytes.Repeat([]byte{0}, 4096), int64(1024))
	f.Add([]byte("\x1b]0;pwned\x07\r\n"), int64(7))
	f.Add([]byte("\xff\xfe\x00"), int64(3))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, max int64) {
		if max <= 0 || max > 1<<16 {
			max = 1 << 10
		}
		b := Bound{Flag: "--body", Max: max}
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fromFile, ferr := Read(context.Background(), nil, path, b)
		fromStdin, serr := Read(context.Background(), bytes.NewReader(data), Stdin, b)
		over := int64(len(data)) > max
		for _, r := range []struct {
			got []byte
			err error
		}{{fromFile, ferr}, {fromStdin, serr}} {
			if over != errors.Is(r.err, ErrTooLarge) {
				t.Fatalf("len %d bound %d: err %v", len(data), max, r.err)
			}
			if !over && (r.err != nil || !bytes.Equal(r.got, data)) {
				t.Fatalf("len %d bound %d: got %d bytes, %v", len(data), max, len(r.got), r.err)
			}
		}
		if k, err := ParseKey(data, "--key-stdin"); err == nil {
			if k == "" || len(k) > MaxKey || strings.ContainsAny(k, "\x00\r\n") {
				t.Fatalf("ParseKey accepted %q", k)
			}
		}
	})
}
