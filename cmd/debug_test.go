package cmd

import (
	"strings"
	"testing"
)

// --debug shows what gh's GH_DEBUG=api shows (method, full URL, headers and
// bodies both ways, timing), never the key or the token: cmdRun.run fails
// the test if either appears anywhere.
func TestDebugShowsRequestsAndAnswersWithSecretsRedacted(t *testing.T) {
	fa := newFakeAPI(t)
	run := against(fa)
	res := run.run(t, "api", "POST", "/instances", "-f", "name=web1", "--debug")
	if res.code != 0 {
		t.Fatal(res)
	}
	for _, want := range []string{
		"debug: > POST " + run.url + "/auth\n",
		"debug: > Content-Type: application/json",
		`"key":"[redacted]"`,
		`"access_token":"[redacted]"`,
		"debug: > POST " + run.url + "/instances",
		"debug: > Authorization: Bearer [redacted]",
		`debug: > {"name":"web1"}`,
		"debug: < POST /instances 200 OK in ",
		"debug: < Content-Type: application/json",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("--debug lacks %q:\n%s", want, res.stderr)
		}
	}
}

// A body larger than the bound is cut, saying how much was left out.
func TestDebugBoundsBodies(t *testing.T) {
	fa := newFakeAPI(t)
	res := against(fa).run(t, "api", "POST", "/instances", "-f", "name="+strings.Repeat("x", 6000), "--debug")
	if !strings.Contains(res.stderr, " bytes more") {
		t.Errorf("no bound on the body:\n%.2000s", res.stderr)
	}
	for _, l := range strings.Split(res.stderr, "\n") {
		if len(l) > 4096+200 {
			t.Errorf("a %d-byte debug line", len(l))
		}
	}
}
