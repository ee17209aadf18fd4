package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// --gate is on by default and -o json's summary says how many sends it
// held back; --gate=off leaves the summary as it was before the gate; any
// other value is a usage error.
func TestWrapGateFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flag     string
		wantHeld bool
	}{{"", true}, {"--gate=on", true}, {"--gate", true}, {"--gate=off", false}} {
		t.Run("wrap "+tt.flag, func(t *testing.T) {
			t.Parallel()
			up, _ := refusingAPI(t, 1)
			args := []string{"wrap", "-o", "json"}
			if tt.flag != "" {
				args = append(args, tt.flag)
			}
			res := clitest.CmdRun{Url: up.URL + "/api"}.Run(t, append(append(args, "--"), helperArgv(t, "create")...)...)
			if res.Code != 0 {
				t.Fatalf("%s", res)
			}
			lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			var sum map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum["event"] != "summary" {
				t.Fatalf("the last stderr line %q is not the JSON summary", lines[len(lines)-1])
			}
			held, ok := sum["held_back"]
			if ok != tt.wantHeld || (ok && held != 0.0) {
				t.Errorf("summary %v: held_back present %v, want %v (and 0: one client holds nothing back)", sum, ok, tt.wantHeld)
			}
		})
	}
	t.Run("wrap --gate=maybe", func(t *testing.T) {
		res := clitest.CmdRun{Url: "http://127.0.0.1:1/api"}.Run(t, "wrap", "--gate=maybe", "--", "true")
		if res.Code != 2 || !strings.Contains(res.Stderr, "want on or off") {
			t.Errorf("%s", res)
		}
	})
	t.Run("proxy --gate=maybe", func(t *testing.T) {
		res := clitest.CmdRun{Url: "http://127.0.0.1:1/api"}.Run(t, "proxy", "--gate=maybe")
		if res.Code != 2 || !strings.Contains(res.Stderr, "want on or off") {
			t.Errorf("%s", res)
		}
	})
}
