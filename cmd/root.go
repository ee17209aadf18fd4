package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// NewCmdRoot builds the whole command tree for one run.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "shakectl <command> <subcommand> [flags]",
		Short: "Shakenfist cloud client and atenet request-parking probe",
		Long: `shakectl talks to a Shakenfist cloud (instances, networks, nodes,
namespaces, raw API calls), load-tests the atenet router's request parking
(parking-probe), and runs local simulators of both servers (sim, demo).

Configuration, highest precedence first: flags, environment
(SHAKENFIST_API_URL, SHAKENFIST_NAMESPACE, SHAKENFIST_KEY, SHAKENFIST_ASYNC,
SHAKECTL_<FLAG>), $XDG_CONFIG_HOME/shakectl/config.yaml (or --config),
~/.shakenfist, /etc/sf/shakenfist.json.

Try "shakectl demo" for a tour against the embedded simulators, and
"shakectl help exit-codes" for what the exit status means.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Completion is our own command (shakectl completion SHELL), with
		// help for each shell; Cobra's default one is switched off.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	root.SetIn(f.IOStreams.In)

	pf := root.PersistentFlags()
	pf.String("api-url", "", "Shakenfist API URL, http://HOST/api (Apache) or http://HOST:13000")
	pf.String("namespace", "", "namespace to authenticate to")
	pf.String("key", "", "API key (prefer SHAKENFIST_KEY or a config file: argv is visible to other users)")
	pf.StringP("output", "o", "table", "output format: table, simple, json or yaml")
	pf.Bool("retry-transient-capacity", false, "retry creates refused with a transient 507, as the server's Retry-After says (at most 5 attempts, within the deadline)")
	pf.String("timeout", "", "deadline for the whole command, e.g. 90s (default: the --async budget)")
	pf.String("async", "pause", "how long to wait for slow operations: continue (0), pause (60s) or block (1h)")
	pf.Bool("no-color", false, "never colour the output")
	pf.Bool("quiet", false, "print no progress or retry lines on stderr")
	pf.Bool("debug", false, "log every request and answer on stderr (secrets redacted)")
	pf.Bool("insecure", false, "do not verify the API server's TLS certificate (dangerous)")
	pf.String("config", "", "config file (default $XDG_CONFIG_HOME/shakectl/config.yaml)")

	f.Config = memoConfig(func() (*Config, error) {
		cfg, err := loadConfig(pf, f.Getenv, f.HomeDir, f.SystemConfigFile)
		if err != nil {
			return nil, err
		}
		if cfg.NoColor {
			f.IOStreams.SetColour(false)
		}
		for _, w := range cfg.Warnings {
			fmt.Fprintln(f.IOStreams.ErrOut, "warning: "+w)
		}
		return cfg, nil
	})
	if f.Client == nil {
		f.Client = clientFunc(f)
	}

	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &UsageError{Msg: err.Error()}
	})

	root.AddCommand(
		NewCmdVersion(f),
		newHelpTopic("exit-codes", "What shakectl's exit status means", exitCodeTopic),
	)
	// Command groups register here, one constructor each.
	root.AddCommand(
		NewCmdInstance(f),
		NewCmdNetwork(f),
		NewCmdNode(f),
		NewCmdNamespace(f),
		NewCmdAPI(f, nil),
	)
	root.AddCommand(NewCmdSim(f))
	root.AddCommand(NewCmdParkingProbe(f))
	root.AddCommand(NewCmdCompletion(f))
	root.AddCommand(NewCmdDemo(f))
	registerRootCompletions(root, f)
	return root
}

// newHelpTopic makes `shakectl help NAME` print a text; the topic is a
// hidden command so it does not clutter the command list.
func newHelpTopic(name, short, text string) *cobra.Command {
	c := &cobra.Command{
		Use:    name,
		Short:  short,
		Long:   text,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(c.OutOrStdout(), text)
			return err
		},
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprint(c.OutOrStdout(), strings.TrimLeft(text, "\n"))
	})
	return c
}
