package cmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/shakenfist/shakectl/output"
)

// Main runs shakectl with the process's arguments and streams and returns the
// exit code; main.go is the only caller of os.Exit.
func Main() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
			cancel(ErrInterrupted)
		case <-ctx.Done():
		}
	}()

	home, _ := os.UserHomeDir()
	f := &Factory{
		IOStreams: output.System(os.LookupEnv),
		Build:     currentBuild(),
		Getenv:    os.LookupEnv,
		HomeDir:   home,
		Now:       time.Now,
		Context:   ctx,
	}
	return Run(f, os.Args[1:])
}

// Run executes one command line with the given factory and returns its exit
// code, rendering any error on stderr. Tests call it directly.
func Run(f *Factory, args []string) int {
	if f.Context == nil {
		f.Context = context.Background()
	}
	if f.Now == nil {
		f.Now = time.Now
	}
	if f.Getenv == nil {
		f.Getenv = func(string) (string, bool) { return "", false }
	}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(f.Context)
	if err == nil {
		return ExitOK
	}
	if cause := context.Cause(f.Context); errors.Is(cause, ErrInterrupted) && !errors.Is(err, ErrInterrupted) {
		err = errors.Join(ErrInterrupted, err)
	}
	err = asUsageError(err)
	code := ExitCode(err)
	report := DescribeError(err)
	report.ExitCode = code
	jsonOut := false
	if cfg, cerr := f.Config(); cerr == nil {
		jsonOut = cfg.JSONOutput()
	} else if fl := root.PersistentFlags().Lookup("output"); fl != nil {
		// The configuration itself is what failed; -o, as Cobra parsed it,
		// still says how the user wants to read the error.
		jsonOut = strings.EqualFold(fl.Value.String(), "json")
	}
	output.WriteError(f.IOStreams, jsonOut, report)
	return code
}

// asUsageError recognises Cobra's own argument and command errors, which are
// plain errors, as usage errors.
func asUsageError(err error) error {
	var u *UsageError
	if errors.As(err, &u) {
		return err
	}
	msg := err.Error()
	for _, p := range []string{"unknown command ", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "requires exactly", "invalid argument", "flag needs an argument", "required flag(s)"} {
		if strings.HasPrefix(msg, p) {
			return &UsageError{Msg: msg}
		}
	}
	return err
}
