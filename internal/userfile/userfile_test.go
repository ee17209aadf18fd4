package userfile

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPathAndStdin(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "body")
	if err := os.WriteFile(path, []byte("from the file"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Read(context.Background(), strings.NewReader("from stdin"), path, Bound{Flag: "--body"})
	if err != nil || string(got) != "from the file" {
		t.Errorf("path: %q, %v", got, err)
	}
	got, err = Read(context.Background(), strings.NewReader("from stdin"), "-", Bound{Flag: "--body"})
	if err != nil || string(got) != "from stdin" {
		t.Errorf("stdin: %q, %v", got, err)
	}
}

// A file at the bound is read; one byte more is refused with a message that
// names the flag and the bound.
func TestReadBound(t *testing.T) {
	at := bytes.Repeat([]byte("x"), 1024)
	got, err := Read(context.Background(), bytes.NewReader(at), "-", Bound{Flag: "--body", Max: 1024})
	if err != nil || len(got) != 1024 {
		t.Fatalf("at the bound: %d bytes, %v", len(got), err)
	}
	_, err = Read(context.Background(), bytes.NewReader(append(at, 'y')), "-", Bound{Flag: "--body", Max: 1024})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the bound: %v", err)
	}
	if want := "--body from standard input is larger than 1 KiB, the most --body reads"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestReadFailuresNameTheFlag(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		arg   string
		stdin *strings.Reader
		want  string
	}{
		{filepath.Join(dir, "missing"), nil, "cannot read -i " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{dir, nil, "cannot read -i " + dir + ": is a directory"},
		{"-", nil, "cannot read -i from standard input: there is no standard input"},
	}
	for _, c := range cases {
		var err error
		if c.stdin == nil {
			_, err = Read(context.Background(), nil, c.arg, Bound{Flag: "-i"})
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.arg, err, c.want)
		}
	}
	_, err := Read(context.Background(), nil, filepath.Join(dir, "missing"), Bound{Flag: "-i"})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file does not unwrap to fs.ErrNotExist: %v", err)
	}
}

func TestReadStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, strings.NewReader("x"), "-", Bound{Flag: "--body"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
}

// FuzzRead: whatever arrives on stdin and whatever the bound, Read returns
// the input whole or refuses it as too large, never a part of it.
func FuzzRead(f *testing.F) {
	f.Add([]byte(""), int64(0))
	f.Add([]byte("\x00\xff\r\n"), int64(1))
	f.Add(bytes.Repeat([]byte("a"), 70000), int64(65536))
	f.Fuzz(func(t *testing.T, in []byte, max int64) {
		got, err := Read(context.Background(), bytes.NewReader(in), "-", Bound{Flag: "--x", Max: max})
		limit := max
		if limit <= 0 {
			limit = DefaultMax
		}
		switch {
		case int64(len(in)) > limit:
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%d bytes over a bound of %d: %v", len(in), limit, err)
			}
		case err != nil || !bytes.Equal(got, in):
			t.Fatalf("%d bytes within %d: got %d, %v", len(in), limit, len(got), err)
		}
	})
}
