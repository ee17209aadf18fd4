package cmdutil

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/retry"
)

// Factory hands commands their dependencies, lazily, so a command that needs
// no API client never builds one and tests can swap any piece (the gh
// cmdutil.Factory pattern). A fresh Factory and command tree serve each run.
type Factory struct {
	IOStreams *output.IOStreams
	Build     BuildInfo

	// Getenv reads the environment; tests pass a map.
	Getenv func(string) (string, bool)
	// HomeDir is where ~/.shakenfist and the default config live.
	HomeDir string
	// SystemConfigFile is sf-client's system-wide file; "" means
	// /etc/sf/shakenfist.json. Tests point it into a temporary directory.
	SystemConfigFile string
	// Now is the clock; tests pin it.
	Now func() time.Time

	// Config resolves global flags, environment and files once per run. It
	// is set by the root command when its flags are parsed.
	Config func() (*Config, error)

	// Client builds the Shakenfist API client from the configuration, once
	// per run and only when a command asks for it (version and help never
	// do). The root command sets it unless a test already has.
	Client func() (*client.Client, error)

	// Transport, when set, carries the API client's requests instead of a
	// network transport: tests inject an in-memory RoundTripper (for
	// testing/synctest) here.
	Transport http.RoundTripper

	// Net is where commands listen and dial (simulators, the API client,
	// parking-probe): the machine's TCP, or a test's in-memory network
	// (memnet) to run them in a synctest bubble.
	Net network.Network

	// Context is the run's context: cancelled on SIGINT/SIGTERM with cause
	// ErrInterrupted.
	Context context.Context

	// Root is the command tree of the run, set by the root command.
	Root *cobra.Command
	// Command is the command that runs, set before its RunE; its flags
	// (the root's, plus the client's on client commands) feed Config.
	Command *cobra.Command
	// ConfigResolved is set once Config has run (and printed warnings).
	ConfigResolved bool
	// CompleteNamespaces completes the --namespace setting's value from
	// the API. cmd/root sets it (cmd/complete's), so the kernel imports no
	// command package; nil offers no namespaces.
	CompleteNamespaces func(*Factory) cobra.CompletionFunc
	// CatchInterrupts, set by Main, starts cancelling Context on SIGINT
	// and SIGTERM; Run calls it unless the run only prints (printsOnly).
	CatchInterrupts func() (stop func())
}

// Wire gives f what commands ask of it, keeping whatever a test already
// set: a context, a clock and an environment, and Config and Client,
// resolved once and on demand from the running command's flags (Command,
// else Root's, else none), the environment and the files. Main and Run
// call it, and a test that builds one command alone can too.
func (f *Factory) Wire() {
	if f.Context == nil {
		f.Context = context.Background()
	}
	if f.Now == nil {
		f.Now = time.Now
	}
	if f.Getenv == nil {
		f.Getenv = func(string) (string, bool) { return "", false }
	}
	if f.Net == nil {
		f.Net = network.TCP{}
	}
	if f.Config == nil {
		f.Config = MemoConfig(f.resolveConfig)
	}
	if f.Client == nil {
		f.Client = ClientFunc(f)
	}
	if f.IOStreams != nil {
		// Until the configuration is resolved (resolveConfig fixes the
		// mode), stderr is written as the configuration says.
		f.IOStreams.Notifier().ResolveModeWith(f.notifyMode)
	}
}

// notifyMode is how the run's notifier writes when the configuration was
// never resolved: a command that needs none (context use) and a run
// refused before it resolved it follow the configuration, read quietly
// (its warnings are about a run that did not happen); when the
// configuration itself is what failed, -o as Cobra parsed it still says
// how the user wants to read the error.
func (f *Factory) notifyMode() output.NotifyMode {
	if cfg, err := f.LoadConfigQuietly(); err == nil {
		return output.NotifyMode{JSON: cfg.JSONOutput(), Quiet: cfg.Quiet}
	}
	if fl := f.runFlags().Lookup("output"); fl != nil {
		format, _ := OutputOf(fl)
		return output.NotifyMode{JSON: format == output.FormatJSON}
	}
	return output.NotifyMode{}
}

// LoadConfigQuietly resolves the configuration without applying it to the
// streams or printing its warnings: for reporting the error of a run that
// failed before it resolved its configuration.
func (f *Factory) LoadConfigQuietly() (*Config, error) {
	return LoadConfig(f.Context, f.runFlags(), f.Getenv, f.HomeDir, f.SystemConfigFile)
}

func (f *Factory) runFlags() *pflag.FlagSet {
	if f.Root == nil && f.Command == nil {
		return pflag.NewFlagSet("none", pflag.ContinueOnError)
	}
	root := f.Root
	if root == nil {
		root = f.Command.Root()
	}
	return RunFlags(root, f.Command)
}

// resolveConfig loads the configuration and applies it to the streams:
// colour, table options, --jq, and its warnings, printed once.
func (f *Factory) resolveConfig() (*Config, error) {
	f.ConfigResolved = true
	cfg, err := f.LoadConfigQuietly()
	if err != nil {
		return nil, err
	}
	if cfg.NoColor {
		f.IOStreams.SetColour(false)
	}
	n := f.IOStreams.Notifier()
	n.SetMode(output.NotifyMode{JSON: cfg.JSONOutput(), Quiet: cfg.Quiet})
	// The run's context ends a --jq evaluation on Ctrl-C.
	opts := output.TableOptions{Header: cfg.OutputExplicit, NoHeaders: cfg.NoHeaders, Columns: cfg.Columns, Context: f.Context}
	if cfg.JQ != "" {
		code, err := output.ParseJQ(cfg.JQ)
		if err != nil {
			return nil, &UsageError{Msg: fielderr.Render(err, libraryOptionName)}
		}
		opts.JQ = code
	}
	f.IOStreams.SetTableOptions(opts)
	for _, w := range cfg.Warnings {
		n.Warn(w)
	}
	return cfg, nil
}

