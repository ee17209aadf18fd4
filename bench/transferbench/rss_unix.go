//go:build unix

package main

import (
	"os"
	"syscall"
)

// peakRSSKiB is the finished process's peak resident set (ru_maxrss,
// KiB on Linux).
func peakRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
