package cmdutil_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

// configWorld is a hermetic home, XDG directory, system file and
// environment for resolving one configuration.
type configWorld struct {
	t      *testing.T
	home   string
	xdg    string
	system string
	env    map[string]string
}

func newConfigWorld(t *testing.T) *configWorld {
	t.Helper()
	dir := t.TempDir()
	w := &configWorld{
		t:      t,
		home:   filepath.Join(dir, "home"),
		xdg:    filepath.Join(dir, "xdg"),
		system: filepath.Join(dir, "etc", "shakenfist.json"),
		env:    map[string]string{},
	}
	for _, d := range []string{w.home, filepath.Join(w.xdg, "shakectl"), filepath.Dir(w.system)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env["XDG_CONFIG_HOME"] = w.xdg
	return w
}

func (w *configWorld) write(path, content string, mode os.FileMode) {
	w.t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		w.t.Fatal(err)
	}
}

func (w *configWorld) configFile() string { return filepath.Join(w.xdg, "shakectl", "config.yaml") }

func (w *configWorld) homeFile() string { return filepath.Join(w.home, ".shakenfist") }

func (w *configWorld) factory() (*cmdutil.Factory, *strings.Builder) {
	s, _, _, errOut := output.Test()
	var stderr strings.Builder
	s.ErrOut = &stderr
	_ = errOut
	return &cmdutil.Factory{
		IOStreams:        s,
		Getenv:           func(k string) (string, bool) { v, ok := w.env[k]; return v, ok },
		HomeDir:          w.home,
		SystemConfigFile: w.system,
		Now:              time.Now,
	}, &stderr
}

// load parses args as the root's global flags and resolves the
// configuration, as a command would.
func (w *configWorld) load(args ...string) (*cmdutil.Config, string, error) {
	w.t.Helper()
	f, stderr := w.factory()
	root := root.NewCmdRoot(f)
	// The client's flags live on the client commands: parse as `api` would.
	api, _, err := root.Find([]string{"api"})
	if err != nil {
		w.t.Fatal(err)
	}
	if err := api.ParseFlags(args); err != nil {
		return nil, "", err
	}
	f.Command = api
	cfg, err := f.Config()
	return cfg, stderr.String(), err
}

func TestConfigPrecedenceLayerByLayer(t *testing.T) {
	// Each layer sets every value it can; the highest layer present wins.
	type layer struct {
		name  string
		apply func(w *configWorld)
	}
	credLayers := []layer{
		{"system file", func(w *configWorld) {
			w.write(w.system, `{"apiurl":"http://system","namespace":"system-ns","key":"system-key"}`, 0o600)
		}},
		{"~/.shakenfist", func(w *configWorld) {
			w.write(w.homeFile(), `{"apiurl":"http://home","namespace":"home-ns","key":"home-key"}`, 0o600)
		}},
		{"config.yaml", func(w *configWorld) {
			w.write(w.configFile(), "api-url: http://file\nnamespace: file-ns\nkey: file-key\n", 0o600)
		}},
		{"SHAKENFIST_ env", func(w *configWorld) {
			w.env["SHAKENFIST_API_URL"], w.env["SHAKENFIST_NAMESPACE"], w.env["SHAKENFIST_KEY"] = "http://sfenv", "sfenv-ns", "sfenv-key"
		}},
		{"SHAKECTL_ env", func(w *configWorld) {
			w.env["SHAKECTL_API_URL"], w.env["SHAKECTL_NAMESPACE"], w.env["SHAKECTL_KEY"] = "http://env", "env-ns", "env-key"
		}},
	}
	wants := []struct{ url, ns, key, keyFrom string }{
		{"http://system", "system-ns", "system-key", "system"},
		{"http://home", "home-ns", "home-key", ".shakenfist"},
		{"http://file", "file-ns", "file-key", "config.yaml"},
		{"http://sfenv", "sfenv-ns", "sfenv-key", "SHAKENFIST_KEY"},
		{"http://env", "env-ns", "env-key", "SHAKECTL_KEY"},
		{"http://flag", "flag-ns", "flag-key", "flag"},
	}
	for top := -1; top < len(credLayers)+1; top++ {
		name := "defaults only"
		if top >= 0 && top < len(credLayers) {
			name = "up to " + credLayers[top].name
		} else if top == len(credLayers) {
			name = "up to flags"
		}
		t.Run(name, func(t *testing.T) {
			w := newConfigWorld(t)
			for i := 0; i <= top && i < len(credLayers); i++ {
				credLayers[i].apply(w)
			}
			var args []string
			if top == len(credLayers) {
				args = []string{"--api-url", "http://flag", "--namespace", "flag-ns", "--key", "flag-key"}
			}
			cfg, _, err := w.load(args...)
			if err != nil {
				t.Fatal(err)
			}
			if top < 0 {
				if cfg.APIURL != "" || cfg.Namespace != "" || cfg.Key != "" || cfg.Output != "table" || cfg.Async != "pause" {
					t.Errorf("defaults: %+v", cfg)
				}
				return
			}
			want := wants[top]
			if cfg.APIURL != want.url || cfg.Namespace != want.ns || cfg.Key != want.key {
				t.Errorf("got %s %s %s, want %s %s %s", cfg.APIURL, cfg.Namespace, cfg.Key, want.url, want.ns, want.key)
			}
			if !strings.Contains(cfg.KeyFrom, want.keyFrom) {
				t.Errorf("KeyFrom %q, want it to name %q", cfg.KeyFrom, want.keyFrom)
			}
		})
	}
}

