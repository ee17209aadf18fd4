package outfile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// The rule "one way to write a file" (issue 40), kept by a scan of the
// sources: no shipped (non-test) code outside this package creates,
// replaces, renames, links, truncates, removes or changes the mode of a
// file or directory by itself. It goes through outfile: Check and CheckNew
// for a file a user names or a download, ServerName for a name a server
// sent, MkdirAll for a directory a write needs, Scratch for a private
// temporary file. Modelled on cmd/root's TestNoCommandOpensASessionByHand,
// with the parser instead of a regexp, so an aliased import, a function
// value (f := os.Create) or os.OpenFile's flags are seen too.

// writeCalls are the calls that write to the file system, by import path.
var writeCalls = map[string][]string{
	"os": {"Create", "CreateTemp", "WriteFile", "Rename", "Link", "Symlink", "Mkdir", "MkdirAll", "MkdirTemp",
		"Remove", "RemoveAll", "Truncate", "Chmod", "Chown", "Lchown", "Chtimes", "OpenRoot"},
	"io/ioutil": {"WriteFile", "TempFile", "TempDir"},
	"syscall": {"Creat", "Open", "Openat", "Rename", "Renameat", "Link", "Linkat", "Symlink", "Symlinkat", "Mkdir", "Mkdirat",
		"Mknod", "Mknodat", "Mkfifo", "Unlink", "Unlinkat", "Rmdir", "Truncate", "Chmod", "Fchmodat", "CreateFile", "MoveFile", "DeleteFile"},
	"golang.org/x/sys/unix": {"Creat", "Open", "Openat", "Openat2", "Rename", "Renameat", "Renameat2", "RenamexNp", "RenameatxNp",
		"Link", "Linkat", "Symlink", "Symlinkat", "Mkdir", "Mkdirat", "Mknod", "Mknodat", "Mkfifo", "Mkfifoat",
		"Unlink", "Unlinkat", "Rmdir", "Truncate", "Chmod", "Fchmodat"},
	"golang.org/x/sys/windows": {"CreateFile", "MoveFile", "MoveFileEx", "DeleteFile", "CreateHardLink", "CreateSymbolicLink",
		"CreateDirectory", "RemoveDirectory"},
}

// writeFlags are os.OpenFile's flags that make it a write.
var writeFlags = map[string]bool{"O_WRONLY": true, "O_RDWR": true, "O_CREATE": true, "O_APPEND": true, "O_TRUNC": true}

// writeExceptions are the directories (from the module's root) whose own
// writes are not the user's files, each with why. Anything else that
// writes is a failure.
var writeExceptions = map[string]string{
	"internal/outfile/": "the one writer itself",
	"internal/filelock/": "the config file's lock, PATH.lock: opened O_RDWR|O_CREATE and never replaced, truncated or removed, " +
		"as a lock must stay one inode (a rename would swap it for another); it holds no data",
	"sim/": "the simulators' own state: sim cluster spools uploads and screenshots in a temporary folder it removes, " +
		"sim router touches --drain-complete-file, the empty signal a Kubernetes sidecar waits for: a server's files, not a download",
	"bench/": "benchmark programs (go run ./bench/...), not in the shakectl binary: their scratch files and logs",
	"cmd/docgen/": "the build's man pages and completion scripts, written into a directory of the source tree by " +
		"go generate and the release (cobra/doc's GenManTree writes the pages itself, so the writer could not cover them)",
	"cmd/clitest/":         "test support, imported only by _test.go files (checked below): -update's golden files",
	"internal/nobodytest/": "test support, imported only by _test.go files (checked below): a scratch copy of the test binary",
}

// testSupport are packages only tests may import: their writes are the
// tests'.
var testSupport = []string{"github.com/shakenfist/shakectl/cmd/clitest", "github.com/shakenfist/shakectl/internal/nobodytest"}

