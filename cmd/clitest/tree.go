package clitest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// HostileName is a name a hostile server gives an object (a blob), with
// how shakectl's refusal quotes it (Go's ASCII quoting: nothing raw reaches
// a terminal) and the reason it gives (internal/outfile.PlainNameProblem).
type HostileName struct{ Name, Value, Quoted, Why string }

// HostileBlobNames are names a server may send that are no plain file
// name: "../../PWNED1" once made backup create write ./PWNED1.
var HostileBlobNames = []HostileName{
	{"slash", "sub/PWNED2", `"sub/PWNED2"`, "it holds a path separator"},
	{"dotdot", "../../PWNED1", `"../../PWNED1"`, "it holds a path separator"},
	{"dotdot-deeper", "../../../victim/newfile", `"../../../victim/newfile"`, "it holds a path separator"},
	{"parent", "..", `".."`, "it is .."},
	{"nul", "PWNED\x00x", `"PWNED\x00x"`, "it holds a NUL byte"},
	{"newline", "PWNED\nerror: all good", `"PWNED\nerror: all good"`, "it holds a control character"},
	{"esc", "\x1b]0;PWNED\x07\x1b[2K", `"\x1b]0;PWNED\a\x1b[2K"`, "it holds a control character"},
	{"absolute", "/PWNED-abs", `"/PWNED-abs"`, "it holds a path separator"},
	{"300-chars", strings.Repeat("P", 300), `"` + strings.Repeat("P", 64) + `"... (300 bytes)`, "it is 300 bytes long, more than the 255 a file name may have"},
	{"not-a-uuid", "PWNED3", `"PWNED3"`, "it is not a UUID (8-4-4-4-12 hexadecimal digits), which the server promises"},
}

// RefusedLine is the error line of a refused server name.
func (h HostileName) RefusedLine(what string) string {
	return "error: the server sent " + what + " name " + h.Quoted + ", which is not used as a file name: " + h.Why + "\n"
}