func TestConfigPrecedenceOfOtherGlobals(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		env   map[string]string
		args  []string
		check func(*cmdutil.Config) string
	}{
		{"output default", "", nil, nil, func(c *cmdutil.Config) string { return string(c.Output) }},
		{"output file", "output: yaml\n", nil, nil, func(c *cmdutil.Config) string { return string(c.Output) }},
		{"output env", "output: yaml\n", map[string]string{"SHAKECTL_OUTPUT": "simple"}, nil, func(c *cmdutil.Config) string { return string(c.Output) }},
		{"output flag", "output: yaml\n", map[string]string{"SHAKECTL_OUTPUT": "simple"}, []string{"-o", "json"}, func(c *cmdutil.Config) string { return string(c.Output) }},
		{"async default", "", nil, nil, func(c *cmdutil.Config) string { return string(c.Async) }},
		{"async file", "async: block\n", nil, nil, func(c *cmdutil.Config) string { return string(c.Async) }},
		{"async SHAKENFIST_ASYNC", "async: block\n", map[string]string{"SHAKENFIST_ASYNC": "continue"}, nil, func(c *cmdutil.Config) string { return string(c.Async) }},
		{"async SHAKECTL_ASYNC beats SHAKENFIST_ASYNC", "", map[string]string{"SHAKENFIST_ASYNC": "continue", "SHAKECTL_ASYNC": "block"}, nil, func(c *cmdutil.Config) string { return string(c.Async) }},
		{"async flag", "async: block\n", map[string]string{"SHAKENFIST_ASYNC": "continue"}, []string{"--async", "pause"}, func(c *cmdutil.Config) string { return string(c.Async) }},
		{"retry default", "", nil, nil, func(c *cmdutil.Config) string { return fmt.Sprint(c.RetryTransientCapacity) }},
		{"retry file", "retry-transient-capacity: true\n", nil, nil, func(c *cmdutil.Config) string { return fmt.Sprint(c.RetryTransientCapacity) }},
		{"retry env off beats file", "retry-transient-capacity: true\n", map[string]string{"SHAKECTL_RETRY_TRANSIENT_CAPACITY": "false"}, nil, func(c *cmdutil.Config) string { return fmt.Sprint(c.RetryTransientCapacity) }},
		{"retry flag beats env", "", map[string]string{"SHAKECTL_RETRY_TRANSIENT_CAPACITY": "false"}, []string{"--retry-transient-capacity"}, func(c *cmdutil.Config) string { return fmt.Sprint(c.RetryTransientCapacity) }},
		{"retry flag=false beats env", "", map[string]string{"SHAKECTL_RETRY_TRANSIENT_CAPACITY": "1"}, []string{"--retry-transient-capacity=false"}, func(c *cmdutil.Config) string { return fmt.Sprint(c.RetryTransientCapacity) }},
		{"timeout file", "timeout: 2m\n", nil, nil, func(c *cmdutil.Config) string { return c.Timeout.String() }},
		{"timeout env bare seconds", "timeout: 2m\n", map[string]string{"SHAKECTL_TIMEOUT": "30"}, nil, func(c *cmdutil.Config) string { return c.Timeout.String() }},
		{"timeout flag", "timeout: 2m\n", map[string]string{"SHAKECTL_TIMEOUT": "30"}, []string{"--timeout", "90s"}, func(c *cmdutil.Config) string { return c.Timeout.String() }},
		{"quiet env", "", map[string]string{"SHAKECTL_QUIET": "yes"}, nil, func(c *cmdutil.Config) string { return fmt.Sprint(c.Quiet) }},
		{"debug file", "debug: on\n", nil, nil, func(c *cmdutil.Config) string { return fmt.Sprint(c.Debug) }},
		{"no-color env", "", map[string]string{"SHAKECTL_NO_COLOR": "true"}, nil, func(c *cmdutil.Config) string { return fmt.Sprint(c.NoColor) }},
	}
	wants := []string{
		"table", "yaml", "simple", "json",
		"pause", "block", "continue", "block", "pause",
		"false", "true", "false", "true", "false",
		"2m0s", "30s", "1m30s",
		"true", "true", "true",
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newConfigWorld(t)
			if c.file != "" {
				w.write(w.configFile(), c.file, 0o600)
			}
			for k, v := range c.env {
				w.env[k] = v
			}
			cfg, _, err := w.load(c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.check(cfg); got != wants[i] {
				t.Errorf("got %s, want %s", got, wants[i])
			}
		})
	}
}

