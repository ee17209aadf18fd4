package proxy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/flagtable"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/output"
	retryproxy "github.com/shakenfist/shakectl/proxy"
)

// ProxyOptions are `shakectl proxy`'s own flags: where it listens, and
// the proxy flags wrap has too.
type ProxyOptions struct {
	Listen      string
	AllowRemote bool
	ForwardOptions
}

// ForwardOptions are the flags of the proxy that proxy and wrap share,
// declared once (addForwardFlags): what it accepts, what it keeps to
// replay, how long it waits.
type ForwardOptions struct {
	AcceptHosts  []string
	ReplayMemory ByteSize
	Budget       time.Duration
	RetryWait    time.Duration
	Gate         GateMode
}

// defaultForwardOptions are the shared flags' defaults.
func defaultForwardOptions() ForwardOptions {
	return ForwardOptions{Budget: retryproxy.DefaultBudget, Gate: true, ReplayMemory: retryproxy.DefaultMaxReplayTotal}
}

// proxyOptions are the proxy's options for upstream, as the
// configuration and these flags say.
func (o *ForwardOptions) proxyOptions(f *cmdutil.Factory, cfg *cmdutil.Config, upstream string) retryproxy.Options {
	po := retryproxy.Options{
		Upstream:       upstream,
		AcceptHosts:    o.AcceptHosts,
		MaxReplayTotal: int64(o.ReplayMemory),
		Insecure:       cfg.Insecure,
		Budget:         o.Budget,
		RetryWait:      o.RetryWait,
		Gate:           bool(o.Gate),
		// The factory's clock, as every command's.
		Now: f.Now,
		// The notifier writes the proxy's lines: text, JSON under -o
		// json, nothing under --quiet.
		Log: f.IOStreams.Notifier(),
		// The 403 page names --accept-hosts.
		OptionName: proxyFields.Name,
	}
	return po
}

// NewCmdProxy runs the retrying proxy until SIGINT or SIGTERM.
func NewCmdProxy(f *cmdutil.Factory) *cobra.Command {
	opts := &ProxyOptions{Listen: retryproxy.DefaultListen, ForwardOptions: defaultForwardOptions()}
	c := cmdutil.Local(&cobra.Command{
		Use:     "proxy",
		Short:   ProxyShort,
		Long:    ProxyLong,
		Example: ProxyExample,
	}, func(c *cobra.Command, _ []string) error {
		return kernelError(runProxy(f, opts))
	})
	// It stands in front of the API for other clients: it takes its URL
	// (and the context that may hold it) and how to reach it, never
	// credentials.
	cmdutil.Takes(c, "api-url", "context", "insecure")
	fl := c.Flags()
	fl.StringVar(&opts.Listen, "listen", opts.Listen, "address to listen on, HOST:PORT (port 0 picks a free one); loopback unless --allow-remote")
	fl.BoolVar(&opts.AllowRemote, "allow-remote", false, "allow a --listen address other machines can reach (anyone there can then use the API through it)")
	addForwardFlags(c, &opts.ForwardOptions)
	return c
}

// addForwardFlags declares the flags proxy and wrap share.
func addForwardFlags(c *cobra.Command, o *ForwardOptions) {
	fl := c.Flags()
	fl.StringSliceVar(&o.AcceptHosts, "accept-hosts", nil, "regular expressions for Host names to accept besides loopback ones (localhost, 127.0.0.1, [::1]), each matching a whole name, e.g. 'proxy\\.example\\.com'; any other Host gets a 403 (DNS rebinding)")
	numflag.Var(fl, &o.ReplayMemory, "replay-memory", o.ReplayMemory, numflag.Between[ByteSize](1, MaxReplayMemory), "memory for request bodies kept to replay, for all requests in flight together, e.g. 64Mi; a body beyond it streams and is not replayed")
	cmdutil.Must(c.RegisterFlagCompletionFunc("accept-hosts", cobra.NoFileCompletions))
	cmdutil.Must(c.RegisterFlagCompletionFunc("replay-memory", cobra.NoFileCompletions))
	// A value of its own, not an optional one (pflag's NoOptDefVal): with
	// one, "--gate off" left "off" as wrap's command or proxy's argument.
	// TestNoOptionalValueFlags keeps every flag so.
	fl.Var(&o.Gate, "gate", "the capacity gate, on (default) or off (--gate off or --gate=off): on holds creates that a transient refusal says would be refused again, one replay at a time; off replays every request on its own clock")
	cmdutil.Must(c.RegisterFlagCompletionFunc("gate", cmdutil.FixedWithDesc([]string{"on", "off"}, map[string]string{
		"on":  "hold creates behind a refused shape until its Retry-After (default)",
		"off": "replay each refused request on its own clock",
	})))
	numflag.Var(fl, &o.Budget, "budget", o.Budget, numflag.Above(0, MaxBudget), "how long one request may wait out transient refusals, e.g. 5m (without waiting, point the client at the API itself)")
	numflag.Var(fl, &o.RetryWait, "retry-wait", 0, numflag.Between(0, time.Minute), "wait this long between attempts instead of the server's Retry-After (a shorter wait than 1s is 1s); 0, the default: the server's")
	cmdutil.Must(c.RegisterFlagCompletionFunc("budget", cobra.NoFileCompletions))
	cmdutil.Must(c.RegisterFlagCompletionFunc("retry-wait", cobra.NoFileCompletions))
}

