package cmdutil_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/output/termtext"
)

// evilText is what issue 28's test server sent: a window title, an erased
// line and a forged verdict, plus an 8-bit CSI and a bidi override.
const evilText = "\x1b]0;pwned\x07\x1b[2K\rFAKE: all good\u009b2J\u202e"

// evilJSON is evilText as a JSON string's content.
func evilJSON() string {
	b, _ := json.Marshal(evilText)
	return strings.Trim(string(b), `"`)
}

// assertTerminalSafe fails if s could make a terminal do anything but show
// text: any control other than line feed and tab.
func assertTerminalSafe(t *testing.T, where, s string) {
	t.Helper()
	if termtext.Block(s) != s {
		t.Errorf("%s reaches the terminal with control characters: %q", where, s)
	}
	if strings.Contains(s, "\nFAKE: all good") {
		t.Errorf("%s starts a forged line: %q", where, s)
	}
}

// Issue 28, item 11 (and item 6 of the hostile brief): every path by which
// a server's text reaches the terminal goes through the one sanitiser.
func TestServerTextReachesTheTerminalHarmless(t *testing.T) {
	t.Run("507 stage in the retry line, the error and the hint", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fa := clitest.NewStubs(t)
			fa.Canned("POST", "/instances", clitest.Refusal(evilJSON(), "true", map[string]string{"Retry-After": "1"}))
			res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "2", "2048", "-d", "20", "--retry-transient-capacity")
			if !strings.Contains(res.Stderr, "retrying in 1s") || !strings.Contains(res.Stderr, "hint:") {
				t.Fatalf("no retry line or hint: %s", res)
			}
			assertTerminalSafe(t, "stderr", res.Stderr)
			if !strings.Contains(res.Stderr, "FAKE: all good") {
				t.Errorf("the text itself should stay readable: %s", res.Stderr)
			}
		})
	})
	t.Run("non-JSON bodies under --debug and on a terminal", func(t *testing.T) {
		url, _ := hostileAPI(t, func(_ int32, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			if r.URL.Path == "/broken" {
				w.WriteHeader(http.StatusInternalServerError)
			}
			_, _ = io.WriteString(w, evilText+"\n")
		})
		res := clitest.CmdRun{Url: url}.Run(t, "api", "GET", "/broken", "--debug")
		if !strings.Contains(res.Stderr, "FAKE") {
			t.Fatalf("the body was not logged: %s", res)
		}
		assertTerminalSafe(t, "--debug stderr", res.Stderr)
		res = clitest.CmdRun{Url: url, Tty: true}.Run(t, "api", "GET", "/text")
		if !strings.Contains(res.Stdout, "FAKE") {
			t.Fatalf("the body was not printed: %s", res)
		}
		assertTerminalSafe(t, "stdout on a terminal", res.Stdout)
	})
	t.Run("names in tables and details", func(t *testing.T) {
		// The fake cloud's nodes, every one named evilText.
		var nodes []json.RawMessage
		for _, raw := range clitest.FixtureNodes {
			var n map[string]any
			_ = json.Unmarshal(raw, &n)
			n["name"] = evilText
			b, _ := json.Marshal(n)
			nodes = append(nodes, b)
		}
		fa := clitest.NewStubs(t)
		fa.Reply("GET", "/nodes", 200, string(clitest.JoinRaw(nodes)))
		fa.Reply("GET", "/nodes/node1", 200, string(nodes[0]))
		url := fa.Serve()
		for _, args := range [][]string{{"node", "list"}, {"node", "list", "-o", "simple"}, {"node", "show", "node1"}} {
			for _, tty := range []bool{true, false} {
				res := clitest.CmdRun{Url: url, Tty: tty}.Run(t, args...)
				if res.Code != 0 || !strings.Contains(res.Stdout, "FAKE") {
					t.Errorf("%v: the names did not reach stdout, so the test proves nothing: %s", args, res)
				}
				assertTerminalSafe(t, strings.Join(args, " ")+" stdout", res.Stdout)
				assertTerminalSafe(t, strings.Join(args, " ")+" stderr", res.Stderr)
			}
		}
	})
}
