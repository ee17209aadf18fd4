package root_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

func TestHelpListsTopics(t *testing.T) {
	res := clitest.CmdRun{}.Run(t, "help")
	for _, want := range []string{"Help topics", "exit-codes", "configuration"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("shakectl help lacks %q:\n%s", want, res.Stdout)
		}
	}
	res = clitest.CmdRun{}.Run(t, "help", "configuration")
	if res.Code != 0 || !strings.Contains(res.Stdout, "Highest precedence first") {
		t.Error(res)
	}
}

// A newcomer can tell from shakectl --help, sim cluster --help and help
// generations which server generations are supported and what differs
// (issue 25).
func TestHelpNamesTheServerGenerations(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"2024 release", "2026 develop", `"shakectl help generations"`}},
		{[]string{"help"}, []string{"generations"}},
		{[]string{"help", "generations"}, []string{"da448b1a", "network delete", "cluster-operation", "No nodes remaining at scheduling stage", "--require-tag", "node UUID", "cluster-admin", "1 to 1000"}},
		{[]string{"sim", "cluster", "--help"}, []string{"--server", "2026 (default)", "da448b1a", "--network-op-errors", "--auth-scopes", "--power-fault", "--legacy-refusals with --server 2026"}},
		{[]string{"network", "delete", "--help"}, []string{"2026 (develop): 202", "2024: 200", "cluster-operation"}},
	} {
		res := clitest.CmdRun{}.Run(t, tc.args...)
		for _, w := range tc.want {
			if res.Code != 0 || !strings.Contains(res.Stdout, w) {
				t.Errorf("shakectl %s lacks %q (exit %d)", strings.Join(tc.args, " "), w, res.Code)
			}
		}
	}
}