func TestConfigHomeFileIsTakenWholeNotMixedWithSystemFile(t *testing.T) {
	w := newConfigWorld(t)
	w.write(w.system, `{"apiurl":"http://system","namespace":"system","key":"system-key"}`, 0o600)
	w.write(w.homeFile(), `{"apiurl":"http://mine"}`, 0o600)
	cfg, _, err := w.load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIURL != "http://mine" || cfg.Key != "" || cfg.Namespace != "" {
		t.Errorf("the system key leaked into the user's configuration: %+v", cfg)
	}
}

func TestConfigUnreadableImplicitFilesCountAsAbsent(t *testing.T) {
	w := newConfigWorld(t)
	// A directory where a file is expected cannot be read, even by root.
	for _, p := range []string{w.configFile(), w.homeFile()} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write(w.system, `{"apiurl":"http://system","namespace":"ns","key":"k"}`, 0o600)
	cfg, stderr, err := w.load()
	if err != nil {
		t.Fatalf("unreadable implicit files should be absent, got %v", err)
	}
	if cfg.APIURL != "http://system" || cfg.ConfigFile != "" {
		t.Errorf("got %+v", cfg)
	}
	if stderr != "" {
		t.Errorf("unexpected stderr %q", stderr)
	}
}

func TestConfigBrokenSFClientFileIsIgnoredWithAWarning(t *testing.T) {
	w := newConfigWorld(t)
	w.write(w.homeFile(), `{"apiurl": `, 0o600)
	w.write(w.system, `{"apiurl":"http://system","namespace":"ns","key":"k"}`, 0o600)
	cfg, stderr, err := w.load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIURL != "http://system" {
		t.Errorf("got %q", cfg.APIURL)
	}
	if !strings.Contains(stderr, "warning: ignoring "+w.homeFile()+": not valid JSON") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestConfigErrorsAreUsageErrors(t *testing.T) {
	cases := []struct {
		name, file string
		env        map[string]string
		args       []string
		want       string
	}{
		{"bad YAML", "api-url: [unclosed\n", nil, nil, "is not valid YAML"},
		{"tab indentation", "api-url: x\n\tkey: y\n", nil, nil, "is not valid YAML"},
		{"not a mapping", "- a\n- b\n", nil, nil, "is not valid YAML"},
		{"unknown key", "api_url: http://x\n", nil, nil, `unknown key "api_url"`},
		{"map value", "api-url:\n  host: x\n", nil, nil, "api-url must be a single value"},
		{"nested unknown key", "tls:\n  verify: false\n", nil, nil, `unknown key "tls.verify"`},
		{"list value", "namespace: [a, b]\n", nil, nil, "namespace must be a single value"},
		{"bad bool in file", "quiet: maybe\n", nil, nil, `invalid value "maybe" for quiet`},
		{"bad output", "", nil, []string{"-o", "xml"}, `invalid output format "xml"`},
		{"bad output env", "", map[string]string{"SHAKECTL_OUTPUT": "csv"}, nil, `invalid output format "csv"`},
		{"bad async", "", map[string]string{"SHAKENFIST_ASYNC": "later"}, nil, `invalid async mode "later"`},
		{"bad timeout", "", nil, []string{"--timeout", "soon"}, `invalid timeout "soon"`},
		{"negative timeout", "", nil, []string{"--timeout", "-5s"}, `invalid timeout "-5s"`},
		{"explicit config missing", "", nil, []string{"--config", "/nonexistent/shakectl.yaml"}, "cannot read config file /nonexistent/shakectl.yaml: no such file or directory"},
		{"explicit config from env missing", "", map[string]string{"SHAKECTL_CONFIG": "/nonexistent/c.yaml"}, nil, "cannot read config file /nonexistent/c.yaml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newConfigWorld(t)
			if c.file != "" {
				w.write(w.configFile(), c.file, 0o600)
			}
			for k, v := range c.env {
				w.env[k] = v
			}
			_, _, err := w.load(c.args...)
			var u *cmdutil.UsageError
			if !errors.As(err, &u) {
				t.Fatalf("got %v (%T), want a usage error", err, err)
			}
			if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
				t.Errorf("exit code %d", cmdutil.ExitCode(err))
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line saying %q", err, c.want)
			}
		})
	}
}

