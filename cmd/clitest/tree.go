package clitest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Tree is everything under root, for a test to see that a command wrote
// nothing (or exactly what it should): each path relative to root, with a
// file's content, a symbolic link's target ("-> TARGET") or "dir/".
func Tree(t *testing.T, root string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			tree[rel] = "-> " + target
		case d.IsDir():
			tree[rel] = "dir/"
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tree[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// SameTree fails the test if the tree under root is not before (Tree's).
func SameTree(t *testing.T, root string, before map[string]string) {
	t.Helper()
	after := Tree(t, root)
	for p, v := range after {
		if w, ok := before[p]; !ok {
			t.Errorf("written: %s (%d bytes)", p, len(v))
		} else if w != v {
			t.Errorf("changed: %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("removed: %s", p)
		}
	}
}