// MemoConfig wraps a loader so the configuration is resolved (and its
// warnings printed) exactly once per run.
func MemoConfig(load func() (*Config, error)) func() (*Config, error) {
	return sync.OnceValues(load)
}

// configHowToLead begins every configHowTo: DescribeError knows by it that
// the message already says what to do.
const configHowToLead = "set SHAKENFIST_API_URL, SHAKENFIST_NAMESPACE and SHAKENFIST_KEY, pass --api-url/--namespace, or write api-url, namespace and key to "

// unknownConfigFile names the config file when the path in use is not
// known, up to its closing parenthesis.
const unknownConfigFile = "the config file (--config, SHAKECTL_CONFIG, else ~/.config/shakectl/config.yaml"

// configHowTo says where an API URL and credentials can come from; it ends
// every "not configured" error. path is the config file this run reads
// (--config, SHAKECTL_CONFIG, else the XDG default), so the hint names the
// file that is really in use; "" when it is not known.
func configHowTo(path string) string {
	if path == "" {
		return configHowToLead + unknownConfigFile + "; mode 600)"
	}
	return configHowToLead + path + " (mode 600)"
}

// APIURLHowTo is configHowTo for a command that needs only the API URL
// (proxy and wrap forward their clients' own credentials), naming the
// same config file.
func APIURLHowTo(path string) string {
	if path == "" {
		path = unknownConfigFile + ")"
	}
	return "set SHAKENFIST_API_URL, pass --api-url, or write api-url to " + path + " or a context"
}

// ClientFunc returns the lazy, memoised client builder of a run.
func ClientFunc(f *Factory) func() (*client.Client, error) {
	return sync.OnceValues(func() (*client.Client, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		return newClient(f, cfg)
	})
}

// newClient maps the configuration onto client.Options: the one place that
// decides how --retry-transient-capacity, --debug, --quiet and --insecure
// reach the client.
func newClient(f *Factory, cfg *Config) (*client.Client, error) {
	switch {
	case cfg.APIURL == "":
		return nil, UsageErrorf("no API URL configured: %s", configHowTo(cfg.ConfigPath))
	case cfg.Namespace == "":
		return nil, UsageErrorf("no namespace configured: %s", configHowTo(cfg.ConfigPath))
	case cfg.Key == "":
		return nil, UsageErrorf("no API key configured: %s", configHowTo(cfg.ConfigPath))
	}
	opts := client.Options{
		APIURL:    cfg.APIURL,
		Namespace: cfg.Namespace,
		Key:       cfg.Key,
		UserAgent: f.Build.UserAgent(),
		Insecure:  cfg.Insecure,
		Timeout:   cfg.RequestTimeout,
		Transport: f.Transport,
		Dial:      network.Dialer(f.Net),
		Now:       f.Now,
		// A 406 (a network still "initial") is repeated within the async
		// budget, as sf-client does.
		NotReadyBudget: cfg.Deadline(),
	}
	n := f.IOStreams.Notifier()
	opts.NotReadyNotify = func(msg string, left time.Duration) {
		n.Note("not_ready", fmt.Sprintf("%s; retrying in %s (%s left)", msg, client.NotReadyPause, left.Round(time.Second)))
	}
	if cfg.Debug {
		// Bodies and headers under --debug are the server's text: the
		// notifier sanitises each line.
		opts.Debug = n.Debug()
	}
	if f.IOStreams.IsStderrTTY() && !cfg.Quiet {
		// A person at a terminal learns after a second what shakectl is
		// waiting for; --request-timeout bounds the wait.
		timeout := cfg.RequestTimeout
		if timeout == 0 {
			timeout = client.DefaultTimeout
		}
		opts.Waiting = func(method, url string) {
			n.Progress("waiting", fmt.Sprintf("waiting for an answer to %s %s (giving up after %s; --request-timeout)", method, redact.URL(url), timeout))
		}
	}
	if cfg.RetryTransientCapacity {
		opts.Retry = &client.RetryOptions{
			// The deadline bounds the sleeping between attempts (seed
			// 004: the caller's deadline), never the last request.
			Budget: cfg.Deadline(),
			// The stage is the server's text: the notifier sanitises it.
			Notify: func(rn retry.Notice) { n.Event(rn.String(), rn.Fields()) },
		}
		if cfg.Deadline() == 0 {
			n.Warn("--retry-transient-capacity has no time to wait with --async continue and no --timeout; a refusal will not be retried")
		}
	}
	c, err := client.New(opts)
	if err != nil {
		// A malformed URL is a configuration value problem.
		return nil, UsageErrorf("%s; %s", err, "check --api-url or SHAKENFIST_API_URL")
	}
	return c, nil
}

// commandContext is the context for a command's requests: the run's
// context, bounded by --timeout when one was given. Its cause on expiry is
// a *TimeoutError, so the run ends with exit code 124.
func commandContext(f *Factory, cfg *Config) (context.Context, context.CancelFunc) {
	return withDeadline(f.Context, cfg.Timeout)
}

// withDeadline bounds ctx by d (none when d is 0) with a *TimeoutError
// cause.
func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, &TimeoutError{Timeout: d})
}
