package probe

import (
	"io"
	"net/http"
)

// Sender performs one request and returns what classification needs. It is
// the one seam between the engine and the HTTP client (net/http today; a
// faster client can replace it). The request's context carries the
// per-request deadline (cause errClientTimeout) and the Run's cancellation;
// its Host is the actor's.
type Sender interface {
	// Send sends req and returns the status, the headers and the first
	// bytes of the body, read into the buffer buf returns (called only once
	// an answer is in), or Err when no complete answer arrived. The body
	// is drained (up to maxDrain) so the connection can be reused.
	Send(req *http.Request, buf func() []byte) Answer
}

// roundTripSender sends through an http.RoundTripper.
type roundTripSender struct{ rt http.RoundTripper }

func (s roundTripSender) Send(req *http.Request, buf func() []byte) Answer {
	var a Answer
	resp, err := s.rt.RoundTrip(req)
	if err != nil {
		a.Err = err
		return a
	}
	a.Status, a.Header = resp.StatusCode, resp.Header
	b := buf()
	n, err := readPrefix(resp.Body, b)
	a.Body = b[:n]
	switch err {
	case io.EOF:
		err = nil
	case nil:
		err = drain(resp.Body)
	}
	resp.Body.Close()
	a.Err = err
	return a
}

// readPrefix reads up to len(buf) bytes of body; io.EOF before that is the
// normal end of a short body.
func readPrefix(body io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := body.Read(buf[n:])
		n += m
		if err == io.EOF {
			return n, io.EOF
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func drain(body io.Reader) error {
	_, err := io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	return err
}
