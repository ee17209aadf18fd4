package root_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/cli/clitest"
)

func TestHelpListsTopics(t *testing.T) {
	res := clitest.CmdRun{}.Run(t, "help")
	for _, want := range []string{"Help topics", "exit-codes", "configuration"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("shakectl help lacks %q:\n%s", want, res.Stdout)
		}
	}
	res = clitest.CmdRun{}.Run(t, "help", "configuration")
	if res.Code != 0 || !strings.Contains(res.Stdout, "highest precedence first") {
		t.Error(res)
	}
}
