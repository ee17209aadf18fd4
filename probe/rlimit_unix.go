//go:build unix

package probe

import (
	"fmt"
	"syscall"
)

// raiseOpenFileLimit makes room for need open files: the soft limit is
// raised to need (and the hard limit too, which only a privileged process
// may do). It returns the resulting soft limit and, when that is still below
// need, a warning for the user.
func raiseOpenFileLimit(need uint64) (uint64, string) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Sprintf("cannot read the open-file limit (%v); this run may need %d open files", err, need)
	}
	if lim.Cur >= need {
		return uint64(lim.Cur), ""
	}
	want := lim
	want.Cur = need
	if want.Max < need {
		want.Max = need
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err == nil {
		return need, ""
	}
	// Not privileged: go as high as the hard limit allows.
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	return uint64(lim.Cur), fmt.Sprintf("the open-file limit is %d (hard limit %d) but this run may hold %d connections at once; "+
		"expect \"too many open files\" transport errors, or raise it first (ulimit -n %d)", lim.Cur, lim.Max, need, need)
}
