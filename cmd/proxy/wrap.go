package proxy

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	retryproxy "github.com/shakenfist/shakectl/proxy"
)

// CommandArgsAnnotation marks a command whose first argument starts
// another command's command line (wrap: its flags are parsed with
// SetInterspersed(false), which pflag does not report): what follows is
// not this command's, and the root's check of flag values
// (flagValueAsArgument) stops there.
const CommandArgsAnnotation = "shakectl/command-args"

// WrapOptions are `shakectl wrap`'s own flags: the proxy's, but where it
// listens (a free loopback port of its own).
type WrapOptions struct {
	ForwardOptions
}

// NewCmdWrap runs one command behind the retrying proxy and exits with its
// status.
func NewCmdWrap(f *cmdutil.Factory) *cobra.Command {
	opts := &WrapOptions{ForwardOptions: defaultForwardOptions()}
	c := cmdutil.Local(&cobra.Command{
		Use: "wrap",
		// The flags are in the line already, before the "--".
		DisableFlagsInUseLine: true,
		Short:                 WrapShort,
		Long:                  WrapLong,
		Example:               WrapExample,
		// wrap passes SIGINT and SIGTERM to its command itself (see
		// runWrap); the run must not also cancel its context on them.
		Annotations: map[string]string{cmdutil.HandlesSignalsAnnotation: "true", CommandArgsAnnotation: "true"},
	}, func(c *cobra.Command, args []string) error {
		return kernelError(runWrap(f, opts, args))
	})
	// It stands in front of the API for other clients: it takes its URL
	// (and the context that may hold it) and how to reach it, never
	// credentials.
	cmdutil.Takes(c, "api-url", "context", "insecure")
	// Everything from COMMAND on is COMMAND's: "shakectl wrap sf-client
	// --json instance list" works without the "--" too.
	c.Flags().SetInterspersed(false)
	addForwardFlags(c, &opts.ForwardOptions)
	// The command's name and arguments complete as the shell's own (its
	// files), as after sudo or env.
	return builders.ArgsCheckedBy(c, "[--budget D] -- COMMAND [ARGS...]", func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmdutil.UsageErrorf("no command to run: give it after --, e.g. shakectl wrap -- sf-client instance list")
		}
		return nil
	}, complete.Files, complete.Files)
}

// apiURLVars are the variables wrap points at the proxy: shakectl's own
// for --api-url (from the settings table, SHAKECTL_API_URL first) and
// sf-client's SHAKENFIST_API_URL.
func apiURLVars() []string {
	var vars []string
	for _, st := range cmdutil.Settings() {
		if d := st.Declared(); d.Name == "api-url" {
			vars = append(vars, d.EnvNames()...)
		}
	}
	if !slices.Contains(vars, retryproxy.EnvAPIURL) {
		vars = append(vars, retryproxy.EnvAPIURL)
	}
	return vars
}

func runWrap(f *cmdutil.Factory, opts *WrapOptions, argv []string) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	upstream, err := upstreamURL(cfg)
	if err != nil {
		return err
	}
	wo := retryproxy.WrapOptions{
		URLVars: apiURLVars(),
		Proxy:   opts.proxyOptions(f, cfg, upstream),
	}
	// In a real process (Main sets CatchInterrupts, which this command
	// skips), the signals are subscribed here and passed on to the
	// command by RunWrapped, which changes no process state itself. Tests
	// run in-process without it and end the run through its context.
	if f.CatchInterrupts != nil {
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		wo.Signals = sigs
	}
	res, err := retryproxy.RunWrapped(f.Context, wo, argv, retryproxy.Stdio{
		// The command's stderr is its own: relayed as it comes.
		Stdin: f.IOStreams.In, Stdout: f.IOStreams.Out, Stderr: f.IOStreams.Notifier().Relay(),
	})
	if errors.As(err, new(*retryproxy.OptionError)) {
		return err
	}
	if err != nil {
		// The proxy or the command could not be started (127: no such
		// command); the error says which.
		return &cmdutil.ExitStatusError{Code: res.ExitCode, Err: err}
	}
	// After the command's own output: what the proxy did for it.
	printSummary(f, res.Summary)
	if res.Summary.Received() == 0 {
		// A command that took its API URL from somewhere else (a flag,
		// a config file, a variable wrap does not know) got no retry,
		// and without this nothing would say so.
		f.IOStreams.Notifier().Warn(fmt.Sprintf("%s made no request through the proxy, so nothing was retried for it: wrap points %s at the proxy; an API URL from a flag or a config file goes around it",
			argv[0], strings.Join(wo.URLVars, " and ")))
	}
	if res.ExitCode != 0 {
		return &cmdutil.ExitStatusError{Code: res.ExitCode}
	}
	return nil
}
