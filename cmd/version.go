package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

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
// information that `go install` records.
func currentBuild() BuildInfo {
	b := BuildInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				if b.Date == "" {
					b.Date = s.Value
				}
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
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			b := f.Build
			switch cfg.Output {
			case "json":
				enc := json.NewEncoder(f.IOStreams.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(b)
			}
			_, err = fmt.Fprintf(f.IOStreams.Out, "shakectl %s\ncommit: %s\nbuilt: %s\ngo: %s\nplatform: %s\n",
				b.Version, orUnknown(b.Commit), orUnknown(b.Date), b.GoVersion, b.Platform)
			return err
		},
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
