package client_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
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
	if n != 17 {
		t.Errorf("%d refusal rows recorded, want the 17 of SOURCES.md", n)
	}
}

// The agent operation, snapshot and screenshot files the command tests
// reply with are the bodies a real node sent shakectl
// (testdata/sf2024/node, SOURCES.md), byte for byte.
func TestSF2024FilesAreTheNodeRecordings(t *testing.T) {
	for _, tc := range []struct{ file, exchange string }{
		{"agentop_execute_queued.json", "n06-exec-exit3/0177-post-_instances_vm1_agent_execute-200.json"},
		{"agentop_execute_failed.json", "n06-exec-exit3/0178-get-_agentoperations_ffdedc9e_8a76_4afa_a452_3ba848644-200.json"},
		{"agentop_execute_long_queued.json", "n08-exec-long/0183-post-_instances_vm1_agent_execute-200.json"},
		{"agentop_execute_long.json", "n08-exec-long/0184-get-_agentoperations_fff70b46_ce97_4a96_81f9_ee212a172-200.json"},
		{"agent_stdout_blob.json", "n08-exec-long/0185-get-_blobs_bc2ad4ef_5312_4aa6_a9e0_3aa14a91aae6-200.json"},
		{"agent_stdout.data", "n08-exec-long/0186-get-_blobs_bc2ad4ef_5312_4aa6_a9e0_3aa14a91aae6_data-200.json"},
		{"agentop_put_preflight.json", "n09-upload/0194-post-_instances_vm1_agent_put-200.json"},
		{"agentop_put_complete.json", "n09-upload/0198-get-_agentoperations_d8bfa248_ed97_4a9f_a24a_40bc10bfe-200.json"},
		{"agentop_get_queued.json", "n10-download/0200-post-_instances_vm1_agent_get-200.json"},
		{"agentop_get_complete.json", "n10-download/0202-get-_agentoperations_138939b7_1dda_4198_95dd_0c177b7ee-200.json"},
		{"agent_get_blob.json", "n10-download/0203-get-_blobs_e8e0955c_093a_4d01_898a_6901069bd1e9-200.json"},
		{"agent_get_file.data", "n10-download/0204-get-_blobs_e8e0955c_093a_4d01_898a_6901069bd1e9_data-200.json"},
		{"agentop_get_missing_queued.json", "n11-download-missing/0206-post-_instances_vm1_agent_get-200.json"},
		{"agentop_get_error.json", "n11-download-missing/0207-get-_agentoperations_78d45723_0e02_4802_bcb8_19189af25-200.json"},
		{"snapshot_created.json", "n16-snapshot/0235-post-_instances_vm1_snapshot-200.json"},
		{"screenshot.json", "n14-screenshot/0224-get-_instances_vm1_screenshot-200.json"},
		{"screenshot_blob.json", "n14-screenshot/0225-get-_blobs_6bff478b_c845_4637_b1ad_4b98349fa224-200.json"},
		{"screenshot.png", "n14-screenshot/0226-get-_blobs_6bff478b_c845_4637_b1ad_4b98349fa224_data-200.json"},
	} {
		var x struct {
			Response struct {
				Status  int        `json:"status"`
				Body    *string    `json:"body"`
				BodyB64 *string    `json:"body_b64"`
				Headers [][]string `json:"headers"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(golden(t, filepath.Join("sf2024", "node", tc.exchange))), &x); err != nil {
			t.Fatalf("%s: %v", tc.exchange, err)
		}
		body := []byte(nil)
		switch {
		case x.Response.Body != nil:
			body = []byte(*x.Response.Body)
		case x.Response.BodyB64 != nil:
			b, err := base64.StdEncoding.DecodeString(*x.Response.BodyB64)
			if err != nil {
				t.Fatal(err)
			}
			body = b
		}
		if x.Response.Status != 200 || len(x.Response.Headers) == 0 || x.Response.Headers[0][0] != "Server" || x.Response.Headers[0][1] != "gunicorn" {
			t.Errorf("%s: %d %v is not a recorded gunicorn answer", tc.exchange, x.Response.Status, x.Response.Headers)
		}
		if want := golden(t, "sf2024/"+tc.file); want != string(body) {
			t.Errorf("sf2024/%s is not the body of node/%s", tc.file, tc.exchange)
		}
	}
	// The console file of a running instance, with its TLS port and the
	// recording node's SPICE CA.
	resp, body := recordedAnswer(t, "node-vdi-helper-running.http")
	if resp.Header.Get("Content-Type") != "application/x-virt-viewer" || golden(t, "sf2024/vdiconsole.vv") != string(body) {
		t.Errorf("sf2024/vdiconsole.vv is not the body of recorded/node-vdi-helper-running.http (%s)", resp.Header.Get("Content-Type"))
	}
}
