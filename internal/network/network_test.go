package network_test

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/internal/network"
)

// The machine's TCP and the in-memory network are both Networks; a library
// is handed a listener or a dialer only for the in-memory one, and listens
// and dials the machine's TCP itself.
func TestNetworks(t *testing.T) {
	var _ network.Network = &memnet.Network{}
	ctx := t.Context()
	for _, n := range []network.Network{nil, network.TCP{}} {
		if ln, err := network.Listener(ctx, n, "127.0.0.1:0"); ln != nil || err != nil {
			t.Errorf("%T: Listener = %v, %v; want none: the library listens itself", n, ln, err)
		}
		if network.Dialer(n) != nil {
			t.Errorf("%T: a dialer; want none: the library dials itself", n)
		}
	}
	mem := &memnet.Network{}
	ln, err := network.Listener(ctx, mem, "router.test:80")
	if err != nil || ln == nil {
		t.Fatalf("memnet Listener = %v, %v", ln, err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	c, err := network.Dialer(mem)(ctx, "tcp", "router.test:80")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(c); string(b) != "hi" {
		t.Errorf("read %q over memnet", b)
	}
}

// TCP listens and dials the machine's loopback.
func TestTCP(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ln, err := network.TCP{}.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := network.TCP{}.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, ok := c.(*net.TCPConn); !ok {
		t.Errorf("dialled a %T", c)
	}
}
