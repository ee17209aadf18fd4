package cmdutil_test

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// One mapping from signals to exit codes: SIGINT 130, SIGTERM 143, and a
// SIGTERM is an interruption to every check that asks for one.
func TestSignalExitCodes(t *testing.T) {
	term := cmdutil.SignalCause(syscall.SIGTERM)
	if got := cmdutil.ExitCode(term); got != 143 {
		t.Errorf("SIGTERM: exit %d, want 143", got)
	}
	if got := cmdutil.ExitCode(cmdutil.SignalCause(os.Interrupt)); got != 130 {
		t.Errorf("SIGINT: exit %d, want 130", got)
	}
	if !errors.Is(term, cmdutil.ErrInterrupted) {
		t.Error("SIGTERM's cause is not an interruption")
	}
	if got := cmdutil.ExitCode(errors.Join(term, &cmdutil.UsageError{Msg: "x"})); got != 143 {
		t.Errorf("SIGTERM joined to a usage error: exit %d, want 143", got)
	}
	if r := cmdutil.DescribeError(term); r.Message != "terminated" {
		t.Errorf("message %q", r.Message)
	}
}