// proxyFields are the flags of proxy and wrap that set the Options fields
// the proxy's option errors name ({AllowRemote}); the flags themselves
// are declared above (their values pass through ProxyOptions).
var proxyFields = flagtable.Table[any, any]{
	{Field: "Upstream", Name: "api-url"},
	{Field: "AcceptHosts", Name: "accept-hosts"},
	{Field: "AllowRemote", Name: "allow-remote"},
}

// kernelError makes the proxy's option errors the kernel's usage errors
// (exit 2), in the words of the command line: the kernel knows no feature
// package's types.
func kernelError(err error) error {
	var oe *retryproxy.OptionError
	if errors.As(err, &oe) {
		return &cmdutil.UsageError{Msg: oe.Render(proxyFields.Name)}
	}
	return err
}

func runProxy(f *cmdutil.Factory, opts *ProxyOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	upstream, err := upstreamURL(cfg)
	if err != nil {
		return err
	}
	po := opts.proxyOptions(f, cfg, upstream)
	po.Listen, po.AllowRemote = opts.Listen, opts.AllowRemote
	// The factory's network (a test's in-memory one), else TCP. wrap
	// stays on TCP: the command it runs is another process.
	if po.Listener, err = network.Listener(f.Context, f.Net, opts.Listen); err != nil {
		return err
	}
	po.Dial = network.Dialer(f.Net)
	started := false
	sum, err := retryproxy.Run(f.Context, po, func(url string) {
		started = true
		if cfg.JSONOutput() {
			fmt.Fprintln(f.IOStreams.Out, output.JSONLine(map[string]string{"api_url": url, "upstream": upstream}))
			return
		}
		// Before the URL: a script that waits for the URL on stdout may
		// take it as the sign that start-up is complete.
		f.IOStreams.Notifier().Note("started", fmt.Sprintf("proxy: forwarding to %s; point clients at SHAKENFIST_API_URL=%s (Ctrl-C to stop)", upstream, url))
		fmt.Fprintln(f.IOStreams.Out, url)
	})
	if !started {
		return err
	}
	printSummary(f, sum)
	// The run ends only when its context does: on SIGINT or SIGTERM its
	// cause says which, and so the exit code (130 or 143).
	if cause := context.Cause(f.Context); cause != nil {
		err = errors.Join(cause, err)
	}
	return err
}

// Bounds of the numeric flags proxy and wrap share.
const (
	// MaxBudget bounds --budget: a day of waiting out refusals.
	MaxBudget = 24 * time.Hour
	// MaxReplayMemory bounds --replay-memory: a cap, not an allocation,
	// but one a typo should not lift to all of a machine's memory.
	MaxReplayMemory ByteSize = 64 << 30
)

// ByteSize is --replay-memory: a size in bytes (its range in the flag's
// declaration), with binary or
// decimal units (64Mi, 64MiB, 1Gi, 500M, 1048576), as go-humanize reads
// them. (Not Kubernetes' quantity parser: apimachinery is a test-only
// module the binary must not link; internal/k8sjob's test says so.)
type ByteSize int64

// String writes the size exactly, in the largest binary unit that divides
// it, so the default reads 64Mi in --help and parses back to itself.
func (b *ByteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *ByteSize) Set(v string) error {
	n, err := humanize.ParseBytes(strings.TrimSpace(v))
	if err != nil || n > math.MaxInt64 {
		return fmt.Errorf("want a size such as 64Mi, 1Gi or 1048576")
	}
	*b = ByteSize(n)
	return nil
}

func (b *ByteSize) Type() string { return "size" }

// GateMode is --gate: on (the default) or off.
type GateMode bool

func (g *GateMode) String() string {
	if *g {
		return "on"
	}
	return "off"
}

func (g *GateMode) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true":
		*g = true
	case "off", "false":
		*g = false
	default:
		return fmt.Errorf("want on or off")
	}
	return nil
}

func (g *GateMode) Type() string { return "on|off" }

// upstreamURL is the configured API URL the proxy stands in front of.
func upstreamURL(cfg *cmdutil.Config) (string, error) {
	if cfg.APIURL == "" {
		return "", cmdutil.UsageErrorf("no API URL configured: %s; no namespace or key is needed: the clients send their own", cmdutil.APIURLHowTo(cfg.ConfigPath))
	}
	return cfg.APIURL, nil
}

// printSummary is the line printed on exit: what the proxy did.
func printSummary(f *cmdutil.Factory, s retryproxy.Summary) {
	// held_back and never_sent only with the gate on: with --gate=off the
	// line is what it was before the gate existed.
	var held, neverSent *int64
	if s.Gate {
		held, neverSent = &s.HeldBack, &s.NeverSent
	}
	f.IOStreams.Notifier().Event(s.String(), struct {
		Event      string `json:"event"`
		Requests   int64  `json:"requests"`
		Waited     int64  `json:"waited_out"`
		HandedBack int64  `json:"handed_back"`
		HeldBack   *int64 `json:"held_back,omitempty"`
		// Creates the gate held and never sent: not in requests.
		NeverSent *int64 `json:"never_sent,omitempty"`
		// Bodies that streamed unreplayable because the replay memory
		// was full; requests refused unforwarded.
		OverReplayMemory int64  `json:"over_replay_memory"`
		Refused          int64  `json:"refused"`
		Message          string `json:"message"`
	}{"summary", s.Requests, s.Waited, s.HandedBack, held, neverSent, s.OverReplayMemory, s.Refused, s.String()})
}
