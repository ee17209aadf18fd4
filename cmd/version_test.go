package cmd

import (
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var versionTestBuild = BuildInfo{
	Version:   "1.4.2",
	Commit:    "0123456789abcdef0123456789abcdef01234567",
	Date:      "2026-03-01T12:00:00Z",
	GoVersion: "go1.26.8",
	Platform:  "linux/arm64",
}

func TestVersionJSONHasEveryField(t *testing.T) {
	f, out, errOut := completionTestFactory(t)
	f.Build = versionTestBuild
	if code := Run(f, []string{"version", "-o", "json"}); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	want := map[string]any{
		"version":    "1.4.2",
		"commit":     "0123456789abcdef0123456789abcdef01234567",
		"date":       "2026-03-01T12:00:00Z",
		"go_version": "go1.26.8",
		"platform":   "linux/arm64",
	}
	if len(got) != len(want) {
		t.Errorf("fields %v, want exactly %v", versionFieldNames(got), versionFieldNames(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr with -o json: %q", errOut)
	}
}

func TestVersionYAML(t *testing.T) {
	f, out, errOut := completionTestFactory(t)
	f.Build = versionTestBuild
	if code := Run(f, []string{"version", "-o", "yaml"}); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got BuildInfo
	if err := yaml.Unmarshal(out.Bytes(), &struct {
		V *string `yaml:"version"`
		C *string `yaml:"commit"`
		D *string `yaml:"date"`
		G *string `yaml:"go_version"`
		P *string `yaml:"platform"`
	}{&got.Version, &got.Commit, &got.Date, &got.GoVersion, &got.Platform}); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out)
	}
	if got != versionTestBuild {
		t.Errorf("yaml gave %+v, want %+v", got, versionTestBuild)
	}
}

func TestVersionText(t *testing.T) {
	f, out, _ := completionTestFactory(t)
	f.Build = BuildInfo{Version: "dev", GoVersion: "go1.26.8", Platform: "windows/amd64"}
	if code := Run(f, []string{"version"}); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	want := "shakectl dev\ncommit: unknown\nbuilt: unknown\ngo: go1.26.8\nplatform: windows/amd64\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// A config file that does not parse must not stop `shakectl version`: it is
// what people run to report that very problem.
func TestVersionDespiteBrokenConfig(t *testing.T) {
	f, out, errOut := completionTestFactory(t)
	f.Build = versionTestBuild
	cfg := t.TempDir() + "/bad.yaml"
	if err := os.WriteFile(cfg, []byte("output: [unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := Run(f, []string{"version", "--config", cfg, "-o", "json"}); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), `"version": "1.4.2"`) {
		t.Errorf("stdout %q", out)
	}
	// A bad -o is still a usage error.
	f2, _, _ := completionTestFactory(t)
	if code := Run(f2, []string{"version", "--config", cfg, "-o", "xml"}); code != ExitUsage {
		t.Errorf("-o xml with a broken config: exit %d, want %d", code, ExitUsage)
	}
}

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
			b := resolveBuild(tt.ldV, tt.ldC, tt.ldD, tt.info)
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

func versionFieldNames(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
