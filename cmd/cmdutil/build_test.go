package cmdutil_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func TestResolveBuild(t *testing.T) {
	vcs := func(rev, modified, when string) *debug.BuildInfo {
		return &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/shakenfist/shakectl", Version: "(devel)"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: rev},
				{Key: "vcs.modified", Value: modified},
				{Key: "vcs.time", Value: when},
			},
		}
	}
	tests := []struct {
		name                string
		ldV, ldC, ldD       string
		info                *debug.BuildInfo
		wantV, wantC, wantD string
	}{
		{
			name: "release ldflags win over the toolchain's record",
			ldV:  "1.2.3", ldC: "abc", ldD: "2026-01-02T03:04:05Z",
			info:  vcs("fff", "true", "2020-01-01T00:00:00Z"),
			wantV: "1.2.3", wantC: "abc", wantD: "2026-01-02T03:04:05Z",
		},
		{
			name:  "go install module@version",
			info:  &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			wantV: "v1.2.3",
		},
		{
			name:  "go build in a clean checkout",
			info:  vcs("deadbeef", "false", "2026-02-03T04:05:06Z"),
			wantV: "dev", wantC: "deadbeef", wantD: "2026-02-03T04:05:06Z",
		},
		{
			name:  "go build with local changes",
			info:  vcs("deadbeef", "true", "2026-02-03T04:05:06Z"),
			wantV: "dev", wantC: "deadbeef-dirty", wantD: "2026-02-03T04:05:06Z",
		},
		{
			name:  "no build information at all",
			wantV: "dev",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := cmdutil.ResolveBuild(tt.ldV, tt.ldC, tt.ldD, tt.info)
			if b.Version != tt.wantV || b.Commit != tt.wantC || b.Date != tt.wantD {
				t.Errorf("got version %q commit %q date %q, want %q %q %q", b.Version, b.Commit, b.Date, tt.wantV, tt.wantC, tt.wantD)
			}
			if b.Platform != runtime.GOOS+"/"+runtime.GOARCH {
				t.Errorf("platform %q", b.Platform)
			}
			if b.GoVersion == "" {
				t.Error("empty Go version")
			}
		})
	}
}
