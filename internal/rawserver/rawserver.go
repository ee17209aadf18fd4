// Package rawserver serves raw TCP on loopback for tests that need answers
// no HTTP server would give (a half-written status line, a close mid-body,
// a keep-alive the server drops). The probe and its transport both use it.
package rawserver

import (
	"net"
	"testing"
)

// Serve listens on 127.0.0.1 and runs handle on each connection in a
// goroutine of its own, closing the connection once handle returns; the
// listener closes when the test ends.
func Serve(t testing.TB, handle func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ServeOn(t, ln, handle)
	return ln
}

// ServeOn is Serve on a listener of the test's own (an in-memory one in a
// testing/synctest bubble).
func ServeOn(t testing.TB, ln net.Listener, handle func(net.Conn)) {
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
}
