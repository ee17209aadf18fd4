package cmdutil_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// --request-timeout bounds each request: a server that accepts and never
// answers is given up on after it, not after the 30s default.
func TestRequestTimeoutFlag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := clitest.HangingTransport{Release: make(chan struct{})}
		defer close(hang.Release)
		start := time.Now()
		res := clitest.CmdRun{Url: "http://sf.test/api", Transport: hang}.Run(t, "node", "list", "--request-timeout", "3s")
		if res.Code == 0 || !strings.Contains(res.Stderr, "error:") {
			t.Fatal(res)
		}
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("gave up after %s, want the 3s --request-timeout", took)
		}
	})
}

// On a terminal, a request unanswered after a second says what it waits
// for; piped, stderr stays quiet.
func TestWaitingNoticeOnATerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := clitest.HangingTransport{Release: make(chan struct{})}
		defer close(hang.Release)
		res := clitest.CmdRun{Url: "http://sf.test/api", Transport: hang, Tty: true}.Run(t, "node", "list", "--request-timeout", "3s")
		if !strings.Contains(res.Stderr, "waiting for an answer to POST http://sf.test/api/auth (giving up after 3s; --request-timeout)\n") {
			t.Errorf("no waiting line:\n%s", res)
		}
		res = clitest.CmdRun{Url: "http://sf.test/api", Transport: hang}.Run(t, "node", "list", "--request-timeout", "3s")
		if strings.Contains(res.Stderr, "waiting for an answer") {
			t.Errorf("waiting line when piped:\n%s", res)
		}
	})
}
