package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return fmt.Errorf("disk full")
	})
	if err == nil {
		t.Fatal("the writer's error was lost")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("a failed write replaced the file: %q", b)
	}
	if err := Write(path, 0o644, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("got %q", b)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "r.json" {
		t.Errorf("left behind: %v", names)
	}
}
