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

// The bar's name (a path, or a server's name) goes through the one
// sanitiser: its only controls are the bar's own \r and ESC [K (issue 34,
// item 3).
func TestBarNameSanitised(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, Bar, "download", "x\x1b]0;PWNED\a\x1b[2K\rFAKE\u009b", 10, 0, fakeClock(time.Second))
	m.Finish(10, true)
	const want = "\rdownload x ]0;PWNED  [2K FAKE   10 B / 10 B 100% [====================]  10 B/s\x1b[K\n"
	if got := buf.String(); got != want {
		t.Errorf("the bar\n got %q\nwant %q", got, want)
	}
}
