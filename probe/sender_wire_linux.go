package probe

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// exchange writes req and reads the answer's first bytes into c.head with
// raw system calls, from inside the runtime poller's read callback (the
// only place a socket's descriptor can be used while the poller owns it).
//
// The write and the reads are RawSyscalls. The socket is non-blocking, so
// none of them can block. A plain Syscall tells the scheduler the thread
// may block: the runtime's monitor then hands the P to another thread when
// a loopback write lasts 20 µs, and the thread wakes again to take a P
// back. Against bench/hello with 64 connections that cost about a sixth of
// the probe's CPU (14.4-16.2 against 11.8-12.5 µs per request, alternating
// runs, bench/results-probe.md, session 5).
//
// The callback reads once right after the write even though the answer is
// rarely there yet: the poller forgot the socket's readiness before the
// callback ran, so an end of stream or stray bytes that came while the
// connection sat in the pool would never wake a waiting read. A server
// that only shut down its sending side on an idle connection would then
// hold the request until its deadline and turn a transport error into a
// client timeout (probe/sender_wire_halfclose_test.go).
//
// wrote is zero when the request was not written whole.
func (c *wireConn) exchange(req []byte) (n int, wrote time.Time, err error) {
	if c.raw == nil {
		return c.exchangeConn(req)
	}
	return c.exchangeFrom(exchangeState{rest: req})
}

// exchangeFrom runs exchangeStep from x in the poller's read callback
// and words how it ended: with x.wrote set it only reads.
func (c *wireConn) exchangeFrom(x0 exchangeState) (n int, wrote time.Time, err error) {
	x := &c.x
	*x = x0
	if c.step == nil {
		// A method value made per request would be an allocation per
		// request; this one is made once per connection.
		c.step = c.exchangeStep
	}
	cerr := c.raw.Read(c.step)
	// An idle connection keeps no request alive.
	rest := x.rest
	x.rest = nil
	switch {
	case x.werr == syscall.EAGAIN:
		// The socket's buffer is full (a request larger than it): the
		// rest goes the ordinary way, waiting for room.
		return c.exchangeConn(rest)
	case x.werr != nil:
		return 0, time.Time{}, c.opError("write", x.werr)
	case cerr != nil:
		// The deadline passed, or the run closed the connection.
		return 0, x.wrote, c.opError("read", cerr)
	case x.rerr == io.EOF:
		return 0, x.wrote, io.EOF
	case x.rerr != nil:
		return 0, x.wrote, c.opError("read", x.rerr)
	}
	return x.n, x.wrote, nil
}

// readHead reads the first bytes of the answer to a request the
// dispatcher already wrote (writeNow), with the raw reads of exchange and
// for the same reason: a read through net.Conn is a plain Syscall, and an
// open run at 18,000/s spent 15 % of its CPU samples there, with the
// runtime's monitor polling every 20 µs to take Ps back from it.
func (c *wireConn) readHead(wrote time.Time) (int, error) {
	if c.raw == nil {
		return c.Conn.Read(c.head[:])
	}
	n, _, err := c.exchangeFrom(exchangeState{wrote: wrote})
	return n, err
}

// exchangeStep is the poller's read callback: the first call writes the
// request; every call then reads, and asks to wait while nothing is there.
func (c *wireConn) exchangeStep(fd uintptr) bool {
	x := &c.x
	if x.wrote.IsZero() {
		for len(x.rest) > 0 {
			m, err := rawIO(syscall.SYS_WRITE, fd, x.rest)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				x.werr = err
				return true
			}
			x.rest = x.rest[m:]
		}
		x.wrote = time.Now()
	}
	for {
		m, err := rawIO(syscall.SYS_READ, fd, c.head[:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return false
		case err != nil:
			x.rerr = err
		case m == 0:
			x.rerr = io.EOF
		}
		x.n = m
		return true
	}
}

// rawIO reads or writes b (non-empty) on the non-blocking fd without
// telling the scheduler: m is 0 on an error.
func rawIO(trap, fd uintptr, b []byte) (m int, err error) {
	r, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// opError words a raw socket error as net.Conn's Read and Write do.
func (c *wireConn) opError(op string, err error) error {
	if errno, ok := err.(syscall.Errno); ok {
		err = os.NewSyscallError(op, errno)
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// writeNow writes req on c without ever waiting (a raw write in the
// poller's Control, which takes no readiness): what a full socket buffer
// did not take is left in rest for the sender to write.
func (c *wireConn) writeNow(req []byte) pendingWrite {
	var p pendingWrite
	cerr := c.raw.Control(func(fd uintptr) {
		for len(req) > 0 {
			m, err := rawIO(syscall.SYS_WRITE, fd, req)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				if err != syscall.EAGAIN {
					p.err = c.opError("write", err)
				}
				break
			}
			req = req[m:]
		}
	})
	switch {
	case cerr != nil:
		p.err = c.opError("write", cerr)
	case p.err != nil:
	case len(req) == 0:
		p.wrote = time.Now()
	default:
		p.rest = req
	}
	return p
}
