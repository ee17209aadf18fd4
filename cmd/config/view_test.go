package config_test

import (
	"encoding/json"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// config view says where each value came from, and never prints the key.
func TestConfigView(t *testing.T) {
	r := clitest.CmdRun{Url: "http://sf.test/api", Env: map[string]string{"SHAKECTL_TIMEOUT": "2m"}}
	res := r.Run(t, "config", "view", "--async", "block", "-o", "json")
	if res.Code != 0 {
		t.Fatal(res)
	}
	var got map[string]struct{ Value, Source string }
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
		t.Fatal(err, res)
	}
	want := map[string][2]string{
		"api-url":  {"http://sf.test/api", "environment variable SHAKENFIST_API_URL"},
		"key":      {"[redacted]", "environment variable SHAKENFIST_KEY"},
		"timeout":  {"2m0s", "environment variable SHAKECTL_TIMEOUT"},
		"async":    {"block", "flag --async"},
		"output":   {"json", "flag --output"},
		"no-color": {"false", "default"},
	}
	for k, w := range want {
		if got[k].Value != w[0] || got[k].Source != w[1] {
			t.Errorf("%s: %+v, want %q from %q", k, got[k], w[0], w[1])
		}
	}
}
