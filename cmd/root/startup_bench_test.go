package root_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

// The start-up work shakectl itself does (issue 15), without the process
// start and package initialisation that bench/cli-startup.sh also counts:
//
//	go test ./cmd/root -run '^$' -bench Startup -benchmem
func benchmarkRun(b *testing.B, args ...string) {
	home := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		ios, _, _, _ := output.Test()
		f := &cmdutil.Factory{IOStreams: ios, Build: cmdutil.BuildInfo{Version: "v1.0.0"}, HomeDir: home,
			SystemConfigFile: home + "/none.json"}
		if code := root.Run(f, args); code != cmdutil.ExitOK {
			b.Fatalf("%v: exit %d", args, code)
		}
	}
}

func BenchmarkStartupVersion(b *testing.B) { benchmarkRun(b, "version") }

func BenchmarkStartupHelp(b *testing.B) { benchmarkRun(b, "--help") }

func BenchmarkStartupNewCmdRoot(b *testing.B) {
	ios, _, _, _ := output.Test()
	b.ReportAllocs()
	for b.Loop() {
		f := &cmdutil.Factory{IOStreams: ios}
		root.NewCmdRoot(f)
	}
}
