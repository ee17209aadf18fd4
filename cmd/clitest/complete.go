package clitest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

// CompletionTestFactory is a factory with buffer streams, an empty
// environment and no home directory, so no real config file is read.
func CompletionTestFactory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	ios, _, out, errOut := output.Test()
	return &cmdutil.Factory{
		IOStreams: ios,
		Build:     cmdutil.BuildInfo{Version: "test", GoVersion: "go", Platform: "test/test"},
		Getenv:    func(string) (string, bool) { return "", false },
		HomeDir:   t.TempDir(),
		Context:   context.Background(),
	}, out, errOut
}

// RunComplete runs the hidden __complete command, exactly as the shell
// scripts do at TAB time, and returns the candidates (without descriptions)
// and the directive line.
func RunComplete(t *testing.T, f *cmdutil.Factory, out *bytes.Buffer, args ...string) ([]string, string) {
	t.Helper()
	if code := root.Run(f, append([]string{"__complete"}, args...)); code != cmdutil.ExitOK {
		t.Fatalf("__complete %q: exit %d", args, code)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	directive := lines[len(lines)-1]
	var names []string
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t")
		names = append(names, name)
	}
	return names, directive
}

// NoFileCompLine is cobra.ShellCompDirectiveNoFileComp's line, ":4".
const NoFileCompLine = ":4"