func TestConfigWarnings(t *testing.T) {
	t.Run("key flag", func(t *testing.T) {
		w := newConfigWorld(t)
		_, stderr, err := w.load("--key", "s3cret-flag-key")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "warning: --key on the command line is visible to other users") {
			t.Errorf("stderr %q", stderr)
		}
		if strings.Contains(stderr, "s3cret-flag-key") {
			t.Errorf("the warning repeats the key: %q", stderr)
		}
	})
	t.Run("key in a readable config file", func(t *testing.T) {
		w := newConfigWorld(t)
		w.write(w.configFile(), "key: s3cret-file-key\n", 0o644)
		_, stderr, err := w.load()
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("warning: %s holds an API key and is readable by other users (mode 0644); run: chmod 600 %s\n", w.configFile(), w.configFile())
		if stderr != want {
			t.Errorf("stderr %q\nwant %q", stderr, want)
		}
	})
	t.Run("key in a readable ~/.shakenfist", func(t *testing.T) {
		w := newConfigWorld(t)
		w.write(w.homeFile(), `{"key":"k"}`, 0o640)
		_, stderr, _ := w.load()
		if !strings.Contains(stderr, "chmod 600 "+w.homeFile()) {
			t.Errorf("stderr %q", stderr)
		}
	})
	t.Run("private file and env key are quiet", func(t *testing.T) {
		w := newConfigWorld(t)
		w.write(w.configFile(), "key: k\napi-url: http://x\n", 0o600)
		w.write(w.homeFile(), `{"apiurl":"http://y"}`, 0o644) // no key: nothing to protect
		w.env["SHAKENFIST_KEY"] = "k2"
		_, stderr, err := w.load()
		if err != nil || stderr != "" {
			t.Errorf("err %v, stderr %q", err, stderr)
		}
	})
	t.Run("insecure", func(t *testing.T) {
		w := newConfigWorld(t)
		_, stderr, _ := w.load("--insecure")
		if !strings.Contains(stderr, "warning: --insecure: the API server's TLS certificate is not verified") {
			t.Errorf("stderr %q", stderr)
		}
	})
	t.Run("warnings print once per run", func(t *testing.T) {
		w := newConfigWorld(t)
		f, stderr := w.factory()
		root := root.NewCmdRoot(f)
		if err := root.PersistentFlags().Parse([]string{"--insecure"}); err != nil {
			t.Fatal(err)
		}
		_, _ = f.Config()
		_, _ = f.Config()
		if n := strings.Count(stderr.String(), "warning:"); n != 1 {
			t.Errorf("%d warnings: %q", n, stderr)
		}
	})
}

