package root_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Issue 34, item 13: flag errors in plain words, from the one flag-error
// hook: what is wrong and what is expected, never strconv's text or "unknown
// shorthand flag '1'" for a negative number.
func TestFlagErrorsInPlainWords(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"parking-probe", "--requests", "1e9"}, `error: invalid argument "1e9" for "--requests" flag: want a whole number from 1 to 100000000000, in digits, such as 1000000000 for 1e9`},
		{[]string{"parking-probe", "--seed", "-1"}, `error: invalid argument "-1" for "--seed" flag: it is out of range: want a whole number from 0 to 18446744073709551615`},
		{[]string{"parking-probe", "--requests", "99999999999999999999"}, `error: invalid argument "99999999999999999999" for "--requests" flag: it is out of range: want a whole number from 1 to 100000000000`},
		{[]string{"sim", "router", "--workers", "many"}, `error: invalid argument "many" for "--workers" flag: want a whole number from 1 to 100000`},
		{[]string{"instance", "create", "x", "-1", "1024"}, `error: -1 is not a flag of "shakectl instance create": an argument that starts with "-" is read as a flag, and no argument here takes a negative number (see the arguments in 'shakectl instance create --help')`},
	} {
		res := clitest.CmdRun{}.Run(t, c.args...)
		if res.Code != cmdutil.ExitUsage || res.Stdout != "" || !hasLine(res.Stderr, c.want) {
			t.Errorf("%v: want the line\n%s\ngot %s", c.args, c.want, res)
		}
	}
}

func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
