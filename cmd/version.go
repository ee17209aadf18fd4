package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/shakenfist/shakectl/output"

	"github.com/spf13/cobra"
)

// Set by the release build with -ldflags "-X github.com/shakenfist/shakectl/cmd.version=…".
var (
	version = ""
	commit  = ""
	date    = ""
)

// BuildInfo says which shakectl this is.
type BuildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// currentBuild reads the release ldflags, falling back to the module build
// information that `go install` and `go build` record.
func currentBuild() BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return resolveBuild(version, commit, date, info)
}

// resolveBuild prefers what the release build stamped with -ldflags; for a
// field left empty it uses the Go toolchain's record: the module version of
// `go install …@v1.2.3`, and the VCS revision and commit time of a build from
// a checkout (marked "-dirty" when the tree had local changes).
func resolveBuild(ldVersion, ldCommit, ldDate string, info *debug.BuildInfo) BuildInfo {
	b := BuildInfo{Version: ldVersion, Commit: ldCommit, Date: ldDate, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info != nil {
		if info.GoVersion != "" {
			b.GoVersion = info.GoVersion
		}
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		var revision, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			case "vcs.time":
				if b.Date == "" {
					b.Date = s.Value
				}
			}
		}
		if b.Commit == "" && revision != "" {
			b.Commit = revision
			if modified == "true" {
				b.Commit += "-dirty"
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

// UserAgent names shakectl and its version for the API's logs.
func (b BuildInfo) UserAgent() string { return "shakectl/" + b.Version }

// NewCmdVersion builds `shakectl version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print shakectl's version, commit, build date and platform",
		Long: `Print which shakectl this is: its version, the commit it was built from, the
build date, the Go version and the platform. Release builds carry all of them;
a "go install" or "go build" fills in what the Go toolchain recorded.

With -o json (or yaml) the same facts are printed as one object with the
fields version, commit, date, go_version and platform.`,
		Example: `  shakectl version
  shakectl version -o json | jq -r .version`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := versionFormat(c, f)
			if err != nil {
				return err
			}
			b := f.Build
			switch format {
			case "json", "yaml":
				// "unknown" as the text says, not "", so both read the same.
				b.Commit, b.Date = orUnknown(b.Commit), orUnknown(b.Date)
				raw, err := json.Marshal(b)
				if err != nil {
					return err
				}
				return output.PrintJSONBody(f.IOStreams, format, raw, true)
			}
			_, err = fmt.Fprint(f.IOStreams.Out, versionText(b))
			return err
		},
	}
}

// versionFormat is the -o format. A broken config file must not stop
// `shakectl version`, which is what people run when filing a bug about it,
// so then only the flag counts.
func versionFormat(c *cobra.Command, f *Factory) (string, error) {
	cfg, err := f.Config()
	if err == nil {
		return cfg.Output, nil
	}
	format := "table"
	if fl := c.Flag("output"); fl != nil {
		format = strings.ToLower(fl.Value.String())
	}
	if !contains(outputFormats, format) {
		return "", err
	}
	return format, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// versionText is what both `shakectl version` and `shakectl --version`
// print (gh prints the same for both).
func versionText(b BuildInfo) string {
	return fmt.Sprintf("shakectl %s\ncommit: %s\nbuilt: %s\ngo: %s\nplatform: %s\n",
		b.Version, orUnknown(b.Commit), orUnknown(b.Date), b.GoVersion, b.Platform)
}
