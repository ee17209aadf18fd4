package clitest

import (
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// OnBlobData is a transport that runs Event once, when the first answer to
// a blob's GET …/data has arrived and before a byte of it is read: a
// download under way whose DEST is not claimed yet. A test drops a file or
// a symbolic link at DEST there, or runs a second download to the end, at
// exactly that moment, without a sleep. Next carries the requests
// (http.DefaultTransport when nil).
type OnBlobData struct {
	Next  http.RoundTripper
	Event func()
	// fired, not a sync.Once: Event may run a download through this same
	// transport, which must pass through, not wait for Event to end.
	fired atomic.Bool
}

func (o *OnBlobData) RoundTrip(r *http.Request) (*http.Response, error) {
	next := o.Next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/data") {
		if o.fired.CompareAndSwap(false, true) {
			o.Event()
		}
	}
	return resp, err
}

// TakenRE is the one error line of a download whose DEST another download
// (or a file dropped there) took while it ran: DEST, and the temporary file
// beside it that keeps what was downloaded (internal/outfile.TakenError).
var TakenRE = regexp.MustCompile(`^error: (\S+) appeared while shakectl was writing it \(another download\?\) and was not replaced: what was written is kept as (\S+); move it into place, or run again with --clobber\n$`)

// ExactlyOneWins fails the test unless exactly one of the runs, which
// raced for one DEST, exited 0, and every other exited 1 saying why (DEST
// taken meanwhile, or there already when it started).
func ExactlyOneWins(t *testing.T, runs ...RunResult) {
	t.Helper()
	wins := 0
	for _, r := range runs {
		switch {
		case r.Code == 0:
			wins++
		case r.Code != cmdutil.ExitFailure || !(TakenRE.MatchString(r.Stderr) || strings.Contains(r.Stderr, "already exists: pass --clobber")):
			t.Errorf("a loser of the race: %s", r)
		}
	}
	if wins != 1 {
		t.Errorf("%d of %d runs exited 0, want exactly one", wins, len(runs))
	}
}
