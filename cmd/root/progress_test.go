package root_test

import (
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// A person at a terminal is told what a wait sees each time it changes,
// one line in one form for every wait ("SUBJECT: STATE"); the first
// answer, which the command's own output shows, is not repeated. The
// namespace clean said "still 3 instances and 2 networks left" after
// every poll, changed or not.
func TestEveryWaitTellsATerminalWhatChanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stubs  func(t *testing.T) *clitest.Stubs
		args   []string
		stderr string
	}{
		{"instance create", func(t *testing.T) *clitest.Stubs {
			s := clitest.NewStubs(t)
			s.Reply("POST", "/instances", 200, clitest.CreatedInstance("web1", "initial"))
			s.InTurn("GET", "/instances/"+clitest.NewInstanceUUID, clitest.InStates(clitest.CreatedInstance("web1", "initial"), "initial", "creating", "creating", "created")...)
			return s
		}, []string{"instance", "create", "web1", "1", "512", "-d", "8", "--async", "block", "-o", "simple"},
			"instance web1: creating\ninstance web1: created\n"},
		{"namespace clean", func(t *testing.T) *clitest.Stubs {
			s := clitest.NewStubs(t)
			s.Reply("DELETE", "/instances", 200, `["6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01"]`)
			s.Reply("DELETE", "/networks", 200, `[]`)
			two := string(clitest.JoinRaw(clitest.FixtureInstances[:2]))
			s.InTurn("GET", "/instances", httpstub.String(200, two), httpstub.String(200, two), httpstub.String(200, "[]"))
			s.Offer("GET", "/networks", 200, "[]")
			return s
		}, []string{"namespace", "clean", "ns1", "--yes", "-o", "simple"},
			"deleting ALL instances and networks of namespace \"ns1\"\nnamespace ns1: 0 instances and 0 networks left\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := clitest.StubsInMemory(tc.stubs(t))
				r.Tty = true
				res := r.Run(t, tc.args...)
				if res.Code != 0 || res.Stderr != tc.stderr {
					t.Errorf("stderr %q\nwant   %q\n%s", res.Stderr, tc.stderr, res)
				}
			})
		})
	}
}
