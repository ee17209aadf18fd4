package configedit

import (
	"context"
	"errors"
	"os"
	"testing"
)

// "-" is stdout wherever shakectl writes a file, and a config file cannot
// be stdout: the edit is refused (a usage error, exit 2, through
// cmdutil.ReadFileError), before anything is written: no "-" and no
// "-.lock" in the working directory.
func TestUpdateDocRefusesDash(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	err := UpdateDoc(context.Background(), "-", func(d *Doc) error {
		t.Error("the edit ran")
		return nil
	})
	var ce *Error
	if !errors.As(err, &ce) || ce.Msg != "the config file cannot be standard output (-): it is read back and holds keys; name a file with --config or SHAKECTL_CONFIG" {
		t.Errorf("got %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("wrote %v", left)
	}
}
