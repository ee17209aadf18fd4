package root_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The real 2024 server reads namespace "system" from the system key as
// every namespace: DELETE /instances {"namespace": "system"} queued the
// deletion of every namespace's instances (recorded from da448b1a,
// client/testdata/sf2024/recorded/del-all-system.http; captures
// commands/da1-nons), and DELETE /networks the same
// (net-del-all-system-403.http, captures nd1-net-delall-nons). shakectl
// filled in "system" when the system key gave no --namespace, and asked
// `namespace "system"` (issue 40, item 1). Now the scope is judged before
// anything is sent, with either key, at a prompt and with --yes, and what
// is asked and said names what the server will delete.
func TestDeleteAllScope(t *testing.T) {
	const (
		noScope  = "error: the system key reaches every namespace, so shakectl {noun} delete-all needs --namespace NAMESPACE (or --all-namespaces for every namespace); nothing was sent\nhint: see 'shakectl {noun} delete-all --help'\n"
		sysScope = "error: with the system key, namespace \"system\" means every namespace to the server: pass --all-namespaces to delete in every namespace; nothing was sent\nhint: see 'shakectl {noun} delete-all --help'\n"
		allOther = "error: --all-namespaces needs the system key: the key of namespace \"ns1\" deletes only in \"ns1\"; nothing was sent\nhint: see 'shakectl {noun} delete-all --help'\n"
		both     = "error: --all-namespaces and --namespace ci contradict each other: give one; nothing was sent\nhint: see 'shakectl {noun} delete-all --help'\n"
		every    = `EVERY namespace (namespace "system" with the system key means all of them)`
	)
	for _, noun := range []struct {
		name, path, plural string
		// answer is the recorded answer to a delete-all; body is what
		// is sent for namespace NS; deleted is a UUID the answer says
		// was deleted (printed on stdout); code and tail are the exit
		// and the stderr lines after the question or note.
		answer, body, deleted string
		code                  int
		tail                  string
	}{
		{"instance", "/instances", "instances", "sf2024/recorded/del-all-system.http", `{"confirm":true,"namespace":"NS"}`, "24b88204-95ac-4a84-bb44-4ce09a7eb727", 0, ""},
		// The 2024 answer with a network still in use: a 403 listing
		// both, exit 1 (the command's own reading of it).
		{"network", "/networks", "networks", "sf2024/recorded/net-del-all-system-403.http", `{"confirm":true,"namespace":"NS","clean_wait":false}`, "93e6a481-d82a-4182-9636-e1b02ce1e0ec", cmdutil.ExitFailure,
			"error: 1 network still in use were not deleted (f6f83ea8-d4dd-42ee-bc93-fe034acaf528); delete their instances first, or use \"shakectl namespace clean\"\n"},
	} {
		for _, tc := range []struct {
			name      string
			key       string // the namespace authenticated to
			args      []string
			tty       string // typed at the prompt; "" = piped
			sent      string // the namespace sent; "" = nothing sent
			code      int    // -1: the noun's own code for the answer
			stderr    string // exact, with {noun} and {plural}; "" = not checked here
			stderrHas string // exact, then the noun's tail
		}{
			// The system key must name the scope.
			{name: "system key, no --namespace, --yes", key: "system", args: []string{"--yes"}, code: cmdutil.ExitUsage, stderr: noScope},
			{name: "system key, no --namespace, at a prompt", key: "system", tty: "yes\n", code: cmdutil.ExitUsage, stderr: noScope},
			{name: "system key, --namespace system, --yes", key: "system", args: []string{"--namespace", "system", "--yes"}, code: cmdutil.ExitUsage, stderr: sysScope},
			{name: "system key, --namespace system, at a prompt", key: "system", args: []string{"--namespace", "system"}, tty: "yes\n", code: cmdutil.ExitUsage, stderr: sysScope},
			{name: "system key, both", key: "system", args: []string{"--all-namespaces", "--namespace", "ci", "--yes"}, code: cmdutil.ExitUsage, stderr: both},
			{name: "system key, --namespace ci, --yes", key: "system", args: []string{"--namespace", "ci", "--yes"}, sent: "ci", code: -1,
				stderrHas: "deleting ALL {plural} of namespace \"ci\"\n"},
			{name: "system key, --namespace ci, at a prompt", key: "system", args: []string{"--namespace", "ci"}, tty: "yes\n", sent: "ci", code: -1,
				stderrHas: "Delete ALL {plural} of namespace \"ci\"? Type yes to go on: "},
			{name: "system key, --all-namespaces, --yes", key: "system", args: []string{"--all-namespaces", "--yes"}, sent: "system", code: -1,
				stderrHas: "deleting ALL {plural} of " + every + "\n"},
			{name: "system key, --all-namespaces, at a prompt", key: "system", args: []string{"--all-namespaces"}, tty: "yes\n", sent: "system", code: -1,
				stderrHas: "Delete ALL {plural} of " + every + "? Type yes to go on: "},
			{name: "system key, --all-namespaces, not confirmed", key: "system", args: []string{"--all-namespaces"}, tty: "no\n", code: cmdutil.ExitUsage,
				stderr: "Delete ALL {plural} of " + every + "? Type yes to go on: error: not confirmed; nothing was deleted\nhint: see 'shakectl {noun} delete-all --help'\n"},
			// Another key reaches only its own namespace.
			{name: "other key, no --namespace, --yes", key: "ns1", args: []string{"--yes"}, sent: "ns1", code: -1,
				stderrHas: "deleting ALL {plural} of namespace \"ns1\"\n"},
			{name: "other key, no --namespace, at a prompt", key: "ns1", tty: "yes\n", sent: "ns1", code: -1,
				stderrHas: "Delete ALL {plural} of namespace \"ns1\"? Type yes to go on: "},
			{name: "other key, no --namespace, piped without --yes", key: "ns1", code: cmdutil.ExitUsage,
				stderr: "error: Delete ALL {plural} of namespace \"ns1\": not on a terminal, so pass --yes to confirm\nhint: see 'shakectl {noun} delete-all --help'\n"},
			{name: "other key, --namespace ns1, at a prompt", key: "ns1", args: []string{"--namespace", "ns1"}, tty: "yes\n", sent: "ns1", code: -1,
				stderrHas: "Delete ALL {plural} of namespace \"ns1\"? Type yes to go on: "},
			{name: "other key, --all-namespaces, --yes", key: "ns1", args: []string{"--all-namespaces", "--yes"}, code: cmdutil.ExitUsage, stderr: allOther},
			{name: "other key, --all-namespaces, at a prompt", key: "ns1", args: []string{"--all-namespaces"}, tty: "yes\n", code: cmdutil.ExitUsage, stderr: allOther},
		} {
			t.Run(noun.name+"/"+tc.name, func(t *testing.T) {
				s := clitest.NewStubsAs(t, tc.key)
				if tc.sent != "" {
					s.ReplyRecordedAnswer(t, "DELETE", noun.path, noun.answer)
				}
				r := clitest.AgainstStubs(s).As(tc.key)
				if tc.tty != "" {
					r.Tty, r.Stdin = true, tc.tty
				}
				res := r.Run(t, append([]string{noun.name, "delete-all"}, tc.args...)...)
				want := tc.code
				if want == -1 {
					want = noun.code
				}
				if res.Code != want {
					t.Errorf("exit %d, want %d\n%s", res.Code, want, res)
				}
				if tc.sent == "" {
					if n := s.Count("DELETE", noun.path); n != 0 || s.Logins() != 0 {
						t.Errorf("sent %d DELETE %s and %d logins; want nothing sent\n%s", n, noun.path, s.Logins(), res)
					}
				} else if got, body := s.LastBody("DELETE", noun.path), strings.ReplaceAll(noun.body, "NS", tc.sent); got != body {
					t.Errorf("sent %s, want %s", got, body)
				}
				expand := strings.NewReplacer("{noun}", noun.name, "{plural}", noun.plural).Replace
				if tc.stderr != "" && res.Stderr != expand(tc.stderr) {
					t.Errorf("stderr:\n%q\nwant\n%q", res.Stderr, expand(tc.stderr))
				}
				if tc.stderrHas != "" {
					// Sent: the question or the note, then what the
					// answer makes the command say; stdout the answer.
					if want := expand(tc.stderrHas) + noun.tail; res.Stderr != want {
						t.Errorf("stderr:\n%q\nwant\n%q", res.Stderr, want)
					}
					if !strings.Contains(res.Stdout, noun.deleted) {
						t.Errorf("stdout does not show %s:\n%s", noun.deleted, res.Stdout)
					}
				}
			})
		}
	}
}

