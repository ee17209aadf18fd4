package root_test

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// manualBlockUnder is the first ```sh block after the heading of a page of
// the manual (docs/FILE), whatever its level.
func manualBlockUnder(t *testing.T, file, heading string) string {
	t.Helper()
	page := manualPage(t, file)
	m := regexp.MustCompile(`(?m)^#+ ` + regexp.QuoteMeta(heading) + `\n`).FindStringIndex(page)
	if m == nil {
		t.Fatalf("docs/%s has no heading %q", file, heading)
	}
	_, rest, ok := strings.Cut(page[m[1]:], "\n```sh\n")
	block, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed {
		t.Fatalf("docs/%s: no ```sh block under %q", file, heading)
	}
	return block
}

// TestManualAwaitAgentExample runs the "Waiting for the agent" block of
// the manual (docs/cloud.md, once README's) against sim cluster of both generations whose agents take 3 s
// to boot after their instance is created: await returns only once the
// agent is ready, so execute, run next, succeeds. Each line is parsed as
// sh parses it (no variable or substitution may appear: every word is run
// as written) and run in-process as shakectl. Without the await, the same
// execute is refused until the instance is created (the server's 406) and
// then while the agent boots (its 400), which is what the example guards
// against.
func TestManualAwaitAgentExample(t *testing.T) {
	block := manualBlockUnder(t, "cloud.md", "Waiting for the agent before running a command")
	f, err := syntax.NewParser().Parse(strings.NewReader(block), "docs/cloud.md")
	if err != nil {
		t.Fatal(err)
	}
	var calls [][]string
	for _, st := range f.Stmts {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 || c.Args[0].Lit() != "shakectl" {
			t.Fatalf("docs/cloud.md block line %d is not one shakectl command", st.Pos().Line())
		}
		var words []string
		for _, w := range c.Args[1:] {
			lit := w.Lit()
			if lit == "" {
				t.Fatalf("docs/cloud.md block line %d: a word that is not a literal", st.Pos().Line())
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
