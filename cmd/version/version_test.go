package version_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
)

var versionTestBuild = cmdutil.BuildInfo{
	Version:   "1.4.2",
	Commit:    "0123456789abcdef0123456789abcdef01234567",
	Date:      "2026-03-01T12:00:00Z",
	GoVersion: "go1.26.8",
	Platform:  "linux/arm64",
}

func TestVersionJSONHasEveryField(t *testing.T) {
	f, out, errOut := clitest.CompletionTestFactory(t)
	f.Build = versionTestBuild
	if code := root.Run(f, []string{"version", "-o", "json"}); code != cmdutil.ExitOK {
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
	f, out, errOut := clitest.CompletionTestFactory(t)
	f.Build = versionTestBuild
	if code := root.Run(f, []string{"version", "-o", "yaml"}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got cmdutil.BuildInfo
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
	f, out, _ := clitest.CompletionTestFactory(t)
	f.Build = cmdutil.BuildInfo{Version: "dev", GoVersion: "go1.26.8", Platform: "windows/amd64"}
	if code := root.Run(f, []string{"version"}); code != cmdutil.ExitOK {
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
	f, out, errOut := clitest.CompletionTestFactory(t)
	f.Build = versionTestBuild
	cfg := t.TempDir() + "/bad.yaml"
	if err := os.WriteFile(cfg, []byte("output: [unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := root.Run(f, []string{"version", "--config", cfg, "-o", "json"}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), `"version": "1.4.2"`) {
		t.Errorf("stdout %q", out)
	}
	// A bad -o is still a usage error.
	f2, _, _ := clitest.CompletionTestFactory(t)
	if code := root.Run(f2, []string{"version", "--config", cfg, "-o", "xml"}); code != cmdutil.ExitUsage {
		t.Errorf("-o xml with a broken config: exit %d, want %d", code, cmdutil.ExitUsage)
	}
}

func versionFieldNames(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
