package clitest

import (
	"encoding/json"
	"testing"
)

func Refusal(stage, transient string, header map[string]string) CannedReply {
	return CannedReply{Status: 507, Header: header,
		Body: `{"error": "schedule has no candidates at stage ` + stage + `", "status": 507, "stage": "` + stage + `", "transient": ` + transient + `}`}
}

func TransientRefusal(retryAfter string) CannedReply {
	return Refusal("sufficient_idle_cpu", "true", map[string]string{"Retry-After": retryAfter})
}

// RecordedRefusal is the row named name of client/testdata/FILE (sf2024/
// refusals.json or sf2026/refusals.json): a real server's refusal, with
// the source it was recorded from.
func RecordedRefusal(t *testing.T, file, name string) CannedReply {
	t.Helper()
	var rows []struct {
		Name   string            `json:"name"`
		Status int               `json:"status"`
		Header map[string]string `json:"header"`
		Body   json.RawMessage   `json:"body"`
	}
	if err := json.Unmarshal([]byte(ReadGolden(t, file)), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Name == name {
			return CannedReply{Status: r.Status, Header: r.Header, Body: string(r.Body)}
		}
	}
	t.Fatalf("%s has no row %q", file, name)
	return CannedReply{}
}
