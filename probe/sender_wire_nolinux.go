//go:build !linux

package probe

import "time"

// exchange writes req and reads the answer's first bytes into c.head
// through net.Conn (the raw path is linux's: sender_wire_linux.go).
func (c *wireConn) exchange(req []byte) (int, time.Time, error) { return c.exchangeConn(req) }

// writeNow leaves the whole request to the sender (finishEarly) here.
func (c *wireConn) writeNow(req []byte) pendingWrite { return pendingWrite{rest: req} }

// readHead reads the first bytes of the answer to a written request.
func (c *wireConn) readHead(time.Time) (int, error) { return c.Conn.Read(c.head[:]) }
