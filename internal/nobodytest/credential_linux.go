package nobodytest

import "syscall"

// credential runs the child as uid:gid with no supplementary groups (an
// empty Groups drops root's).
func credential(uid, gid uint32) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}}
}
