package cmdutil

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"syscall"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// Exit codes, as docs/exit-codes.md (`shakectl help exit-codes`) lists
// them; a test holds the page and these constants to each other.
const (
	ExitOK                = 0
	ExitFailure           = 1
	ExitUsage             = 2
	ExitChecksFailed      = 3
	ExitAuth              = 4
	ExitNotFound          = 5
	ExitCapacityPermanent = 69
	ExitCapacityTransient = 75
	ExitTimeout           = 124
	ExitInterrupted       = 130
	ExitTerminated        = 143
)

// ErrInterrupted is the cause of the run context's cancellation on SIGINT
// (Ctrl-C). Every check for an interrupted run (a probe keeping its partial
// result, a read giving up) asks errors.Is(err, ErrInterrupted), which
// ErrTerminated also answers.
var ErrInterrupted = errors.New("interrupted")

// ErrTerminated is the cause on SIGTERM. It wraps ErrInterrupted, so every
// check for a stopped run holds for it; only the exit code differs, 143
// (128+15) as a shell reports a process that SIGTERM ended.
var ErrTerminated = fmt.Errorf("terminated: %w", ErrInterrupted)

// ExitStatusError ends the run with Code: `shakectl wrap` exits with its
// command's status. Err, when set, is printed (the command could not be
// started); without it nothing is, as the command has said on its own
// stderr why it failed.
type ExitStatusError struct {
	Code int
	Err  error
}

func (e *ExitStatusError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

func (e *ExitStatusError) Unwrap() error { return e.Err }

// SignalCause is the run context's cancellation cause for a signal: the one
// mapping from signals to errors (and so to exit codes: 130, 143).
func SignalCause(sig os.Signal) error {
	if sig == syscall.SIGTERM {
		return ErrTerminated
	}
	return ErrInterrupted
}

// ErrTimeout marks the command's own --timeout elapsing with no answer.
var ErrTimeout = errors.New("timed out")

// TimeoutError is the cause of a command context whose --timeout (or wait
// budget) elapsed; it matches ErrTimeout.
type TimeoutError struct{ Timeout time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no answer within %s (--timeout)", e.Timeout)
}

// Is makes errors.Is(err, ErrTimeout) hold for every TimeoutError.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// UsageError is a bad flag, argument or configuration value (exit 2).
// Command, when known, is the command whose --help explains the usage
// ("shakectl instance create"); the hint names it.
type UsageError struct {
	Msg     string
	Command string
}

func (e *UsageError) Error() string { return e.Msg }

func UsageErrorf(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...)}
}

// NotFoundError is something shakectl looked for in an answer and did not
// find (exit 5, as the server's own 404 is).
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return e.Msg }

// NotFoundf makes a *NotFoundError.
func NotFoundf(format string, a ...any) error {
	return &NotFoundError{Msg: fmt.Sprintf(format, a...)}
}

// ExitCoder is an error of a command that knows its exit code: a probe
// whose checks failed (ExitChecksFailed). Commands wrap their libraries'
// errors so; the kernel knows no feature package.
type ExitCoder interface {
	error
	ExitCode() int
}

// ChecksFailed wraps err, a run whose checks failed, to exit with
// ExitChecksFailed.
func ChecksFailed(err error) error { return &checksFailed{err} }

type checksFailed struct{ error }

func (e *checksFailed) Unwrap() error { return e.error }
func (e *checksFailed) ExitCode() int { return ExitChecksFailed }

// ExitCode maps an error to the process exit code. It is the only place that
// does: commands return typed errors and never choose a code themselves.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var (
		usage    *UsageError
		apiErr   *client.APIError
		capacity *client.CapacityRefusal
		claim    *client.ClaimRefusal
	)
	var (
		status *ExitStatusError
		coded  ExitCoder
	)
	switch {
	case errors.As(err, &status):
		return status.Code
	case errors.Is(err, ErrTerminated):
		return ExitTerminated
	case errors.Is(err, ErrInterrupted):
		return ExitInterrupted
	case errors.As(err, &usage), errors.As(err, new(*output.ColumnError)), errors.As(err, new(*client.UsageError)):
		// A client.UsageError is a request the client refused to send
		// because the server would refuse it for the same reason (an
		// events limit outside 1–1000): the user's input is wrong.
		return ExitUsage
	case errors.As(err, new(*NotFoundError)):
		return ExitNotFound
	case errors.As(err, new(*client.NotSupportedError)):
		// The server lacks the route or the capability: no retry or other
		// key changes that.
		return ExitFailure
	case errors.As(err, new(*RouteNotFoundError)):
		return ExitNotFound
	case errors.As(err, &coded):
		return coded.ExitCode()
	case errors.As(err, &capacity):
		if capacity.WaitMayHelp() {
			return ExitCapacityTransient
		}
		return ExitCapacityPermanent
	case errors.As(err, &claim):
		// A claim's 507 carries no transient marker: permanent.
		switch claim.Kind {
		case client.ClaimNoCapacity:
			return ExitCapacityPermanent
		case client.ClaimRetryLater:
			return ExitCapacityTransient
		}
		return ExitFailure
	case errors.As(err, &apiErr):
		switch {
		case apiErr.IsHTML() && apiErr.StatusCode < 500:
			// Flask's HTML 404 or a web page: the URL is wrong, no
			// resource is missing.
			return ExitFailure
		case apiErr.StatusCode == http.StatusNotFound && apiErr.AtLogin():
			// POST /auth answers 404 for an unknown namespace
			// (shakenfist da448b1a auth.py): a refused login.
			return ExitAuth
		case apiErr.StatusCode == http.StatusUnauthorized, apiErr.StatusCode == http.StatusForbidden:
			return ExitAuth
		case apiErr.StatusCode == http.StatusNotFound:
			return ExitNotFound
		case apiErr.IsAffinityConflict(), apiErr.StatusCode == http.StatusInsufficientStorage:
			// Only the seed's hard-affinity 409 is a capacity refusal
			// ("address X in use" and "Invalid lifecycle state" are not);
			// a 507 that reached here has no transient mark (non-JSON
			// body): waiting won't fix it.
			return ExitCapacityPermanent
		}
		return ExitFailure
	case IsDeadline(err):
		return ExitTimeout
	}
	return ExitFailure
}

// IsDeadline reports whether err is a deadline that ran out, whichever
// transport or command ran it: the command's --timeout or a wait's budget
// (ErrTimeout), a request's bound in any form Go gives one (a context
// deadline, net/http's Client.Timeout, a net.Error timeout:
// client.IsTimeout), or a transfer that stalled past its idle bound. The
// one test of it: ExitCode maps it to 124, DescribeError hints by it.
func IsDeadline(err error) bool {
	return errors.Is(err, ErrTimeout) || client.IsTimeout(err) || errors.Is(err, client.ErrStalled)
}
