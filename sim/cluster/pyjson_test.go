package cluster

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The simulator's error bodies are the real server's bytes: the recorded
// 406 (client/testdata/sf2024/screenshot_not_ready.json, json.dumps form)
// and the 2026 capacity refusal's key order and separators (shakenfist
// base.py @565e36e6e capacity_error).
func TestErrorBodiesAreTheServersBytes(t *testing.T) {
	recorded, err := os.ReadFile("../../client/testdata/sf2024/screenshot_not_ready.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal(recorded, &rec); err != nil {
		t.Fatal(err)
	}
	if got := string(pyErrorBody(&apiError{status: rec.Status, msg: rec.Error})); got != strings.TrimRight(string(recorded), "\n") {
		t.Errorf("error body\n got %s\nwant %s", got, recorded)
	}
	capacity := &apiError{status: 507, msg: "No nodes remaining at scheduling stage sufficient_idle_cpu", stage: "sufficient_idle_cpu", hasStage: true, transient: true}
	want := `{"error": "No nodes remaining at scheduling stage sufficient_idle_cpu", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`
	if got := string(pyErrorBody(capacity)); got != want {
		t.Errorf("507 body\n got %s\nwant %s", got, want)
	}
}

// pyString agrees with Python's json.dumps on the characters where Go's
// encoder and Python's differ: HTML characters, DEL, controls, non-ASCII
// and astral runes. Where python3 is installed (CI installs it for
// sf-client), the texts are checked against it; otherwise against the
// forms Python documents.
func TestPyStringIsJSONDumps(t *testing.T) {
	t.Parallel() // python3's start-up (seconds on a busy machine) overlaps the package's other tests
	cases := map[string]string{
		`plain`:              `"plain"`,
		"<&>'":               `"<&>'"`,
		"quote\" back\\":     `"quote\" back\\"`,
		"\n\r\t\b\f\x01\x7f": `"\n\r\t\b\f\u0001\u007f"`,
		"é€😀":                `"\u00e9\u20ac\ud83d\ude00"`,
		"\x1b]0;title\a":     `"\u001b]0;title\u0007"`,
	}
	for in, want := range cases {
		if got := pyString(in); got != want {
			t.Errorf("pyString(%q) = %s, want %s", in, got, want)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("no python3: checked against the documented forms only")
		return
	}
	// One python3 for every case: its start-up costs seconds on a busy
	// machine. The inputs travel as a JSON list, each answer is
	// json.dumps of one of them.
	ins := make([]string, 0, len(cases))
	for in := range cases {
		ins = append(ins, in)
	}
	list, err := json.Marshal(ins)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", "import json,sys; sys.stdout.write(json.dumps([json.dumps(s) for s in json.loads(sys.stdin.read())]))")
	cmd.Stdin = bytes.NewReader(list)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var dumped []string
	if err := json.Unmarshal(out, &dumped); err != nil || len(dumped) != len(ins) {
		t.Fatalf("python3 answered %s (%v)", out, err)
	}
	for i, in := range ins {
		if dumped[i] != cases[in] {
			t.Errorf("python3 json.dumps(%q) = %s; the table says %s", in, dumped[i], cases[in])
		}
	}
}

// Over HTTP: no trailing newline, the length it declares.
func TestErrorBodyOverHTTP(t *testing.T) {
	srv, _ := startSim(t, nil)
	resp, err := http.Get(srv.URL() + "/instances")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || !strings.HasPrefix(string(b), `{"error": "`) || !strings.HasSuffix(string(b), `, "status": 401}`) {
		t.Errorf("%d %q", resp.StatusCode, b)
	}
}

// The 200 answers in the real server's bytes: json.dumps separators,
// ensure_ascii, no HTML escapes (client/testdata/sf2024/recorded).
func TestPyJSON(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, `null`},
		{[]string{"a", "b"}, `["a", "b"]`},
		{map[string]any{"tags": []any{"web", "prod"}, "affinity": map[string]any{"fastdisk": 10}}, `{"affinity": {"fastdisk": 10}, "tags": ["web", "prod"]}`},
		{map[string]any{}, `{}`},
		{[]any{}, `[]`},
		{"a, b: <c> & \"d\"\\ é 😀", `"a, b: <c> & \"d\"\\ \u00e9 \ud83d\ude00"`},
	} {
		got, err := pyJSON(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("pyJSON(%#v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}
