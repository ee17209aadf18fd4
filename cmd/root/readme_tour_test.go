package root_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// TestREADMETourAgainstSimCluster runs the first block of README's
// five-minute tour as a new user would: `shakectl sim cluster &`, the
// exports it prints, then every shakectl command of the block in order,
// each of which must succeed. The simulator runs in-process on synctest's
// clock with `sim cluster`'s defaults (its address, namespace, key and
// generation, which the block's exports must name); every other word of
// the block is run as written, so a tour edited into a command that fails,
// or a command that stops doing what the tour shows, fails here.
func TestREADMETourAgainstSimCluster(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n## A five-minute tour\n.*?\n```sh\n(.*?)\n```\n").FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatal("README.md has no ```sh block under \"## A five-minute tour\"")
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(m[1]), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	defaults := cluster.DefaultConfig()
	wantEnv := map[string]string{
		"SHAKENFIST_API_URL":   "http://" + defaults.Listen,
		"SHAKENFIST_NAMESPACE": defaults.AuthNamespace,
		"SHAKENFIST_KEY":       defaults.AuthKey,
	}
	var calls [][]string
	simStarted := false
	for _, st := range f.Stmts {
		switch c := st.Cmd.(type) {
		case *syntax.DeclClause:
			// export NAME=VALUE …: what sim cluster says to export.
			for _, a := range c.Args {
				if want, ok := wantEnv[a.Name.Value]; !ok || a.Value.Lit() != want {
					t.Errorf("the tour exports %s=%s; sim cluster's default is %q", a.Name.Value, a.Value.Lit(), want)
				}
				delete(wantEnv, a.Name.Value)
			}
		case *syntax.CallExpr:
			var words []string
			for _, w := range c.Args {
				if w.Lit() == "" {
					t.Fatalf("README tour line %d: a word that is not a literal", st.Pos().Line())
				}
				words = append(words, w.Lit())
			}
			switch {
			case len(words) >= 3 && words[0] == "shakectl" && words[1] == "sim" && words[2] == "cluster":
				if !st.Background || len(words) != 3 || simStarted {
					t.Fatalf("README tour line %d: want one `shakectl sim cluster &`, with its defaults", st.Pos().Line())
				}
				simStarted = true
			case words[0] == "shakectl":
				if !simStarted {
					t.Fatalf("README tour line %d runs shakectl before the simulator", st.Pos().Line())
				}
				calls = append(calls, words[1:])
			case words[0] == "kill" && len(words) == 2 && words[1] == "%1":
			default:
				t.Fatalf("README tour line %d is not shakectl, export or kill %%1: %q", st.Pos().Line(), words)
			}
		default:
			t.Fatalf("README tour line %d: a statement this test cannot run", st.Pos().Line())
		}
	}
	if len(wantEnv) > 0 || len(calls) < 5 {
		t.Fatalf("the tour does not export %v, or runs %d commands", wantEnv, len(calls))
	}
	synctest.Test(t, func(t *testing.T) {
		r, _ := clitest.SimClusterInMemory(t, defaults.Generation, func(c *cluster.Config) {
			c.AuthNamespace, c.AuthKey = defaults.AuthNamespace, defaults.AuthKey
		})
		r.Env = map[string]string{"SHAKENFIST_NAMESPACE": defaults.AuthNamespace, "SHAKENFIST_KEY": defaults.AuthKey}
		for _, args := range calls {
			if res := r.Run(t, args...); res.Code != 0 {
				t.Errorf("shakectl %s: %s", strings.Join(args, " "), res)
			}
		}
	})
}
