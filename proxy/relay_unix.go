//go:build unix

package proxy

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// terminalDelivered says whether the terminal sent sig to wrap's whole
// process group, the command included: a keyboard signal while that group
// is the foreground group of the controlling terminal.
func terminalDelivered(sig os.Signal) bool {
	if sig != syscall.SIGINT && sig != syscall.SIGQUIT {
		return false
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		// No controlling terminal: nobody else sent it to the command.
		return false
	}
	defer tty.Close()
	fg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	return err == nil && fg == unix.Getpgrp()
}
