//go:build !linux && !windows

package proxy

import "os/exec"

// startTied starts cmd. macOS and the BSDs have no parent-death signal,
// and nothing else ends a command when wrap is killed with SIGKILL (a
// watcher process would be a second binary): there, wrap's ordinary
// endings (the command exits; SIGINT and SIGTERM, relayed) still hold,
// but a SIGKILL of wrap leaves the command running, as wrap's help says.
func startTied(cmd *exec.Cmd, _ func(string)) (wait func() error, err error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Wait, nil
}
