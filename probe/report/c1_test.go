package report

import (
	"bytes"
	"testing"
)

// A report quotes the router's text (its target, an answer's detail); its
// JSON writes C1 controls escaped (parking-probe -o json on a pty printed
// U+009B raw, scripts/hostile.sh's escapes/tty-router-other-json), and
// ReadReport gets back what was written.
func TestWriteJSONEscapesC1(t *testing.T) {
	r, err := ReadReport(bytes.NewReader(shardReport(t, 0, 1)))
	if err != nil {
		t.Fatal(err)
	}
	r.Target = "http://router.test/\u009b2J\u0085"
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("\u009b")) || bytes.Contains(b.Bytes(), []byte("\u0085")) {
		t.Errorf("raw C1 in the report")
	}
	back, err := ReadReport(&b)
	if err != nil || back.Target != r.Target {
		t.Errorf("read back: %v, target %q", err, back.Target)
	}
}
