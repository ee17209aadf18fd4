package cmdutil_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// --debug shows what gh's GH_DEBUG=api shows (method, full URL, headers and
// bodies both ways, timing), never the key or the token: clitest.CmdRun.run fails
// the test if either appears anywhere.
func TestDebugShowsRequestsAndAnswersWithSecretsRedacted(t *testing.T) {
	fa := clitest.NewStubs(t)
	// InstancesEndpoint.post answers the new instance.
	fa.Reply("POST", "/instances", 200, `{"uuid":"00000000-0000-4000-8000-000000000004","name":"web1","namespace":"ns1","node":"","state":"initial","power_state":"","version":1}`)
	run := clitest.AgainstStubs(fa)
	res := run.Run(t, "api", "POST", "/instances", "-f", "name=web1", "--debug")
	if res.Code != 0 {
		t.Fatal(res)
	}
	for _, want := range []string{
		"debug: > POST " + run.Url + "/auth\n",
		"debug: > Content-Type: application/json",
		`"key":"[redacted]"`,
		`"access_token":"[redacted]"`,
		"debug: > POST " + run.Url + "/instances",
		"debug: > Authorization: Bearer [redacted]",
		`debug: > {"name":"web1"}`,
		"debug: < POST /instances 200 OK in ",
		"debug: < Content-Type: application/json",
	} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("--debug lacks %q:\n%s", want, res.Stderr)
		}
	}
}

// A body larger than the bound is cut, saying how much was left out.
func TestDebugBoundsBodies(t *testing.T) {
	fa := clitest.NewStubs(t)
	// InstancesEndpoint.post answers the new instance.
	fa.Reply("POST", "/instances", 200, `{"uuid":"00000000-0000-4000-8000-000000000004","name":"web1","namespace":"ns1","node":"","state":"initial","power_state":"","version":1}`)
	res := clitest.AgainstStubs(fa).Run(t, "api", "POST", "/instances", "-f", "name="+strings.Repeat("x", 6000), "--debug")
	if !strings.Contains(res.Stderr, " bytes more") {
		t.Errorf("no bound on the body:\n%.2000s", res.Stderr)
	}
	for _, l := range strings.Split(res.Stderr, "\n") {
		if len(l) > 4096+200 {
			t.Errorf("a %d-byte debug line", len(l))
		}
	}
}
