package proxy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The proxy's -o json log quotes the server's stage: its C1 controls are
// escaped (U+009B is an 8-bit CSI), and every line decodes to the stage the
// server sent.
func TestJSONLinesEscapeC1(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const stage = "idle_cpu\u009b2J\u0085"
		r := newRig(t, Options{Budget: 3 * time.Second, Log: jsonLog}, func(n int, w http.ResponseWriter, _ *http.Request) {
			refusal(stage, true, "1", n)(w)
		})
		r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody))
		log := r.log.String()
		if strings.ContainsAny(log, "\u009b\u0085") {
			t.Errorf("raw C1 in the log:\n%q", log)
		}
		lines := strings.Split(strings.TrimSpace(log), "\n")
		for _, l := range lines {
			var ev struct{ Stage string }
			if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Stage != stage {
				t.Errorf("line %q: stage %q, %v", l, ev.Stage, err)
			}
		}
		if len(lines) < 2 {
			t.Errorf("want retry lines and the hand-back, got:\n%s", log)
		}
	})
}

// Issue 34, item 3: the proxy's text lines quoted the client's path and the
// server's stage with raw ESC, BEL and CR (a hostile stage set the window
// title and forged a line). Every line goes through one sanitising writer:
// the log holds no control but its line ends, and still names the path
// and the stage.
func TestTextLinesCarryNoControls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const stage = `idle\u001b]0;PWNED\u0007\u001b[2K\rFAKE: all good`
		r := newRig(t, Options{Budget: 3 * time.Second}, func(n int, w http.ResponseWriter, _ *http.Request) {
			refusal(stage, true, "1", n)(w)
		})
		r.do(t.Context(), "POST", "/instances/%1b]0;PATH%07%0d", strings.NewReader(createBody))
		log := r.log.String()
		if strings.ContainsAny(strings.ReplaceAll(log, "\n", ""), "\x1b\x07\r") {
			t.Errorf("raw controls in the log:\n%q", log)
		}
		if !strings.Contains(log, "POST /instances/ ]0;PATH  : capacity refused at stage idle ]0;PWNED  [2K FAKE: all good (transient)") {
			t.Errorf("the line no longer names the path and the stage:\n%q", log)
		}
	})
}
