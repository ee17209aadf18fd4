package clitest

import (
	"net/http"
	"strings"
	"sync/atomic"
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
