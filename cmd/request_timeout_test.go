package cmd

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// --request-timeout bounds each request: a server that accepts and never
// answers is given up on after it, not after the 30s default.
func TestRequestTimeoutFlag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := hangingTransport{release: make(chan struct{})}
		defer close(hang.release)
		start := time.Now()
		res := cmdRun{url: "http://sf.test/api", transport: hang}.run(t, "node", "list", "--request-timeout", "3s")
		if res.code == 0 || !strings.Contains(res.stderr, "error:") {
			t.Fatal(res)
		}
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("gave up after %s, want the 3s --request-timeout", took)
		}
	})
}
