package cmdutil

import (
	"runtime"
	"runtime/debug"
)

// Set by the release build with -ldflags "-X github.com/shakenfist/shakectl/cmd/cmdutil.version=…".
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

// CurrentBuild reads the release ldflags, falling back to the module build
// information that `go install` and `go build` record.
func CurrentBuild() BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return ResolveBuild(version, commit, date, info)
}

// ResolveBuild prefers what the release build stamped with -ldflags; for a
// field left empty it uses the Go toolchain's record: the module version of
// `go install …@v1.2.3`, and the VCS revision and commit time of a build from
// a checkout (marked "-dirty" when the tree had local changes).
func ResolveBuild(ldVersion, ldCommit, ldDate string, info *debug.BuildInfo) BuildInfo {
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

func OrUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
