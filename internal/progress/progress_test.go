package progress

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step at each reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

func TestJSONLinesAtEachPercentAndTheEnd(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, JSON, "download", "disk", 1000, 0, fakeClock(time.Second))
	for done := int64(0); done <= 1000; done += 5 {
		m.Update(done)
	}
	m.Finish(1000, true)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 102 { // 0..100 percent, then done
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	var last Line
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || !last.Done || last.Bytes != 1000 || last.Percent != 100 || last.Progress != "download" {
		t.Errorf("last line %q: %v", lines[len(lines)-1], err)
	}
}

func TestBarShowsBytesRateAndTimeLeft(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, Bar, "upload", "disk.qcow2", 100<<20, 0, fakeClock(time.Second))
	m.Update(25 << 20)
	out := buf.String()
	for _, want := range []string{"\rupload disk.qcow2", "25.0 MiB / 100.0 MiB  25%", "[=====", "MiB/s", "left", "\x1b[K"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar %q lacks %q", out, want)
		}
	}
	m.Finish(100<<20, true)
	if !strings.HasSuffix(buf.String(), "\n") {
		t.Errorf("no newline after the bar: %q", buf.String())
	}
}

func TestNoneWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, Choose(false, false, false), "upload", "x", 10, 0, nil)
	m.Update(5)
	m.Finish(10, true)
	if buf.Len() != 0 {
		t.Errorf("piped meter wrote %q", buf.String())
	}
	if Choose(true, true, true) != None || Choose(false, true, false) != JSON || Choose(false, false, true) != Bar {
		t.Error("Choose")
	}
}

// TestBarLongNameKeepsTheFigures: a path too long for the line is
// shortened from its start, so the rate and the time left still show
// (a temp-dir path once cut the bar off after its first digit).
func TestBarLongNameKeepsTheFigures(t *testing.T) {
	var buf bytes.Buffer
	name := "/tmp/" + strings.Repeat("very-long-folder/", 10) + "disk.qcow2"
	m := New(&buf, Bar, "upload", name, 100<<20, 0, fakeClock(time.Second))
	m.Update(25 << 20)
	line := strings.TrimSuffix(strings.TrimPrefix(buf.String(), "\r"), "\x1b[K")
	if !strings.HasPrefix(line, "upload …") || !strings.Contains(line, "folder/disk.qcow2  25.0 MiB") || !strings.HasSuffix(line, " left") {
		t.Errorf("bar %q lost its name's end or its figures", line)
	}
	if n := len([]rune(line)); n > 119 {
		t.Errorf("bar is %d runes, wider than the 120-column line", n)
	}
}
