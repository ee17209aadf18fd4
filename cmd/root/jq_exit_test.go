package root_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Issue 40, item 12: an error the --jq expression raises exited 5, the
// code README's table keeps for "not found" (gojq's errors carry jq's own
// exit code, 5; halt_error's its argument, so halt_error(3) exited 3,
// "checks failed"). A filter that fails on the answer is exit 1, with the
// filter's message; one that does not compile stays a usage error (2).
func TestJQErrorsAreFailuresNotNotFound(t *testing.T) {
	r := clitest.AgainstStubs(clitest.NewFixtureStubs(t))
	for _, tc := range []struct {
		expr, stderr string
		code         int
	}{
		// --jq implies -o json: the error is a JSON line with its code.
		{`error("x")`, `{"error":"--jq: error: x","exit_code":1}` + "\n", cmdutil.ExitFailure},
		{`error(null)`, `{"error":"--jq: error: null","exit_code":1}` + "\n", cmdutil.ExitFailure},
		{`"msg" | halt_error`, `{"error":"--jq: halt error: msg","exit_code":1}` + "\n", cmdutil.ExitFailure},
		{`"three" | halt_error(3)`, `{"error":"--jq: halt error: three","exit_code":1}` + "\n", cmdutil.ExitFailure},
		{`.[0].name | tonumber`, `{"error":"--jq: tonumber cannot be applied to \"web1\": invalid number","exit_code":1}` + "\n", cmdutil.ExitFailure},
		{`.[] |`, "", cmdutil.ExitUsage},
	} {
		res := r.Run(t, "instance", "list", "--jq", tc.expr)
		if res.Code != tc.code || res.Stdout != "" || (tc.stderr != "" && res.Stderr != tc.stderr) {
			t.Errorf("--jq %s: %s\nwant exit %d, stderr %q", tc.expr, res, tc.code, tc.stderr)
		}
	}
}