func TestDeadline(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		async   cmdutil.AsyncMode
		want    time.Duration
	}{
		{0, "pause", time.Minute},
		{0, "block", time.Hour},
		{0, "continue", 0},
		{90 * time.Second, "continue", 90 * time.Second},
		{5 * time.Second, "block", 5 * time.Second},
	} {
		cfg := &cmdutil.Config{Timeout: c.timeout, Async: c.async}
		if got := cfg.Deadline(); got != c.want {
			t.Errorf("timeout %s async %s: %s, want %s", c.timeout, c.async, got, c.want)
		}
	}
}

func TestMissingAPIURLSaysHowToSetOne(t *testing.T) {
	w := newConfigWorld(t)
	f, _ := w.factory()
	root := root.NewCmdRoot(f)
	if err := root.PersistentFlags().Parse(nil); err != nil {
		t.Fatal(err)
	}
	_, err := f.Client()
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("exit code %d for %v", cmdutil.ExitCode(err), err)
	}
	for _, want := range []string{"no API URL configured", "SHAKENFIST_API_URL", "--api-url", "config.yaml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %s", err, want)
		}
	}
}

// FuzzLoadConfig feeds arbitrary bytes as the config file: the result is a
// configuration or a one-line usage error, never a panic.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"", "api-url: http://x\n", "key: k\nnamespace: n\n", "timeout: 5\n", "timeout: -1\n",
		"output: [json]\n", "{}", "[]", "null", "~", "--- \n...\n", "a: &x [*x]\n", "a: !!binary AAAA\n",
		"retry-transient-capacity: 2\n", "api-url: {a: {b: {c: 1}}}\n", "\t", "\x00", "api-url: \"\\x1b[2J\"\n",
		"key: " + strings.Repeat("a", 5000) + "\n", strings.Repeat("- ", 500), "? [a]\n: b\n",
		"x: &a [*a, *a, *a]\ny: &b [*a, *a]\n", `{"api-url": "http://json.example"}`, "debug: 0x1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		w := newConfigWorld(t)
		w.write(w.configFile(), string(content), 0o600)
		cfg, _, err := w.load()
		if err != nil {
			var u *cmdutil.UsageError
			if !errors.As(err, &u) {
				t.Fatalf("%q: error %v is not a usage error", content, err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%q: error spans lines: %q", content, err)
			}
			return
		}
		if !slices.Contains(output.Formats, cfg.Output) || !slices.Contains(cmdutil.AsyncModes, cfg.Async) || cfg.Timeout < 0 {
			t.Fatalf("%q: accepted %+v", content, cfg)
		}
	})
}
