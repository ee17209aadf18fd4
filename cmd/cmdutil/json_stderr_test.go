package cmdutil_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/output"
)

// With -o json a script can parse every stderr line: the retry lines are
// JSON objects, one a line, and the final error object follows.
func TestJSONStderrIsParseableLineByLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		// Refused every time, each answer after a (virtual) second.
		fa.Register(clitest.Route("POST", "/instances"), httpstub.Delay(time.Second, clitest.TransientRefusal("1").Answer())).Always()
		res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "2", "2048", "-d", "20", "--retry-transient-capacity", "-o", "json")
		if res.Code != cmdutil.ExitCapacityTransient {
			t.Fatal(res)
		}
		lines := strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n")
		if len(lines) != 5 {
			t.Fatalf("want 4 retry lines and an error, got:\n%s", res.Stderr)
		}
		for i, l := range lines {
			var obj map[string]any
			if err := json.Unmarshal([]byte(l), &obj); err != nil {
				t.Fatalf("line %d is not JSON: %q", i+1, l)
			}
			if i < 4 && (obj["event"] != "retry" || obj["attempt"] != float64(i+2) || obj["stage"] != "sufficient_idle_cpu") {
				t.Errorf("retry line %d: %v", i+1, obj)
			}
			if i == 4 && obj["exit_code"] != float64(cmdutil.ExitCapacityTransient) {
				t.Errorf("error object: %v", obj)
			}
		}
	})
}

// ">" stays ">" in the JSON error object.
func TestJSONErrorDoesNotEscapeHTML(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.Notifier().SetMode(output.NotifyMode{JSON: true})
	ios.Notifier().Error(output.ErrorReport{Message: "p99 > 6s <bad> & worse"})
	if !strings.Contains(errOut.String(), `"p99 > 6s <bad> & worse"`) {
		t.Errorf("escaped: %s", errOut)
	}
}

// Warnings are JSON objects too under -o json.
func TestJSONWarnings(t *testing.T) {
	r := clitest.AgainstStubs(clitest.NewFixtureStubs(t))
	res := r.Run(t, "instance", "list", "-o", "json", "--insecure")
	if res.Code != 0 {
		t.Fatal(res)
	}
	for _, l := range strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n") {
		var obj map[string]string
		if err := json.Unmarshal([]byte(l), &obj); err != nil || obj["warning"] == "" {
			t.Errorf("stderr line %q is not a JSON warning", l)
		}
	}
}

// Issue 25: under -o json instance create's lenient wait (--async pause
// running out) and the 406 repeat said so in plain text among the JSON
// lines; every stderr line is now a JSON object, and the same facts are
// still plain text without -o json.
func TestJSONStderrForWaitsAndRepeats(t *testing.T) {
	run := func(t *testing.T, format string) clitest.RunResult {
		fa := clitest.NewStubs(t)
		// Refused while the network is not ready, then created; the new
		// instance stays creating past the wait's 60 s.
		fa.InTurn("POST", "/instances", httpstub.Error(406, "network mynet is not ready (initial)"),
			httpstub.String(200, clitest.CreatedInstance("web1", "initial")))
		fa.Reply("GET", "/instances/"+clitest.NewInstanceUUID, 200, clitest.CreatedInstance("web1", "creating"))
		res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "1", "1024", "-d", "8", "-n", "mynet", "-o", format)
		if res.Code != 0 {
			t.Fatal(res)
		}
		return res
	}
	synctest.Test(t, func(t *testing.T) {
		res := run(t, "json")
		lines := strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n")
		events := []string{}
		for i, l := range lines {
			var obj map[string]any
			if err := json.Unmarshal([]byte(l), &obj); err != nil {
				t.Fatalf("line %d is not JSON: %q", i+1, l)
			}
			events = append(events, obj["event"].(string))
		}
		if strings.Join(events, ",") != "not_ready,still_waiting" {
			t.Errorf("events %v\n%s", events, res.Stderr)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		res := run(t, "table")
		if !strings.Contains(res.Stderr, "network mynet is not ready (initial); retrying in 1s") || !strings.Contains(res.Stderr, "instance web1 did not reach state created within 1m0s (last state: creating)") {
			t.Errorf("plain stderr:\n%s", res.Stderr)
		}
	})
}
