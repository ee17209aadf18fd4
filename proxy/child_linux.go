//go:build linux

package proxy

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startTied starts cmd so that it ends with wrap, whatever ends wrap: the
// kernel sends it SIGKILL the moment wrap is gone (prctl(2)
// PR_SET_PDEATHSIG, through SysProcAttr.Pdeathsig), so a SIGKILL of wrap,
// the OOM killer or a crash no longer leaves the command running against
// a proxy that no longer exists. SIGKILL, not SIGTERM:
// the proxy is gone, and a command that ignored SIGTERM would live on.
// wrap's ordinary endings (the command exits; SIGINT or SIGTERM, which
// are relayed and waited for) come first, so it fires only when wrap
// itself was killed.
//
// The signal is sent when the thread that forked the command ends, not
// the process (prctl(2): "the 'parent' in this case is considered to be
// the thread that created this process"; golang/go#27505), and Go ends a
// thread when a goroutine locked to it exits. So the command is started
// and waited for from one goroutine locked to its thread for the
// command's whole life: no other goroutine runs there, so the thread
// cannot end before the command does.
//
// The tie is the command's own: a process it starts is its to stop (as
// after a shell's exit).
func startTied(cmd *exec.Cmd, _ func(string)) (wait func() error, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func() error { return <-done }, nil
}
