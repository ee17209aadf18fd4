package instance_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// Issue 25: a 507 marked "transient": true without a stage is retried
// (the field is the gate: shakenfist/shakenfist
// docs/operator_guide/capacity_refusals.md @0c24a714), and what the user reads names the
// stage the text gives instead of an empty one. The body is the recorded
// row "507 transient true without a stage" of client/testdata/sf2026.
func TestStagelessTransientRefusalIsRetriedAndNamed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		refusal := clitest.CannedReply{Status: 507, Header: map[string]string{"Retry-After": "15"},
			Body: `{"error": "No nodes remaining at scheduling stage sufficient_idle_cpu", "status": 507, "transient": true}`}
		fa.InTurn("POST", "/instances", refusal.Answer(), httpstub.String(200, clitest.CreatedInstance("web1", "created")))
		res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "1", "1024", "-d", "8", "--retry-transient-capacity")
		if res.Code != 0 || fa.Count("POST", "/instances") != 2 {
			t.Fatalf("not retried: %s", res)
		}
		if strings.Contains(res.Stderr, "stage  ") || !strings.Contains(res.Stderr, "retrying in 15s") {
			t.Errorf("the retry line: %q", res.Stderr)
		}
		fa = clitest.NewStubs(t)
		fa.Canned("POST", "/instances", refusal)
		res = clitest.StubsInMemory(fa).Run(t, "instance", "create", "web2", "1", "1024", "-d", "8")
		if res.Code != cmdutil.ExitCapacityTransient || !strings.Contains(res.Stderr, "short of capacity at stage sufficient_idle_cpu right now") {
			t.Errorf("without the flag: %s", res)
		}
	})
}
