package progress

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// A progress line names a blob or an instance, the server's text: its C1
// controls are escaped, and a script decodes the name the server sent.
func TestJSONLineEscapesC1(t *testing.T) {
	const name = "disk\u009b2J\u0085"
	var buf bytes.Buffer
	m := New(&buf, JSON, "download", name, 10, 0, fakeClock(time.Second))
	m.Finish(10, true)
	var got Line
	if bytes.Contains(buf.Bytes(), []byte("\u009b")) || bytes.Contains(buf.Bytes(), []byte("\u0085")) || json.Unmarshal(buf.Bytes(), &got) != nil || got.Name != name {
		t.Errorf("the progress line %q", buf.String())
	}
}
