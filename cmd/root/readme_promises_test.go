package root_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// The manual's promises of a destructive command's scope and of the codes
// some answers exit with are kept by running what they promise: the
// sentences are read from the pages that make them (docs/operating.md,
// docs/output.md; once README's) and the codes from the exit-code table
// (docs/exit-codes.md), and the command must do what they say. A page
// edited away from the code, or code that breaks the promise, fails here.
func TestManualPromisesOfDestructiveScopeAndAnswers(t *testing.T) {
	flat := func(file string) string { return strings.Join(strings.Fields(manualPage(t, file)), " ") }
	codes := manualExitCodes(t)
	code := func(meaning string) int {
		t.Helper()
		for c, m := range codes {
			if strings.HasPrefix(m, meaning) {
				return c
			}
		}
		t.Fatalf("docs/exit-codes.md has no row %q: %v", meaning, codes)
		return -1
	}
	for _, promise := range []struct{ file, sentence string }{
		{"operating.md", "So a system key must name one: `--namespace NAMESPACE`, or `--all-namespaces` to mean every namespace on purpose; with no namespace, or with `--namespace system` (or `namespace clean system`), the command exits 2 before anything is sent."},
		{"output.md", "an error the expression raises as it runs (`error(\"x\")`, `halt_error`, a type error) exits 1"},
	} {
		if !strings.Contains(flat(promise.file), promise.sentence) {
			t.Errorf("docs/%s no longer says: %s", promise.file, promise.sentence)
		}
	}

	// "a system key must name one": exit 2 (usage), nothing sent.
	usage := code("usage error")
	for _, args := range [][]string{
		{"instance", "delete-all", "--yes"},
		{"network", "delete-all", "--yes"},
		{"instance", "delete-all", "--namespace", "system", "--yes"},
		{"namespace", "clean", "system", "--yes"},
	} {
		s := clitest.NewStubsAs(t, "system")
		res := clitest.AgainstStubs(s).As("system").Run(t, args...)
		if res.Code != usage || len(s.Requests()) != 0 {
			t.Errorf("%v with the system key: %s\nwant the manual's usage code %d, nothing sent", args, res, usage)
		}
	}

	// A console route's null is a failure (1), never success; an error
	// of --jq is a failure too, not "not found".
	failure := code("any failure not listed below")
	notFound := code("not found")
	s := clitest.NeverPlacedStubs(t)
	for _, args := range [][]string{
		{"instance", "consoledata", "big"},
		{"instance", "vdiconsolefile", "big", "-"},
	} {
		if res := clitest.AgainstStubs(s).Run(t, args...); res.Code != failure || res.Stdout != "" {
			t.Errorf("%v: %s\nwant the manual's failure code %d", args, res, failure)
		}
	}
	res := clitest.AgainstStubs(clitest.NewFixtureStubs(t)).Run(t, "instance", "list", "--jq", `error("x")`)
	if res.Code != failure || res.Code == notFound {
		t.Errorf("--jq error: %s\nwant the manual's failure code %d, not its not-found %d", res, failure, notFound)
	}

	// 401 after one re-login: authentication or authorisation refused.
	auth := code("authentication or authorisation refused")
	s = clitest.NewStubsAs(t, "ci")
	s.ReplyRecordedAnswer(t, "GET", "/admin/locks", "sf2024/recorded/admin-locks-401.http")
	if res := clitest.AgainstStubs(s).As("ci").Run(t, "admin", "lock", "list"); res.Code != auth || s.Logins() != 2 {
		t.Errorf("admin route, ci key: %s\nwant the manual's code %d after one re-login", res, auth)
	}
}
