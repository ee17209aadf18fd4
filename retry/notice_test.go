package retry

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A 507's stage is the server's text; under -o json its retry line on
// stderr carries it escaped, C1 controls included (U+009B is an 8-bit CSI),
// and a script decodes the stage the server sent.
func TestNoticeJSONEscapesC1(t *testing.T) {
	const stage = "idle_cpu\u009b2J\u0085"
	line := Notice{Stage: stage, Wait: time.Second, Attempt: 2, Max: 5, Left: time.Minute}.JSON()
	var got struct{ Stage string }
	if strings.Contains(line, "\u009b") || strings.Contains(line, "\u0085") || json.Unmarshal([]byte(line), &got) != nil || got.Stage != stage {
		t.Errorf("the retry line %q", line)
	}
}
