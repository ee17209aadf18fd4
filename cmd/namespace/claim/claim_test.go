package claim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The claim is 2026 auth.py's claim_example and the refusals its
// CLAIM_REFUSAL_* answers, as recorded in client/testdata/sf2026.

const claimUUID = "0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f"

func TestClaimListAndShowGolden(t *testing.T) {
	claim := clitest.ReadGolden(t, "sf2026/claim.json")
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/auth/namespaces/ci/claims", 200, "["+claim+"]")
	fa.Reply("GET", "/auth/namespaces/ci/claims/"+claimUUID, 200, claim)
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "claim_list", "namespace", "claim", "list", "ci")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "claim_show", "namespace", "claim", "show", "ci", claimUUID)
}

func TestClaimCreateSendsLimitsAndExpiry(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/auth/namespaces/ci/claims", 200, clitest.ReadGolden(t, "sf2026/claim.json"))
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "create", "ci", "--cpus", "40", "--memory", "81920", "--disk", "2000", "--expiry", "24h", "-o", "simple")
	if res.Code != 0 || !strings.Contains(res.Stdout, "cpus\t12/40\n") {
		t.Fatal(res)
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(fa.LastBody("POST", "/auth/namespaces/ci/claims")), &body)
	want := map[string]any{"limit_cpus": 40.0, "limit_memory_mb": 81920.0, "limit_disk_gb": 2000.0, "expires_in_seconds": 86400.0}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("%s = %v, want %v (body %v)", k, body[k], v, body)
		}
	}
	// Every limit is required.
	res = clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "create", "ci", "--cpus", "40")
	if res.Code != cmdutil.ExitUsage || fa.Count("POST", "/auth/namespaces/ci/claims") != 1 {
		t.Fatal(res)
	}
}

func TestClaimRefusalsExitCodes(t *testing.T) {
	for _, tc := range []struct {
		row   string
		code  int
		words string
	}{
		{"claim 507 no capacity", cmdutil.ExitCapacityPermanent, "smaller limits"},
		{"claim 503 accounting not ready", cmdutil.ExitCapacityTransient, "retry"},
		{"claim 503 contended", cmdutil.ExitCapacityTransient, "retry"},
		{"claim 409 exists", cmdutil.ExitFailure, "already holds an active claim"},
	} {
		t.Run(tc.row, func(t *testing.T) {
			fa := clitest.NewStubs(t)
			fa.Canned("POST", "/auth/namespaces/ci/claims", clitest.RecordedRefusal(t, "sf2026/refusals.json", tc.row))
			res := clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "create", "ci", "--cpus", "4000", "--memory", "1", "--disk", "1", "--expiry", "1h")
			if res.Code != tc.code || !strings.Contains(res.Stderr, tc.words) || res.Stdout != "" {
				t.Fatal(res)
			}
			// -o json: the refusal says whether waiting helps.
			res = clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "create", "ci", "--cpus", "4000", "--memory", "1", "--disk", "1", "--expiry", "1h", "-o", "json")
			var rep map[string]any
			if err := json.Unmarshal([]byte(res.Stderr), &rep); err != nil {
				t.Fatalf("%v: %s", err, res)
			}
			if transient := rep["transient"] == true; transient != (tc.code == cmdutil.ExitCapacityTransient) {
				t.Errorf("transient %v for exit %d: %s", rep["transient"], tc.code, res.Stderr)
			}
		})
	}
}

func TestClaimUpdateSendsOnlyWhatChanged(t *testing.T) {
	fa := clitest.NewStubs(t)
	path := "/auth/namespaces/ci/claims/" + claimUUID
	fa.Reply("PUT", path, 200, clitest.ReadGolden(t, "sf2026/claim.json")).Times(1)
	if res := clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "update", "ci", claimUUID, "--cpus", "48"); res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("PUT", path); got != `{"limit_cpus":48}` {
		t.Errorf("body = %s", got)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "update", "ci", claimUUID); res.Code != cmdutil.ExitUsage || fa.Count("PUT", path) != 1 {
		t.Fatal(res)
	}
	fa.Canned("PUT", path, clitest.RecordedRefusal(t, "sf2026/refusals.json", "claim 409 below usage"))
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "update", "ci", claimUUID, "--cpus", "1")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "shrunk below") {
		t.Fatal(res)
	}
}

func TestClaimDelete(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("DELETE", "/auth/namespaces/ci/claims/"+claimUUID, 200, clitest.ReadGolden(t, "sf2026/claim.json"))
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "claim", "delete", "ci", claimUUID, "--jq", ".uuid")
	if res.Code != 0 || res.Stdout != claimUUID+"\n" {
		t.Fatal(res)
	}
}
