//go:build unix

package probe

import (
	"fmt"
	"syscall"
)

// raiseOpenFileLimit makes room for want open files: the soft limit is
// raised to want (and the hard limit too, which only a privileged process
// may do), else as high as the hard limit allows. It returns the resulting
// soft limit and, when that is below need (what the run is expected to
// hold), a warning for the user.
func raiseOpenFileLimit(want, need uint64) (uint64, string) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Sprintf("cannot read the open-file limit (%v); this run may need %d open files", err, need)
	}
	if lim.Cur >= want {
		return uint64(lim.Cur), ""
	}
	raised := lim
	raised.Cur = want
	if raised.Max < want {
		raised.Max = want
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err == nil {
		return want, ""
	}
	// Not privileged: go as high as the hard limit allows.
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	if uint64(lim.Cur) >= need {
		return uint64(lim.Cur), ""
	}
	return uint64(lim.Cur), fmt.Sprintf("the open-file limit is %d (hard limit %d) but this run may hold %d connections at once; "+
		"expect \"too many open files\" transport errors, or raise it first (ulimit -n %d)", lim.Cur, lim.Max, need, need)
}