// destructiveName is a verb's name that says it deletes many: such a
// command must be built on the scope rule (builders.NewDeleteAllCmd).
var destructiveName = regexp.MustCompile(`^(delete-all|delete-many|clean|purge|prune|wipe)$|-all$`)

// Every command that deletes many objects is on the one scope rule: the
// tree has them all marked (and none named so without it), and each
// refuses the system key with no scope, piped with --yes and at a
// prompt answered yes, with exit 2 and nothing sent, not even a login.
func TestEveryDestructiveVerbJudgesItsScopeFirst(t *testing.T) {
	var found []string
	walk(newTree(t), func(c *cobra.Command) {
		kind, marked := c.Annotations[builders.DestructiveAnnotation]
		if destructiveName.MatchString(c.Name()) && !marked {
			t.Errorf("%s deletes many but is not built by builders.NewDeleteAllCmd, so its scope is not judged", c.CommandPath())
		}
		if !marked {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		found = append(found, strings.Join(path, " "))
		args := path
		if kind == "NAMESPACE" {
			// The namespace argument the server reads as every one.
			args = append(args, "system")
		}
		for _, tty := range []bool{false, true} {
			s := clitest.NewStubsAs(t, "system")
			r := clitest.AgainstStubs(s).As("system")
			a := append(slices.Clone(args), "--yes")
			if tty {
				r.Tty, r.Stdin, a = true, "yes\n", args
			}
			res := r.Run(t, a...)
			if res.Code != cmdutil.ExitUsage || len(s.Requests()) != 0 || !strings.Contains(res.Stderr, "nothing was sent") || strings.Contains(res.Stderr, "Type yes") {
				t.Errorf("shakectl %s (tty %v) with the system key: exit %d, %d requests, want exit 2 before anything is sent or asked\n%s", strings.Join(a, " "), tty, res.Code, len(s.Requests()), res)
			}
		}
	})
	slices.Sort(found)
	if want := []string{"instance delete-all", "namespace clean", "network delete-all"}; !slices.Equal(found, want) {
		t.Errorf("destructive verbs %v, want at least %v", found, want)
	}
}

// manyDeleters are the client's methods that delete many objects at once:
// every DELETE of a collection's own path ("/instances", not
// "/instances/"+ref) is in a method named DeleteAll…, and any method that
// calls one deletes many too (CleanNamespace).
func manyDeleters(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join("..", "..", "client", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	collection := regexp.MustCompile(`^"/[a-z]+"$`)
	calls := map[string][]string{}
	out := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					calls[fn.Name.Name] = append(calls[fn.Name.Name], sel.Sel.Name)
				}
				for i, arg := range call.Args {
					sel, ok := arg.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "MethodDelete" || i+1 >= len(call.Args) {
						continue
					}
					if lit, ok := call.Args[i+1].(*ast.BasicLit); ok && collection.MatchString(lit.Value) {
						if !strings.HasPrefix(fn.Name.Name, "DeleteAll") {
							t.Errorf("%s: %s sends DELETE %s, a delete of many: name it DeleteAll… so the scans keep it behind the scope rule", fset.Position(call.Pos()), fn.Name.Name, lit.Value)
						}
						out[fn.Name.Name] = true
					}
				}
				return true
			})
		}
	}
	for changed := true; changed; {
		changed = false
		for fn, callees := range calls {
			for _, callee := range callees {
				if out[callee] && !out[fn] {
					out[fn], changed = true, true
				}
			}
		}
	}
	return out
}

