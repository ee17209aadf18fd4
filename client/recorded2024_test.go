package client_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recordedAnswer is one answer of the real 2024 server recorded on
// loopback (testdata/sf2024/recorded, SOURCES.md): the status line,
// headers in order and body as gunicorn sent them.
func recordedAnswer(t *testing.T, file string) (*http.Response, []byte) {
	t.Helper()
	raw := golden(t, filepath.Join("sf2024", "recorded", file))
	if !strings.HasPrefix(raw, "HTTP/1.1 ") || !strings.Contains(raw, "\r\nServer: gunicorn\r\n") {
		t.Fatalf("%s is not a recorded gunicorn answer", file)
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return resp, body
}

// The answer files the command tests reply with are the recorded bodies,
// byte for byte: what was derived from the source before is now what the
// real server sent.
func TestSF2024FilesAreTheRecordedAnswers(t *testing.T) {
	for _, tc := range []struct{ file, recorded string }{
		{"handler_none.json", "inst-put-affinity.http"},
		{"handler_none.json", "inst-put-tags.http"},
		{"handler_none.json", "inst-delete-tags.http"},
		{"handler_none.json", "inst-delete-tags-again.http"},
		{"handler_none.json", "art-delete-metadata.http"},
		{"handler_none.json", "art-delete-metadata-again.http"},
		{"handler_none.json", "console-delete.http"},
		{"instances_delete_all.json", "del-all.http"},
		{"admin_locks.json", "admin-locks-held.http"},
	} {
		resp, body := recordedAnswer(t, tc.recorded)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %s %q", tc.recorded, resp.Status, resp.Header.Get("Content-Type"))
		}
		if want := golden(t, "sf2024/"+tc.file); string(body) != want {
			t.Errorf("sf2024/%s is %q, the real server sent %q (%s)", tc.file, want, body, tc.recorded)
		}
	}
	// Every refusal row marked recorded is its recording's status and body.
	var rows []struct {
		Name     string          `json:"name"`
		Status   int             `json:"status"`
		Body     json.RawMessage `json:"body"`
		Recorded string          `json:"recorded"`
	}
	if err := json.Unmarshal([]byte(golden(t, "sf2024/refusals.json")), &rows); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range rows {
		if row.Recorded == "" {
			continue
		}
		n++
		resp, body := recordedAnswer(t, row.Recorded)
		var want, got any
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("%s: %v", row.Recorded, err)
		}
		if err := json.Unmarshal(row.Body, &got); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != row.Status || !reflect.DeepEqual(got, want) || bytes.HasSuffix(body, []byte("\n")) {
			t.Errorf("row %q: %d %s, the real server %s %s", row.Name, row.Status, row.Body, resp.Status, body)
		}
	}
	if n != 15 {
		t.Errorf("%d refusal rows recorded, want the 15 of SOURCES.md", n)
	}
}
