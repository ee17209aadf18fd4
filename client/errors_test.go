package client_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shakenfist/shakectl/client"
)

var errNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TestCapacityRefusalBodies walks the 507 bodies of shakenfist/shakenfist
// docs/operator_guide/capacity_refusals.md (0c24a714), "Which
// refusals are transient" and "The response body".
func TestCapacityRefusalBodies(t *testing.T) {
	transientHdr := http.Header{"Retry-After": {"15"}}
	body := func(stage string, transient bool) string {
		return `{"error": "refused", "status": 507, "stage": "` + stage + `", "transient": ` + map[bool]string{true: "true", false: "false"}[transient] + `}`
	}
	tests := []struct {
		name       string
		header     http.Header
		body       string
		refusal    bool // a *CapacityRefusal at all
		transient  bool
		stage      string
		retryAfter time.Duration
	}{
		{"sufficient_idle_cpu", transientHdr, body("sufficient_idle_cpu", true), true, true, "sufficient_idle_cpu", 15 * time.Second},
		{"sufficient_idle_memory", transientHdr, body("sufficient_idle_memory", true), true, true, "sufficient_idle_memory", 15 * time.Second},
		{"sufficient_free_disk", transientHdr, body("sufficient_free_disk", true), true, true, "sufficient_free_disk", 15 * time.Second},
		{"sufficient_idle_disk", transientHdr, body("sufficient_idle_disk", true), true, true, "sufficient_idle_disk", 15 * time.Second},
		{"queue_state", transientHdr, body("queue_state", true), true, true, "queue_state", 15 * time.Second},
		{"capacity_guard", transientHdr, body("capacity_guard", true), true, true, "capacity_guard", 15 * time.Second},
		{"cpu_max_per_instance", http.Header{}, body("cpu_max_per_instance", false), true, false, "cpu_max_per_instance", 0},
		{"is_hypervisor", http.Header{}, body("is_hypervisor", false), true, false, "is_hypervisor", 0},
		{"pre_schedule", http.Header{}, body("pre_schedule", false), true, false, "pre_schedule", 0},
		{"unknown", http.Header{}, body("unknown", false), true, false, "unknown", 0},
		// The field is the gate (capacity_refusals.md; client-python 74d6e129 retries any
		// transient body): the stage does not veto it.
		{"unknown claiming transient", transientHdr, body("unknown", true), true, true, "unknown", 15 * time.Second},
		{"CongestedNetwork: no stage, no transient", http.Header{}, `{"error": "CongestedNetwork: address pool exhausted", "status": 507}`, true, false, "", 0},
		{"no stage claiming transient", transientHdr, `{"error": "x", "status": 507, "transient": true}`, true, true, "", 15 * time.Second},
		{"no transient field", transientHdr, `{"error": "x", "status": 507, "stage": "sufficient_idle_cpu"}`, true, false, "sufficient_idle_cpu", 15 * time.Second},
		{"transient as the string true", transientHdr, `{"error": "x", "status": 507, "stage": "sufficient_idle_cpu", "transient": "true"}`, true, false, "sufficient_idle_cpu", 15 * time.Second},
		{"transient as 1", transientHdr, `{"error": "x", "status": 507, "stage": "sufficient_idle_cpu", "transient": 1}`, true, false, "sufficient_idle_cpu", 15 * time.Second},
		{"transient null", transientHdr, `{"error": "x", "status": 507, "stage": "sufficient_idle_cpu", "transient": null}`, true, false, "sufficient_idle_cpu", 15 * time.Second},
		{"stage not a string", transientHdr, `{"error": "x", "status": 507, "stage": 7, "transient": true}`, true, true, "", 15 * time.Second},
		{"malformed Retry-After", http.Header{"Retry-After": {"soon"}}, body("sufficient_idle_cpu", true), true, true, "sufficient_idle_cpu", 15 * time.Second},
		{"hostile Retry-After", http.Header{"Retry-After": {"86400"}}, body("sufficient_idle_cpu", true), true, true, "sufficient_idle_cpu", 60 * time.Second},
		{"non-JSON body", transientHdr, `507 Insufficient Storage`, false, false, "", 0},
		{"HTML body", transientHdr, `<html><title>Full</title></html>`, false, false, "", 0},
		{"JSON array", transientHdr, `[{"transient": true}]`, false, false, "", 0},
		{"truncated JSON", transientHdr, `{"error": "x", "status": 507, "stage": "sufficient_idle_cpu", "transient": tr`, false, false, "", 0},
		{"empty body", transientHdr, ``, false, false, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := client.NewAPIError("POST", "http://sf/instances", 507, tt.header, []byte(tt.body), errNow)
			var cr *client.CapacityRefusal
			if got := errors.As(e, &cr); got != tt.refusal {
				t.Fatalf("CapacityRefusal present = %v, want %v", got, tt.refusal)
			}
			if !tt.refusal {
				return
			}
			if cr.Transient != tt.transient || cr.Stage != tt.stage || cr.RetryAfter != tt.retryAfter {
				t.Errorf("refusal = %+v, want transient %v stage %q retry-after %s", cr, tt.transient, tt.stage, tt.retryAfter)
			}
			wantMalformed := strings.HasPrefix(tt.name, "transient as") || tt.name == "transient null"
			if cr.MalformedTransient != wantMalformed {
				t.Errorf("MalformedTransient = %v, want %v", cr.MalformedTransient, wantMalformed)
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"string", `{"error": "instance not found", "status": 404}`, "instance not found"},
		{"object", `{"error": {"code": "E1", "detail": "bad"}, "status": 400}`, `{"code":"E1","detail":"bad"}`},
		{"multi-line string", `{"error": "line one\n  line two", "status": 400}`, "line one line two"},
		{"no error field", `{"status": 400}`, `{"status": 400}`},
		{"plain text", "Bad Gateway\n", "Bad Gateway"},
		{"HTML", `<html><head><title>502 Bad Gateway</title></head></html>`, "(HTML page) 502 Bad Gateway"},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := client.NewAPIError("GET", "http://sf/instances/x", 400, http.Header{"X-Request-Id": {"r-1"}}, []byte(tt.body), errNow)
			if e.Message != tt.want {
				t.Errorf("Message = %q, want %q", e.Message, tt.want)
			}
			if e.RequestID != "r-1" {
				t.Errorf("RequestID = %q", e.RequestID)
			}
			if strings.Contains(e.Error(), "\n") {
				t.Errorf("Error() spans lines: %q", e.Error())
			}
		})
	}
}

