package client

import (
	"net/http"
	"testing"
	"time"
)

// FuzzClassifyAgreesWithAPIError: the retry (and the proxy) decide with
// retry.ClassifyRefusal, and NewAPIError takes its CapacityRefusal's stage
// and mark from it too, but only for a body its own JSON gate lets through.
// Every answer the retry treats as transient must come out as a transient
// CapacityRefusal with the same stage (exit 75, the refusal's hint); were
// the gates to drift apart, shakectl would retry a refusal and then report
// it as a permanent 507 (exit 69). And no other status is a refusal.
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
		if transient && (cr == nil || !cr.Transient || cr.Stage != stage) {
			t.Fatalf("status %d body %q: retried as transient at stage %q, reported as %+v", status, body, stage, cr)
		}
		if cr != nil && status != http.StatusInsufficientStorage {
			t.Fatalf("status %d body %q is reported as a capacity refusal", status, body)
		}
	})
}
