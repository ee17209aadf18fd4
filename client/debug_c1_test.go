package client

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A body under --debug is re-encoded (to redact secrets); its C1 controls
// come out escaped, so they stay visible as \u009b instead of becoming the
// space termtext.Writer makes of a raw one, and the value is the server's.
func TestDebugBodyEscapesC1(t *testing.T) {
	const name = "web\u009b2J\u0085"
	body, _ := json.Marshal(map[string]string{"name": name, "key": "secret"})
	shown := redactBody(body)
	var got map[string]string
	if bytes.Contains(shown, []byte("\u009b")) || bytes.Contains(shown, []byte("\u0085")) || json.Unmarshal(shown, &got) != nil || got["name"] != name || got["key"] != "[redacted]" {
		t.Errorf("--debug shows %q", shown)
	}
}
