package root_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// readmeBlockUnder is the first ```sh block after the README heading
// (issue 35: the example in which instance await waits for the agent
// before instance execute).
func readmeBlockUnder(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "\n### "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "\n```sh\n")
	block, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed {
		t.Fatalf("README.md: no ```sh block under %q", heading)
	}
	return block
}

// TestREADMEAwaitAgentExample runs the README's "Waiting for the agent"
// block against sim cluster of both generations whose agents take 3 s
// to boot after their instance is created: await returns only once the
// agent is ready, so execute, run next, succeeds. Each line is parsed as
// sh parses it (no variable or substitution may appear: every word is run
// as written) and run in-process as shakectl. Without the await, the same
// execute is refused until the instance is created (the server's 406) and
// then while the agent boots (its 400), which is what the example guards
// against.
func TestREADMEAwaitAgentExample(t *testing.T) {
	block := readmeBlockUnder(t, "Waiting for the agent before running a command")
	f, err := syntax.NewParser().Parse(strings.NewReader(block), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	var calls [][]string
	for _, st := range f.Stmts {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 || c.Args[0].Lit() != "shakectl" {
			t.Fatalf("README block line %d is not one shakectl command", st.Pos().Line())
		}
		var words []string
		for _, w := range c.Args[1:] {
			lit := w.Lit()
			if lit == "" {
				t.Fatalf("README block line %d: a word that is not a literal", st.Pos().Line())
			}
			words = append(words, lit)
		}
		calls = append(calls, words)
	}
	if len(calls) != 4 || calls[2][1] != "await" || calls[3][1] != "execute" {
		t.Fatalf("the block is not create, create, await, execute: %q", calls)
	}
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		// On synctest's virtual clock: the 3 s boot is not waited for,
		// and however slow the machine, execute runs before the agent
		// is ready and await returns only once it is.
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _ := clitest.SimClusterInMemory(t, gen, func(c *cluster.Config) {
					c.CreateTime, c.NetworkDeployTime = 100*time.Millisecond, 100*time.Millisecond
					c.AgentBoot = 3 * time.Second
				})
				step := stepper(t, r)
				step(0, calls[0]...)
				step(0, calls[1]...)
				// Not yet: the instance is not created (the real node's
				// 406), then it is but its agent has not booted (400).
				if res := step(cmdutil.ExitFailure, "instance", "execute", "app1", "--", "true"); !strings.Contains(res.Stderr, "is not ready (initial)") {
					t.Errorf("execute before the instance is created:\n%s", res)
				}
				step(0, "instance", "await", "app1", "--state", "created")
				if res := step(cmdutil.ExitFailure, "instance", "execute", "app1", "--", "true"); !strings.Contains(res.Stderr, "instance agent not ready") {
					t.Errorf("execute before the agent is ready:\n%s", res)
				}
				step(0, calls[2]...)
				if res := step(0, calls[3]...); res.Stdout != "hello from app1\n" {
					t.Errorf("execute printed %q", res.Stdout)
				}
			})
		})
	}
}
