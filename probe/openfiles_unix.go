//go:build unix

package probe

import "syscall"

// openFileLimit reads the process's open-file limits (soft and hard). The
// library never changes them: the Go runtime already raises the soft
// limit to the hard one at start-up (go1.19 and later), and anything
// further is the user's (ulimit -n) or the command's to do.
func openFileLimit() (soft, hard uint64, ok bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, false
	}
	return uint64(lim.Cur), uint64(lim.Max), true
}
