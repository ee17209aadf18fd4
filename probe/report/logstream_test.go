package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const oneLineReport = `{"schema":"parking-probe/v1","run_id":"abc","shard":1,"shards":2,"requests":0,"outcomes":{}}`

func prettyReport(shard int) string {
	return "{\n  \"schema\": \"parking-probe/v1\",\n  \"run_id\": \"abc\",\n  \"shard\": " + string(rune('0'+shard)) +
		",\n  \"outcomes\": {\n    \"served\": {\n      \"count\": 0\n    }\n  },\n  \"series\": [\n    {\n      \"second\": 0\n    }\n  ],\n  \"target\": \"a } ] { [ \\\" \"\n}"
}

func prefixed(prefix, doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}

// What kubectl logs gives: documents among log lines, pretty and one-line,
// with or without --prefix and --timestamps, interleaved pods, CRLF.
func TestExtractReportsFromALogStream(t *testing.T) {
	a, b := prefixed("[pod/probe-0-abc/probe] ", prettyReport(0)), prefixed("[pod/probe-1-def/probe] ", prettyReport(1))
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var mixed []string
	for i := range max(len(al), len(bl)) {
		if i < len(al) && al[i] != "" {
			mixed = append(mixed, al[i])
		}
		if i < len(bl) && bl[i] != "" {
			mixed = append(mixed, bl[i])
		}
	}
	stream := "warning: the load started 120ms after --start-at\n" +
		"{\"level\":\"info\",\"msg\":\"not a report\"}\n" +
		strings.Join(mixed, "\n") + "\n" +
		"waiting until 2030-01-01T00:00:00Z (3s from now) to start the load\r\n" +
		"2026-12-01T01:02:03.456789Z " + oneLineReport + "\r\n" +
		"} stray closing brace\n{ not json at all\n" +
		prettyReport(3) + "\n"
	docs, problems, err := ExtractReports(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 4 {
		t.Fatalf("found %d reports, want 4: %+v (problems %v)", len(docs), docs, problems)
	}
	wantSources := []string{"pod/probe-0-abc/probe", "pod/probe-1-def/probe", "", ""}
	for i, d := range docs {
		if d.Source != wantSources[i] {
			t.Errorf("document %d from %q, want %q", i, d.Source, wantSources[i])
		}
		var v map[string]any
		if err := json.Unmarshal(d.Raw, &v); err != nil || v["schema"] != "parking-probe/v1" {
			t.Errorf("document %d (%s): %v %v", i, d.Name(), err, v)
		}
	}
	if len(problems) != 0 {
		t.Errorf("problems %v, want none (the garbage is no report)", problems)
	}
}

// A report cut off (pod killed, log rotated) is said, never merged.
func TestExtractReportsSaysWhatWasTruncated(t *testing.T) {
	cut := prettyReport(0)[:60]
	stream := cut + "\n" + prettyReport(1) + "\n" + "[pod/p-2/probe] " + oneLineReport[:40] + "\n"
	docs, problems, err := ExtractReports(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Fatalf("found %d whole reports, want 1", len(docs))
	}
	if len(problems) != 2 || problems[0].Line != 1 || !strings.Contains(problems[0].Error(), "truncated report") ||
		!strings.Contains(problems[1].Error(), "pod/p-2/probe") {
		t.Errorf("problems %v, want the cut report at line 1 and pod p-2's", problems)
	}
}

// Lines longer than the document bound are skipped, a document's line
// reported. The bound is a small one (ExtractReports' own is
// MaxStreamDocument, 16 MiB, pinned as the default by
// TestExtractReportsStopsAtTheStreamBound):
// lines just past 256 KiB cross the reader's 64 KiB buffer several times
// as a 16 MiB line does, and copying two 16 MiB lines took over a second.
func TestExtractReportsSkipsHugeLines(t *testing.T) {
	lim := DefaultStreamLimits()
	lim.Document = 256 << 10
	huge := "{" + strings.Repeat("x", lim.Document+10)
	stream := "junk " + strings.Repeat("y", lim.Document+5) + "\n[pod/p-1/probe] " + huge + "\n" + oneLineReport + "\n"
	docs, problems, err := ExtractReportsWithin(strings.NewReader(stream), lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || !bytes.Equal(docs[0].Raw, []byte(oneLineReport)) {
		t.Errorf("docs %v, want the one-line report after the huge lines", len(docs))
	}
	if len(problems) != 1 || problems[0].Line != 2 || problems[0].Source != "pod/p-1/probe" || !strings.Contains(problems[0].Reason, "longer than") {
		t.Errorf("problems %v, want the huge document line", problems)
	}
}

func FuzzExtractReports(f *testing.F) {
	for _, s := range []string{
		oneLineReport, prettyReport(0), prefixed("[pod/a/b] ", prettyReport(2)),
		"{", "}", "{{{{", "{\"a\":\"\\", "{\"outcomes\":{\"x\":\"}\"}}", "[pod/] {", "[pod/x/y] ",
		"{\"schema\":\"parking-probe/v9\",\"outcomes\":{}}", "\x00{\xff\"outcomes\"", "2026-12-01T01:02:03Z {}",
		"{\n\"outcomes\": [\n{\n", "{\"a\":1}}}}{\"b\":2}", "\r\n\r\n{\r\n}\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		docs, problems, err := ExtractReports(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		for _, d := range docs {
			if !json.Valid(d.Raw) || !isReport(d.Raw) || d.Line < 1 || d.Line > lines {
				t.Fatalf("bad document %q at line %d", d.Raw, d.Line)
			}
		}
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines || p.Reason == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
		// A whole report after anything still comes out whole.
		docs2, _, _ := ExtractReports(bytes.NewReader(append(append(bytes.Clone(in), '\n'), oneLineReport+"\n"...)))
		if len(docs2) == 0 || !bytes.Equal(docs2[len(docs2)-1].Raw, []byte(oneLineReport)) {
			t.Fatalf("the report after %q was lost", in)
		}
	})
}
