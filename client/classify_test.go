package client

import (
	"net/http"
	"testing"
	"time"
)

// FuzzClassifyAgreesWithAPIError: the retry (and the proxy) decide with
// retry.ClassifyRefusal, the exit code and the error text with
// NewAPIError's CapacityRefusal. If the two ever disagreed, shakectl would
// retry a refusal it then reports as final, or the reverse.
func FuzzClassifyAgreesWithAPIError(f *testing.F) {
	for _, s := range []string{
		`{"error":"x","status":507,"stage":"sufficient_idle_cpu","transient":true}`,
		`{"stage":"unknown","transient":true}`, `{"transient":true}`, `{"stage":"a","transient":"true"}`,
		`<html>"transient": true</html>`, `{"stage":"a","transient":true`, `[]`, `null`, ``, " {\"stage\":\"a\",\"transient\":true} ",
		`{"stage":"a","transient":true,"transient":false}`, `{"error":{"nested":1},"stage":"capacity_guard","transient":true}`,
	} {
		f.Add(507, s)
		f.Add(409, s)
	}
	f.Fuzz(func(t *testing.T, status int, body string) {
		stage, transient := classify(status, http.Header{}, []byte(body))
		cr := NewAPIError("POST", "http://h/instances", status, http.Header{}, []byte(body), time.Time{}).Capacity()
		var wantStage string
		var wantTransient bool
		if cr != nil {
			wantStage, wantTransient = cr.Stage, cr.Transient
		}
		if transient != wantTransient || (transient && stage != wantStage) {
			t.Fatalf("status %d body %q: classify (%q, %v), APIError (%q, %v)", status, body, stage, transient, wantStage, wantTransient)
		}
	})
}
