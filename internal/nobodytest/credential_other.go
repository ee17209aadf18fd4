//go:build !linux

package nobodytest

import "syscall"

// credential is never reached off Linux: New skips first.
func credential(uid, gid uint32) *syscall.SysProcAttr { return nil }
