// Package srcscan is the source scan the tests that keep one way of doing
// each thing share: it parses the project's Go sources (tests left out)
// and hands each file to the test's check.
package srcscan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// File is one parsed source file.
type File struct {
	// Path is the file's path as walked (root joined with the file's).
	Path string
	// Rel is its slash-separated path from root.
	Rel  string
	Fset *token.FileSet
	AST  *ast.File
}

// Pos writes a node's position, for a test's message.
func (f File) Pos(n ast.Node) string { return f.Fset.Position(n.Pos()).String() }

// Walk parses every non-test Go file under each root (.git and testdata
// skipped, and every directory whose path from its root is in skip) and
// calls visit with each. It fails t when fewer than least files were
// seen: a scan that reads nothing passes vacuously.
func Walk(t testing.TB, roots []string, least int, visit func(File), skip ...string) {
	t.Helper()
	fset := token.NewFileSet()
	seen := 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				for _, s := range skip {
					if rel == s {
						return filepath.SkipDir
					}
				}
				if d.Name() == ".git" || d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			// Objects are resolved: a scan tells a local print from the
			// builtin by its identifier's Obj.
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			seen++
			visit(File{Path: path, Rel: rel, Fset: fset, AST: f})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen < least {
		t.Fatalf("scanned %d files under %v, fewer than %d: is the scan still right?", seen, roots, least)
	}
}

// Imports are the paths f imports.
func (f File) Imports() []string {
	var paths []string
	for _, imp := range f.AST.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		paths = append(paths, p)
	}
	return paths
}

// ImportNames maps the name each import of f is known by in it (its
// alias, else its path's last element) to its path: how a scan tells
// which package a selector such as os.WriteFile calls.
func ImportNames(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		local := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		names[local] = path
	}
	return names
}

// StandardLibrary says whether the import path p is the standard
// library's (its first element has no dot).
func StandardLibrary(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// Comments calls visit with every comment group of f and its text, the
// lines joined by single spaces: a phrase a comment wraps across lines
// reads as one.
func (f File) Comments(visit func(c *ast.CommentGroup, text string)) {
	for _, c := range f.AST.Comments {
		visit(c, strings.Join(strings.Fields(c.Text()), " "))
	}
}

// Strings calls visit with every string literal of f, unquoted.
func (f File) Strings(visit func(lit *ast.BasicLit, s string)) {
	ast.Inspect(f.AST, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				visit(lit, s)
			}
		}
		return true
	})
}