// fileWrites lists the writes in one Go source: "LINE: CALL".
func fileWrites(fset *token.FileSet, f *ast.File) []string {
	names := srcscan.ImportNames(f)
	var found []string
	// An os.OpenFile call whose flags are only reads is allowed; the
	// selector inside it is then not reported again.
	readOnly := map[*ast.SelectorExpr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isPkg(sel, names, "os") && sel.Sel.Name == "OpenFile" && !writes(call.Args[1]) {
			readOnly[sel] = true
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || readOnly[sel] {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		path, ok := names[id.Name]
		if !ok {
			return true
		}
		bad := path == "os" && sel.Sel.Name == "OpenFile"
		for _, c := range writeCalls[path] {
			bad = bad || sel.Sel.Name == c
		}
		if bad {
			found = append(found, strconv.Itoa(fset.Position(sel.Pos()).Line)+": "+id.Name+"."+sel.Sel.Name)
		}
		return true
	})
	return found
}

func isPkg(sel *ast.SelectorExpr, names map[string]string, path string) bool {
	id, ok := sel.X.(*ast.Ident)
	return ok && names[id.Name] == path
}

// writes reports whether os.OpenFile's flags expression may ask for a
// write: it names a write flag, or is anything but flag constants (a
// variable could hold any).
func writes(flags ast.Expr) bool {
	w := false
	ast.Inspect(flags, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
		case *ast.SelectorExpr:
			w = w || writeFlags[n.Sel.Name] || !strings.HasPrefix(n.Sel.Name, "O_")
			return false
		case *ast.Ident:
			w = w || writeFlags[n.Name] || !strings.HasPrefix(n.Name, "O_")
		case *ast.BinaryExpr, *ast.ParenExpr:
		default:
			w = true
		}
		return true
	})
	return w
}

func exceptionOf(rel string) string {
	for dir := range writeExceptions {
		if strings.HasPrefix(rel, dir) {
			return dir
		}
	}
	return ""
}

func TestNoFileIsWrittenOutsideTheWriter(t *testing.T) {
	used := map[string]bool{}
	srcscan.Walk(t, []string{filepath.Join("..", "..")}, 300, func(f srcscan.File) {
		// The test-support exceptions hold only while shipped code does
		// not import them.
		for _, p := range f.Imports() {
			for _, ts := range testSupport {
				if p == ts && !strings.HasPrefix(f.Rel, strings.TrimPrefix(ts, "github.com/shakenfist/shakectl/")+"/") {
					t.Errorf("%s imports %s, whose writes are excepted as test support only", f.Rel, p)
				}
			}
		}
		writes := fileWrites(f.Fset, f.AST)
		if len(writes) == 0 {
			return
		}
		if dir := exceptionOf(f.Rel); dir != "" {
			used[dir] = true
			return
		}
		for _, w := range writes {
			t.Errorf("%s:%s\n\twrite files through internal/outfile (Check, CheckNew, ServerName, MkdirAll, Scratch), "+
				"or add the directory to writeExceptions with the reason", f.Rel, w)
		}
	})
	// An exception that no longer writes is stale: it would let the next
	// write in unseen.
	for dir, why := range writeExceptions {
		if !used[dir] {
			t.Errorf("writeExceptions[%q] (%s) covers no write any more: remove it", dir, why)
		}
	}
}

// The scan sees every form of a write, and lets reads through.
func TestTheWriteScanSeesEveryForm(t *testing.T) {
	src := `package p

import (
	"io/ioutil"
	xos "os"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func f(path string, flags int) {
	os.WriteFile(path, nil, 0o644)
	create := os.Create
	xos.Rename(path, path)
	os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0)
	os.OpenFile(path, flags, 0)
	ioutil.WriteFile(path, nil, 0)
	unix.Renameat2(0, path, 0, path, 0)
	os.MkdirAll(path, 0)
	syscall.Unlink(path)
	os.OpenFile(path, os.O_RDWR, 0)

	os.Open(path)
	os.ReadFile(path)
	os.Stat(path)
	os.OpenFile(path, os.O_RDONLY|syscall.O_NOCTTY, 0)
	os.OpenFile(path, syscall.O_RDONLY, 0)
	_ = create
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(fileWrites(fset, f), "\n")
	want := strings.Join([]string{
		"13: os.WriteFile", "14: os.Create", "15: xos.Rename", "16: os.OpenFile", "17: os.OpenFile",
		"18: ioutil.WriteFile", "19: unix.Renameat2", "20: os.MkdirAll", "21: syscall.Unlink", "22: os.OpenFile",
	}, "\n")
	if got != want {
		t.Errorf("found:\n%s\nwant:\n%s", got, want)
	}
}
