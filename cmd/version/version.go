package version

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// NewCmd builds `shakectl version`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Local(&cobra.Command{
		Use:   "version",
		Short: "Print shakectl's version, commit, build date and platform",
		Long: `Print which shakectl this is: its version, the commit it was built from, the
build date, the Go version and the platform. Release builds carry all of them;
a "go install" or "go build" fills in what the Go toolchain recorded.

With -o json (or yaml) the same facts are printed as one object with the
fields version, commit, date, go_version and platform.`,
		Example: `  shakectl version
  shakectl version -o json | jq -r .version`,
	}, func(c *cobra.Command, _ []string) error {
		format := versionFormat(c, f)
		b := f.Build
		if format.Data() {
			// "unknown" as the text says, not "", so both read the same.
			b.Commit, b.Date = cmdutil.OrUnknown(b.Commit), cmdutil.OrUnknown(b.Date)
			raw, err := json.Marshal(b)
			if err != nil {
				return err
			}
			return output.PrintJSONBody(f.IOStreams, format, raw, true)
		}
		_, err := fmt.Fprint(f.IOStreams.Out, Text(b))
		return err
	})
}

// versionFormat is the -o format. A broken config file must not stop
// `shakectl version`, which is what people run when filing a bug about it,
// so then only the flag counts.
func versionFormat(c *cobra.Command, f *cmdutil.Factory) output.Format {
	if cfg, err := f.Config(); err == nil {
		return cfg.Output
	}
	if fl := c.Flag("output"); fl != nil {
		if format, ok := cmdutil.OutputOf(fl); ok {
			return format
		}
	}
	return output.FormatTable
}

// Text is what both `shakectl version` and `shakectl --version`
// print (gh prints the same for both).
func Text(b cmdutil.BuildInfo) string {
	return fmt.Sprintf("shakectl %s\ncommit: %s\nbuilt: %s\ngo: %s\nplatform: %s\n",
		b.Version, cmdutil.OrUnknown(b.Commit), cmdutil.OrUnknown(b.Date), b.GoVersion, b.Platform)
}
