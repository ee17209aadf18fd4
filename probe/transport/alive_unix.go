//go:build unix

package transport

import (
	"net"
	"syscall"
)

// alive reports whether an idle connection can carry a request, with one
// peek that does not wait: a server that closed it while it sat idle has
// sent a FIN (the peek reads 0 bytes) or a reset (an error), and bytes
// nobody asked for (a late HEAD body, a 408 on idle timeout) make it
// unusable too. net/http finds the same with a reader goroutine per idle
// connection, which the wire sender does without. The connection's read
// deadline must not have passed: the poller refuses before peeking.
func alive(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	return aliveRaw(rc)
}

func aliveRaw(rc syscall.RawConn) bool {
	open := false
	var b [1]byte
	err := rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = n < 0 && (err == syscall.EAGAIN || err == syscall.EWOULDBLOCK)
		return true // never wait
	})
	return err == nil && open
}