// No command reaches a client call that deletes many objects except from
// the Delete of a builders.DeleteAllSpec, which is handed the Scope that
// ResolveScope judged and ConfirmScope named: the one mechanism.
func TestManyDeletesAreCalledOnlyWithAJudgedScope(t *testing.T) {
	deleters := manyDeleters(t)
	for _, want := range []string{"DeleteAllInstances", "DeleteAllNetworks", "CleanNamespace"} {
		if !deleters[want] {
			t.Errorf("the scan does not see %s as a delete of many (%v)", want, deleters)
		}
	}
	calls := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		// The spans of every DeleteAllSpec's Delete.
		type span struct{ from, to token.Pos }
		var allowed []span
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "DeleteAllSpec" {
				for _, e := range lit.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Delete" {
							allowed = append(allowed, span{kv.Value.Pos(), kv.Value.End()})
						}
					}
				}
			}
			return true
		})
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !deleters[sel.Sel.Name] {
				return true
			}
			calls++
			for _, a := range allowed {
				if call.Pos() >= a.from && call.End() <= a.to {
					return true
				}
			}
			t.Errorf("%s: %s is called outside a builders.DeleteAllSpec's Delete, so its scope is not judged first (issue 40: the system key widens it to every namespace)", fset.Position(call.Pos()), sel.Sel.Name)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 3 {
		t.Errorf("the scan found %d calls of a delete of many; it sees nothing", calls)
	}
}
