package memnet_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/internal/memnet"
)

// A server listening on port 0 of the network gets an address of its own,
// and a client reaches it there and nowhere else, inside a bubble.
func TestNetworkServesHTTP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n memnet.Network
		ctx := context.Background()
		a, err := n.Listen(ctx, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		b, err := n.Listen(ctx, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if a.Addr().String() == b.Addr().String() || strings.HasSuffix(a.Addr().String(), ":0") {
			t.Fatalf("port 0 gave %s and %s", a.Addr(), b.Addr())
		}
		if _, err := n.Listen(ctx, "tcp", a.Addr().String()); err == nil {
			t.Errorf("a second listener on %s was allowed", a.Addr())
		}
		b.Close()
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })}
		go srv.Serve(a)
		tr := n.Transport()
		c := &http.Client{Transport: tr}
		resp, err := c.Get("http://" + a.Addr().String() + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "hello" {
			t.Errorf("got %q", body)
		}
		if _, err := c.Get("http://" + b.Addr().String() + "/"); err == nil || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("a closed listener's address answered: %v", err)
		}
		tr.CloseIdleConnections()
		srv.Close()
		// The closed address is free again.
		l, err := n.Listen(ctx, "tcp", b.Addr().String())
		if err != nil {
			t.Fatalf("the closed listener's address stayed taken: %v", err)
		}
		l.Close()
	})
}
