package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// --gate is on by default and -o json's summary says how many sends it
// held back; --gate off (or --gate=off) leaves the summary as it was
// before the gate; any other value is a usage error. The value may be a
// word of its own (issue 40, item 9: "wrap --gate off -- true" ran a
// command named "off").
func TestWrapGateFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flag     []string
		wantHeld bool
	}{{nil, true}, {[]string{"--gate=on"}, true}, {[]string{"--gate", "on"}, true}, {[]string{"--gate=off"}, false}, {[]string{"--gate", "off"}, false}} {
		t.Run("wrap "+strings.Join(tt.flag, " "), func(t *testing.T) {
			t.Parallel()
			up, _ := refusingAPI(t, 1)
			args := append([]string{"wrap", "-o", "json"}, tt.flag...)
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
	// Without a value it says what it takes, before anything runs.
	t.Run("wrap --gate", func(t *testing.T) {
		res := clitest.CmdRun{Url: "http://127.0.0.1:1/api"}.Run(t, "wrap", "--gate")
		if res.Code != 2 || res.Stderr != "error: flag needs an argument: --gate\nhint: see 'shakectl wrap --help'\n" {
			t.Errorf("%s", res)
		}
	})
}

// proxy --gate off, the value a word of its own, is the proxy with the
// gate off (it said `unknown command "off"`): its JSON summary, printed
// when the run ends, has no held_back.
func TestProxyGateOffAsAWord(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flag     []string
		wantHeld bool
	}{{[]string{"--gate", "off"}, false}, {[]string{"--gate", "on"}, true}} {
		t.Run(strings.Join(tt.flag, " "), func(t *testing.T) {
			t.Parallel()
			up, _ := refusingAPI(t, 0)
			_, errOut, stop := startProxyCmd(t, append([]string{"--api-url", up.URL + "/api", "-o", "json"}, tt.flag...)...)
			code := stop(cmdutil.ErrInterrupted)
			lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
			if code != cmdutil.ExitInterrupted || len(lines) != 2 {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			var sum map[string]any
			if err := json.Unmarshal([]byte(lines[0]), &sum); err != nil || sum["event"] != "summary" {
				t.Fatalf("stderr %q: no JSON summary", errOut)
			}
			if _, held := sum["held_back"]; held != tt.wantHeld {
				t.Errorf("summary %v: held_back present %v, want %v", sum, held, tt.wantHeld)
			}
		})
	}
}
