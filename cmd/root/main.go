package root

import (
	"context"
	"errors"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// Main runs shakectl with the process's arguments and streams and returns the
// exit code; main.go is the only caller of os.Exit.
func Main() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	home, _ := os.UserHomeDir()
	f := &cmdutil.Factory{
		IOStreams: output.System(os.LookupEnv),
		Build:     cmdutil.CurrentBuild(),
		Getenv:    os.LookupEnv,
		HomeDir:   home,
		Now:       time.Now,
		Context:   ctx,
		CatchInterrupts: func() (stop func()) {
			return cancelOnSignal(ctx, cancel)
		},
	}
	routeStdLog(f.IOStreams.Notifier())
	return Run(f, os.Args[1:])
}

// routeStdLog sends Go's standard logger through the run's notifier:
// net/http's Transport prints "Unsolicited response received on idle
// HTTP channel" with log.Printf, and has no logger of its own to set, so
// without this `shakectl proxy -o json` printed a plain, dated line among
// its JSON. The standard logger is the process's: a process-wide knob,
// which only main's run may turn, never a library or a test of one run
// among many. Every http.Server and ReverseProxy of ours has an ErrorLog
// of its own (the source scan checks).
func routeStdLog(n *output.Notifier) {
	log.SetFlags(0)
	log.SetOutput(n.Lines("log"))
}

// cancelOnSignal cancels the run's context on the first SIGINT or SIGTERM,
// with the signal's cause (cmdutil.SignalCause: exit 130 or 143), until
// stop is called. The first signal also stops the catching, so a second
// one gets the default action and ends the process at once, whatever the
// command is still doing (a write to a FIFO nobody reads, a slow helper):
// a second Ctrl-C always ends shakectl.
func cancelOnSignal(ctx context.Context, cancel context.CancelCauseFunc) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			cancel(cmdutil.SignalCause(sig))
		case <-ctx.Done():
		}
	}()
	return func() { signal.Stop(sigs) }
}

// printsOnly says whether the run only prints what it already knows: help,
// --version, `shakectl version`, a help topic, or a usage error for an
// unknown command. Those finish at once, so they skip catching Ctrl-C:
// signal.Notify starts a goroutine and a thread, about 0.8 ms of a 7 ms
// `shakectl version`, and Ctrl-C's default, ending the process,
// is all they could want. Cobra's completion requests may ask the API, so
// they are not among them.
func printsOnly(root *cobra.Command, args []string) bool {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return false
	}
	target, _, err := root.Find(args)
	if err != nil {
		return false
	}
	switch {
	case target == root:
		return true
	case target.Parent() != root:
		return false
	}
	return target.Name() == "version" || target.Name() == "help" || target.Annotations[topicAnnotation] == "true"
}

// handlesSignals says whether the command subscribes to SIGINT and SIGTERM
// itself (wrap, which passes them to its command): the run's context must
// then not be cancelled too, or the command would be sent SIGTERM a second
// time when wrap's context ends.
func handlesSignals(root *cobra.Command, args []string) bool {
	target, _, err := root.Find(args)
	return err == nil && target.Annotations[cmdutil.HandlesSignalsAnnotation] == "true"
}

// Run executes one command line with the given factory and returns its exit
// code, rendering any error on stderr. Tests call it directly.
func Run(f *cmdutil.Factory, args []string) int {
	f.Wire()
	f.IOStreams.SerialiseErrOut()
	root := NewCmdRoot(f)
	if f.CatchInterrupts != nil && !printsOnly(root, args) && !handlesSignals(root, args) {
		defer f.CatchInterrupts()()
	}
	root.SetArgs(args)
	err := flagValueAsArgument(f, root, args)
	if err == nil {
		err = root.ExecuteContext(f.Context)
	}
	if err == nil {
		return cmdutil.ExitOK
	}
	var status *cmdutil.ExitStatusError
	if errors.As(err, &status) && status.Err == nil {
		// wrap's command failed and said why itself.
		return status.Code
	}
	// A run a signal cancelled ends with that signal's code, whatever error
	// the command made of the cancellation (SIGTERM's 143 even when the
	// command returned ErrInterrupted).
	if cause := context.Cause(f.Context); errors.Is(cause, cmdutil.ErrInterrupted) && !errors.Is(err, cause) {
		err = errors.Join(cause, err)
	}
	// A usage error raised inside a command's run (a probe flag out of
	// range, a config value) names no command; the one that ran is it, and
	// its hint says which --help to read.
	var usage *cmdutil.UsageError
	if errors.As(err, &usage) && usage.Command == "" && f.Command != nil {
		usage.Command = f.Command.CommandPath()
	}
	code := cmdutil.ExitCode(err)
	report := cmdutil.DescribeError(err)
	report.ExitCode = code
	// The notifier prints it as -o json says: as configured, or, for a
	// run that failed before resolving its configuration (a refused
	// flag), as the configuration read quietly, else -o as Cobra parsed
	// it (cmdutil's notifyMode).
	if f.Command == nil {
		// Refused before its run started (a flag, an argument): the
		// command Cobra found has the -o it parsed (parking-probe's own
		// -o is not the root's).
		if target, _, ferr := root.Find(args); ferr == nil {
			f.Command = target
		}
	}
	f.IOStreams.Notifier().Error(report)
	return code
}
