package cmdutil_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

type recordedRefusal struct {
	Name   string            `json:"name"`
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Status int               `json:"status"`
	Header map[string]string `json:"header"`
	Body   json.RawMessage   `json:"body"`
}

func readRefusals(t *testing.T, gen string) map[string]recordedRefusal {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "client", "testdata", gen, "refusals.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []recordedRefusal
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]recordedRefusal{}
	for _, r := range rows {
		out[r.Name] = r
	}
	return out
}

// Every refusal recorded from the real sources of each generation
// (client/testdata/sf2024 and sf2026, SOURCES.md) gets the exit code and
// the hint a user of that generation should see (issue 25: hints and exit
// codes follow the real texts, not the simulator's).
func TestHintsAndExitCodesForRecordedRefusals(t *testing.T) {
	cases := []struct {
		gen, name string
		code      int
		hint      string
	}{
		{"sf2024", "507 No nodes with metrics", cmdutil.ExitCapacityPermanent, "no hypervisor has reported its metrics"},
		{"sf2024", "507 Requested vCPUs exceeds vCPU limit", cmdutil.ExitCapacityPermanent, "ask for fewer vCPUs"},
		{"sf2024", "507 No nodes with enough idle CPU", cmdutil.ExitCapacityPermanent, "no node has enough idle vCPUs"},
		{"sf2024", "507 No nodes with enough idle RAM", cmdutil.ExitCapacityPermanent, "enough free memory"},
		{"sf2024", "507 No nodes with enough disk space", cmdutil.ExitCapacityPermanent, "enough free disk"},
		{"sf2024", "507 CongestedNetwork", cmdutil.ExitCapacityPermanent, "address pool is exhausted"},
		{"sf2024", "406 network not ready", cmdutil.ExitFailure, "not ready yet"},
		// Networks in use are not a refused key (issue 40, item 11).
		{"sf2024", "403 delete-all with networks in use", cmdutil.ExitAuth, "the networks listed as unable still have interfaces"},
		{"sf2026", "507 transient sufficient_idle_cpu", cmdutil.ExitCapacityTransient, "short of capacity at stage sufficient_idle_cpu right now"},
		{"sf2026", "507 transient queue_state", cmdutil.ExitCapacityTransient, "at stage queue_state right now"},
		{"sf2026", "507 capacity guard", cmdutil.ExitCapacityTransient, "at stage capacity_guard right now"},
		{"sf2026", "507 structural pre_schedule", cmdutil.ExitCapacityPermanent, "no candidate nodes"},
		{"sf2026", "507 structural is_hypervisor", cmdutil.ExitCapacityPermanent, "is a hypervisor"},
		{"sf2026", "507 structural cpu_max_per_instance", cmdutil.ExitCapacityPermanent, "ask for fewer vCPUs"},
		{"sf2026", "507 unknown stage", cmdutil.ExitCapacityPermanent, "report it to the cluster's operators"},
		{"sf2026", "507 CongestedNetwork", cmdutil.ExitCapacityPermanent, "address pool is exhausted"},
		// A 2026 server older than the contract: the stage is read out
		// of the text for the hint and the exit code (never to retry).
		{"sf2026", "507 before the contract (2026 develop 59fde751): the stage only in the text", cmdutil.ExitCapacityTransient, "at scheduling stage sufficient_idle_cpu, which waiting usually fixes"},
		{"sf2026", "507 transient true without a stage (issue 25 table)", cmdutil.ExitCapacityTransient, "short of capacity at stage sufficient_idle_cpu right now"},
		{"sf2026", "507 transient 1 (issue 25 table)", cmdutil.ExitCapacityPermanent, "is not a JSON true or false"},
		{"sf2026", `507 transient "true" (issue 25 table)`, cmdutil.ExitCapacityPermanent, "is not a JSON true or false"},
		{"sf2026", "409 hard affinity", cmdutil.ExitCapacityPermanent, "hard placement constraint"},
		{"sf2026", "404 pinned node missing", cmdutil.ExitNotFound, "the node (--placement) does not exist"},
		{"sf2026", "500 power on failed", cmdutil.ExitFailure, "the hypervisor could not carry out the power action"},
		{"sf2026", "409 power on a paused instance", cmdutil.ExitFailure, `"shakectl instance unpause" it instead`},
	}
	rows := map[string]map[string]recordedRefusal{"sf2024": readRefusals(t, "sf2024"), "sf2026": readRefusals(t, "sf2026")}
	for _, tc := range cases {
		row, ok := rows[tc.gen][tc.name]
		if !ok {
			t.Fatalf("%s has no row %q", tc.gen, tc.name)
		}
		h := http.Header{}
		for k, v := range row.Header {
			h.Set(k, v)
		}
		err := client.NewAPIError(row.Method, "http://sf:13000"+row.Path, row.Status, h, row.Body, time.Now())
		if got := cmdutil.ExitCode(err); got != tc.code {
			t.Errorf("%s %s: exit %d, want %d", tc.gen, tc.name, got, tc.code)
		}
		if r := cmdutil.DescribeError(err); !strings.Contains(r.Hint, tc.hint) {
			t.Errorf("%s %s: hint %q, want it to say %q", tc.gen, tc.name, r.Hint, tc.hint)
		}
	}
}

// The 403s of scoped tokens (2026) are explained as scopes, not
// namespaces; texts as the 2026 sim and the authentication guide
// (@00b8f3e2) word them.
func TestForbiddenHintsSpeakOfScopes(t *testing.T) {
	for msg, want := range map[string]string{
		"token is not scoped for administrative operations": "cluster-admin scope",
		"token is not scoped for network.delete":            "scoped key needs <family>.<verb>",
		"you cannot access that namespace":                  "owning namespace",
	} {
		body, _ := json.Marshal(map[string]any{"error": msg, "status": 403})
		err := client.NewAPIError("DELETE", "http://sf:13000/networks/n", 403, http.Header{}, body, time.Now())
		if r := cmdutil.DescribeError(err); !strings.Contains(r.Hint, want) || cmdutil.ExitCode(err) != cmdutil.ExitAuth {
			t.Errorf("%q: hint %q, want %q", msg, r.Hint, want)
		}
	}
}

// A 2026 validation 400 names the parameter ("<parameter>: <reason>",
// PLAN-api-input-validation D4; the documented example from the 2026 API
// reference is "disk[0].size: Not a valid integer."), and the hint says
// which; a 2024 TypeError text gets the general hint.
func TestBadRequestHintNamesTheParameter(t *testing.T) {
	for msg, want := range map[string]string{
		"disk[0].size: Not a valid integer.":                                "the server refused the parameter disk[0].size",
		"foo: Unknown field.":                                               "the server refused the parameter foo",
		"InstancesEndpoint.post() got an unexpected keyword argument 'foo'": "the server refused the request's parameters",
	} {
		body, _ := json.Marshal(map[string]any{"error": msg, "status": 400})
		err := client.NewAPIError("POST", "http://sf:13000/instances", 400, http.Header{}, body, time.Now())
		if r := cmdutil.DescribeError(err); !strings.HasPrefix(r.Hint, want) {
			t.Errorf("%q: hint %q, want %q", msg, r.Hint, want)
		}
	}
}
