package cluster

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// Issue 34, item 3: the request log (sim cluster's stderr) quoted a
// client's path with raw ESC, BEL and CR; it goes through the one
// sanitising writer and still names the path.
func TestRequestLogCarriesNoControls(t *testing.T) {
	cfg := testConfig()
	var log syncbuf.Buffer
	cfg.Log = &log
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/instances/%1b]0;PWNED%07%1b[2K%0dFAKE", nil)
	s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	got := log.String()
	if strings.ContainsAny(strings.TrimSuffix(got, "\n"), "\x1b\x07\r\n") {
		t.Errorf("raw controls in the request log:\n%q", got)
	}
	if !strings.Contains(got, "GET /instances/ ]0;PWNED  [2K FAKE ") {
		t.Errorf("the line no longer names the path:\n%q", got)
	}
}
