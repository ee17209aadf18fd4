package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// EnvAPIURL is the variable sf-client and shakectl read the API URL from.
const EnvAPIURL = "SHAKENFIST_API_URL"

// EnvAPIURLs are the variables RunWrapped points at the proxy when
// WrapOptions.URLVars is empty: sf-client's SHAKENFIST_API_URL and
// shakectl's own SHAKECTL_API_URL, which wins over it: with only the first
// set, `wrap -- shakectl …` under a user's SHAKECTL_API_URL went straight
// to the server.
var EnvAPIURLs = []string{"SHAKECTL_API_URL", EnvAPIURL}

// WrapOptions configure RunWrapped.
type WrapOptions struct {
	// Proxy configures the proxy; Listen is forced to an ephemeral
	// loopback port.
	Proxy Options
	// Env is the command's environment before the API URL variables are
	// set; nil is this process's environment.
	Env []string
	// URLVars are the variables set to the proxy's URL: every one a known
	// client reads its API URL from. Empty is EnvAPIURLs.
	URLVars []string
	// Signals, if set, are relayed to the command as they arrive, each
	// once (relaySignals: not a Ctrl-C the terminal already gave it). The
	// caller subscribes (signal.Notify) so that this package changes no
	// process state.
	Signals <-chan os.Signal
	// KillDelay is how long the command has to exit after ctx ends (it is
	// sent SIGTERM first) before it is killed; 0 is 10 s.
	KillDelay time.Duration
}

// Stdio are the command's standard streams.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// WrapResult is how the command ended and what the proxy did meanwhile.
type WrapResult struct {
	// ExitCode is the command's exit status; 128+N when it died of signal
	// N (130 for SIGINT, 143 for SIGTERM), as a shell reports it; 127 when
	// it could not be found and 126 when it could not be run.
	ExitCode int
	Summary  Summary
}

// RunWrapped starts the proxy on an ephemeral loopback port, runs argv with
// SHAKENFIST_API_URL pointing at it (with the upstream's path prefix, so
// http://HOST/api becomes http://127.0.0.1:PORT/api), forwards signals,
// waits for it, shuts the proxy down and returns the command's exit
// status. The error is non-nil only when the proxy or the command could
// not be started; a command that ran and failed is ExitCode, not an error.
func RunWrapped(ctx context.Context, opts WrapOptions, argv []string, stdio Stdio) (WrapResult, error) {
	if len(argv) == 0 || argv[0] == "" {
		return WrapResult{ExitCode: 2}, errors.New("no command to run: give it after --, e.g. shakectl wrap -- sf-client instance list")
	}
	po := opts.Proxy
	po.Listen = DefaultListen
	po.AllowRemote = false
	if _, isFile := stdio.Stderr.(*os.File); !isFile && stdio.Stderr != nil {
		// The proxy's lines and the command's stderr (copied by an exec
		// goroutine) would otherwise write to one writer at once.
		stdio.Stderr = syncbuf.NewWriter(stdio.Stderr)
	}
	p, err := New(po)
	if err != nil {
		return WrapResult{ExitCode: 2}, err
	}
	if err := p.Start(); err != nil {
		return WrapResult{ExitCode: 1}, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		p.Shutdown(sctx) //nolint:errcheck // the command has exited; nothing is waiting
	}()

	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	vars := opts.URLVars
	if len(vars) == 0 {
		vars = EnvAPIURLs
	}
	for _, k := range vars {
		env = withEnv(env, k, p.URL())
	}
	cmd.Env = bypassProxyForLoopback(env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.Stdin, stdio.Stdout, stdio.Stderr
	// When ctx ends, ask the command to stop, as a terminal would, before
	// killing it.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = opts.KillDelay
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = 10 * time.Second
	}
	// Started tied to wrap's life (child_*.go): a wrap killed outright
	// does not leave the command running against a proxy that is gone.
	warn := func(msg string) {
		text := "wrap: warning: " + msg
		p.logEvent(text, struct {
			Event   string `json:"event"`
			Message string `json:"message"`
		}{"warning", text})
	}
	wait, err := startTied(cmd, warn)
	if err != nil {
		code := 126
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			code = 127
		}
		return WrapResult{ExitCode: code, Summary: p.Summary()}, fmt.Errorf("cannot run %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	if opts.Signals != nil {
		go relaySignals(opts.Signals, cmd.Process, done)
	}
	werr := wait()
	close(done)
	res := WrapResult{ExitCode: exitCode(cmd.ProcessState), Summary: p.Summary()}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) && cmd.ProcessState == nil {
		return res, werr
	}
	return res, nil
}

// exitCode is the status a shell would report: the exit code, or 128 plus
// the signal that killed the command.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// withEnv returns env with key set to value, once.
func withEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == key {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}

// bypassProxyForLoopback adds 127.0.0.1 to the proxy exemptions when the
// environment names an HTTP proxy: a CI runner behind a corporate proxy
// would otherwise send the command's calls to 127.0.0.1 through it.
// Without a proxy variable the environment is left as it was.
//
// Both spellings are set, each to the user's exemptions plus 127.0.0.1:
// Python's clients read no_proxy first and Go's NO_PROXY, so setting only the
// missing one to 127.0.0.1 hid the user's NO_PROXY='*' from Python, which
// then sent its other calls through the HTTP proxy. A spelling the user set
// keeps its own value; one they did not takes the other's. "*" (everything
// exempt) is left alone: Python honours it only as the whole value.
func bypassProxyForLoopback(env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	proxied := false
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"} {
		if vars[k] != "" {
			proxied = true
		}
	}
	if !proxied {
		return env
	}
	upper, lower := vars["NO_PROXY"], vars["no_proxy"]
	if upper == "" {
		upper = lower
	}
	if lower == "" {
		lower = upper
	}
	env = withEnv(env, "NO_PROXY", withLoopback(upper))
	return withEnv(env, "no_proxy", withLoopback(lower))
}

// withLoopback is the exemption list v with 127.0.0.1 in it.
func withLoopback(v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return "127.0.0.1"
	}
	for _, h := range strings.Split(v, ",") {
		if h = strings.TrimSpace(h); h == "*" || h == "127.0.0.1" {
			return v
		}
	}
	return v + ",127.0.0.1"
}
