package clitest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/output"
)

var update = flag.Bool("update", false, "rewrite the golden files under each package's testdata/")

// The credentials of the fake cloud. The secrets test greps every byte the
// commands print for both.
const (
	TestNamespace = "ns1"
	TestKey       = "k3y-0f-the-test-namespace-7f3a91"
	TestToken     = "t0ken-issued-by-the-fake-9c1e44"
)

// CmdRun describes one shakectl run against a stub registry or a simulator.
type CmdRun struct {
	Url       string            // API URL; "" = start an httptest server for api
	Transport http.RoundTripper // in-memory transport (synctest)
	Env       map[string]string
	Tty       bool
	Width     int // terminal width when tty; 0 = unlimited
	Colour    bool
	Stdin     string
	// Ctx is the run's context (Main cancels it on Ctrl-C); nil for
	// Background.
	Ctx context.Context
}

type RunResult struct {
	Code           int
	Stdout, Stderr string
}

func (r RunResult) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.Code, r.Stdout, r.Stderr)
}

// Run executes `shakectl args...` the way main does, with test streams and
// a hermetic environment, and returns what a user would see.
func (c CmdRun) Run(t *testing.T, args ...string) RunResult {
	t.Helper()
	ios, in, out, errOut := output.Test()
	in.WriteString(c.Stdin)
	if c.Tty {
		ios.SetTTY(true, true)
		ios.SetStdinTTY(true)
		ios.SetWidth(c.Width)
	}
	ios.SetColour(c.Colour)
	env := map[string]string{
		"SHAKENFIST_NAMESPACE": TestNamespace,
		"SHAKENFIST_KEY":       TestKey,
	}
	if c.Url != "" {
		env["SHAKENFIST_API_URL"] = c.Url
	}
	for k, v := range c.Env {
		env[k] = v
	}
	dir := t.TempDir()
	env["XDG_CONFIG_HOME"] = filepath.Join(dir, "xdg")
	f := &cmdutil.Factory{
		IOStreams:        ios,
		Build:            cmdutil.BuildInfo{Version: "1.2.3-test"},
		Getenv:           func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		HomeDir:          filepath.Join(dir, "home"),
		SystemConfigFile: filepath.Join(dir, "etc-sf-shakenfist.json"),
		Now:              time.Now,
		Transport:        c.Transport,
		Context:          c.Ctx,
	}
	code := root.Run(f, args)
	res := RunResult{Code: code, Stdout: out.String(), Stderr: errOut.String()}
	// Every command any test runs through here is also a secrets test: the
	// key and the bearer token must never reach stdout or stderr, whatever
	// the command, its flags (--debug included) or its failure.
	for name, secret := range map[string]string{"key": TestKey, "token": TestToken} {
		if strings.Contains(res.Stdout, secret) || strings.Contains(res.Stderr, secret) {
			t.Errorf("shakectl %s printed the test %s:\n%s", strings.Join(args, " "), name, res)
		}
	}
	return res
}

// Golden compares got with testdata/NAME.golden, rewriting it with
// -update.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	golden(t, name, got)
}

// golden compares got with testdata/NAME.golden, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/... -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (rerun with -update if the change is intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// GoldenFormatsOf runs a list or show command in each output format and
// compares the output with testdata/NAME_FORMAT.golden. Table output is
// taken on a (pretend) terminal without colour; piped, table must print
// exactly what simple prints.
func GoldenFormatsOf(t *testing.T, r CmdRun, name string, args ...string) {
	t.Helper()
	for _, format := range output.Formats {
		tr := r
		tr.Tty = format == output.FormatTable
		res := tr.Run(t, append(append([]string{}, args...), "-o", string(format))...)
		if res.Code != 0 || res.Stderr != "" {
			t.Fatalf("%s -o %s: %s", name, format, res)
		}
		golden(t, name+"_"+string(format), res.Stdout)
		switch format {
		case output.FormatJSON:
			if !json.Valid([]byte(res.Stdout)) {
				t.Errorf("%s -o json is not JSON:\n%s", name, res.Stdout)
			}
		case output.FormatSimple:
			// The default table, piped, prints what simple prints; one
			// asked for with -o table keeps its header.
			piped := r.Run(t, args...)
			if piped.Stdout != res.Stdout {
				t.Errorf("%s: piped table differs from simple:\n%s\nvs\n%s", name, piped.Stdout, res.Stdout)
			}
		}
	}
}

func WriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ReadGolden reads a recorded real-shape answer of client/testdata (the
// shapes of shakenfist/shakenfist da448b1a, shakenfist/external_api/*.py):
// the stub registry's one reader of recorded files, named from there.
func ReadGolden(t *testing.T, name string) string {
	t.Helper()
	return httpstub.ReadRecorded(t, "client/testdata/"+name)
}