// FuzzNewAPIError feeds arbitrary bodies and Retry-After values to the
// error parser: it never panics, its message stays one line, and a refusal
// is transient only when the body's "transient" is the JSON literal true.
func FuzzNewAPIError(f *testing.F) {
	for _, s := range []string{
		`{"error": "x", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`,
		`{"error": "x", "status": 507, "stage": "capacity_guard", "transient": false}`,
		`{"error": {"nested": [1, 2]}, "status": 507}`,
		`{"error": "x", "transient": "true", "stage": "queue_state"}`,
		`{"transient": true, "transient": false, "stage": "a"}`,
		`{"transient": tru`, `<html>`, ``, `null`, `[]`, `"str"`, "\xff\xfe", `{"error": "\u0000"}`,
	} {
		f.Add(507, s, "15")
		f.Add(400, s, "soon")
	}
	f.Fuzz(func(t *testing.T, status int, body, retryAfter string) {
		e := client.NewAPIError("POST", "http://sf/instances", status, http.Header{"Retry-After": {retryAfter}}, []byte(body), errNow)
		_ = e.Error()
		if strings.ContainsAny(e.Message, "\n\r") {
			t.Fatalf("multi-line message %q", e.Message)
		}
		cr := e.Capacity()
		if cr == nil {
			return
		}
		if status != 507 {
			t.Fatalf("capacity refusal for status %d", status)
		}
		if cr.RetryAfter != 0 && (cr.RetryAfter < time.Second || cr.RetryAfter > time.Minute) {
			t.Fatalf("RetryAfter %s outside [1s, 60s]", cr.RetryAfter)
		}
		if cr.Transient {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("transient from a body that is not a JSON object: %q", body)
			}
			if !bytes.Equal(bytes.TrimSpace(m["transient"]), []byte("true")) {
				t.Fatalf("transient although the body's transient is %q", m["transient"])
			}
		}
		if !utf8.ValidString(e.Message) && utf8.ValidString(body) {
			t.Fatalf("invalid UTF-8 message %q from a valid body", e.Message)
		}
	})
}

func TestStageInText(t *testing.T) {
	for in, want := range map[string]string{
		"No nodes remaining at scheduling stage sufficient_idle_cpu":                            "sufficient_idle_cpu",
		"No nodes remaining at scheduling stage affinity_constraints: require_with_tag=['gpu']": "affinity_constraints",
		"No nodes with enough idle CPU":                                                         "",
		"No nodes remaining at scheduling stage ":                                               "",
		"No nodes remaining at scheduling stage \x1b[2Jevil":                                    "",
		"No nodes remaining at scheduling stage queue_state and more":                           "",
		"no node had capacity for this instance, 2 candidates refused it":                       "",
	} {
		if got := client.StageInText(in); got != want {
			t.Errorf("StageInText(%q) = %q, want %q", in, got, want)
		}
	}
}
