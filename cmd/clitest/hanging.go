package clitest

import (
	"errors"
	"net/http"
)

// HangingTransport answers nothing until the request's context ends or
// the test closes Release: a server that never answers, for the bounds
// (--request-timeout, the completion's two seconds) under synctest.
type HangingTransport struct{ Release chan struct{} }

func (b HangingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case <-r.Context().Done():
		return nil, r.Context().Err()
	case <-b.Release:
		return nil, errors.New("released")
	}
}
