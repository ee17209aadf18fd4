package proxy

import "os"

// relaySignals passes each signal that reaches wrap on to the command,
// exactly once, until done is closed: wrap's one signal relay.
//
// A signal the terminal already delivered to the command is not passed
// again. On a terminal the command runs in wrap's process group, the
// terminal's foreground group, so one Ctrl-C reaches both wrap and the
// command; relaying it too made it two, and Terraform, the manual's own
// `wrap -- terraform apply`, reads a second interrupt as "Exiting
// immediately. Note that data loss may have occurred".
// sudo skips a signal sent from the command's own process group the same
// way. Go does not tell a signal's sender, so the rule is the one the
// terminal follows: a keyboard signal (SIGINT, SIGQUIT) while wrap's
// group is the terminal's foreground group came from the terminal.
// SIGTERM, and every signal when wrap is not in the foreground (a CI
// runner, a pipeline under timeout(1), no terminal at all), is relayed.
func relaySignals(sigs <-chan os.Signal, proc *os.Process, done <-chan struct{}) {
	for {
		select {
		case sig := <-sigs:
			if terminalDelivered(sig) {
				continue
			}
			// The command may already have exited; then there is
			// nobody to tell.
			_ = proc.Signal(sig)
		case <-done:
			return
		}
	}
}
