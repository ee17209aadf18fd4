//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package termecho

import "golang.org/x/sys/unix"

// Off turns the echo of the terminal on fd off; the caller turns it back
// with term.Restore and the state term.GetState took before. Canonical mode
// and signals stay as they are, so the line is still edited by the terminal
// and Ctrl-C still interrupts.
func Off(fd int) error {
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return err
	}
	t.Lflag &^= unix.ECHO
	return unix.IoctlSetTermios(fd, setTermios, t)
}
