package proxy

import (
	"go/ast"
	"path/filepath"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// Server's methods are declared in proxy.go, so that what a Server does is
// read in one file; the other files of the package give it parts of its
// own types (front.go's frontDoor, listen.go's endpoint, the gate its
// package) rather than more methods of Server.
func TestServerMethodsLiveInProxyGo(t *testing.T) {
	inProxyGo := 0
	srcscan.Walk(t, []string{"."}, 5, func(f srcscan.File) {
		if filepath.Dir(f.Rel) != "." {
			return // a subpackage (gate) has no Server
		}
		for _, d := range f.AST.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || receiverName(fn.Recv.List[0].Type) != "Server" {
				continue
			}
			if f.Rel != "proxy.go" {
				t.Errorf("%s: (Server).%s is declared outside proxy.go: give the part it belongs to a type of its own, held by Server, or declare it in proxy.go", f.Pos(fn), fn.Name.Name)
				continue
			}
			inProxyGo++
		}
	})
	if inProxyGo < 10 {
		t.Errorf("found %d Server methods in proxy.go: is the scan still right?", inProxyGo)
	}
}

// receiverName is the type name of a receiver: Server for Server and
// *Server.
func receiverName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
