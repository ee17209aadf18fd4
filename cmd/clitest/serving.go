package clitest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output"
)

// ReadyWriter is the stdout of a serving command (sim cluster, sim router):
// it closes ready once done says what has been written so far shows that
// start-up is complete (the commands print their URLs last).
type ReadyWriter struct {
	syncbuf.Buffer
	Ready chan struct{}
	once  sync.Once
	done  func(string) bool
}

func (w *ReadyWriter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if w.done(w.String()) {
		w.once.Do(func() { close(w.Ready) })
	}
	return n, err
}

// ServingFactory is a factory for running a serving command in a test
// goroutine until ctx is cancelled.
func ServingFactory(t *testing.T, ctx context.Context, done func(stdout string) bool) (*cmdutil.Factory, *ReadyWriter, *syncbuf.Buffer) {
	t.Helper()
	ios, _, _, _ := output.Test()
	out := &ReadyWriter{Ready: make(chan struct{}), done: done}
	errOut := &syncbuf.Buffer{}
	ios.Out, ios.ErrOut = out, errOut
	return &cmdutil.Factory{
		IOStreams: ios,
		Build:     cmdutil.BuildInfo{Version: "test"},
		Getenv:    func(string) (string, bool) { return "", false },
		HomeDir:   t.TempDir(),
		Context:   ctx,
	}, out, errOut
}

// FirstLineOut: sim cluster's start-up is done once its URL line is out.
func FirstLineOut(s string) bool { return strings.Contains(s, "\n") }

// RouterURLsOut: sim router's start-up is done once its URLs are out, in
// one write (a model without statusz, agentgateway, has no statusz line).
func RouterURLsOut(s string) bool {
	return strings.Contains(s, "metrics") && strings.HasSuffix(s, "\n")
}

var Ephemeral = []string{"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--status-listen", "127.0.0.1:0"}

// StartSimRouterCmd starts `sim router` in the background on loopback
// ports and returns its URLs (name → URL), its streams and a stop function
// that returns its exit code.
func StartSimRouterCmd(t *testing.T, args ...string) (urls map[string]string, out *ReadyWriter, errOut *syncbuf.Buffer, stop func() int) {
	t.Helper()
	return StartSimRouterCmdOn(t, nil, args...)
}

// StartSimRouterCmdOn is StartSimRouterCmd on network n (Factory.Net): an
// in-memory one for a test inside a testing/synctest bubble; nil is the
// machine's TCP.
func StartSimRouterCmdOn(t *testing.T, n network.Network, args ...string) (urls map[string]string, out *ReadyWriter, errOut *syncbuf.Buffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	f, out, errOut := ServingFactory(t, ctx, RouterURLsOut)
	if n != nil {
		f.Net = n
	}
	done := make(chan int, 1)
	go func() { done <- root.Run(f, append(append([]string{"sim", "router"}, Ephemeral...), args...)) }()
	select {
	case <-out.Ready:
	case code := <-done:
		cancel(nil)
		t.Fatalf("exited %d before printing its URLs; stderr %q", code, errOut)
	case <-time.After(10 * time.Second):
		cancel(nil)
		t.Fatal("no URLs within 10s")
	}
	stop = func() int {
		cancel(cmdutil.ErrInterrupted) // what SIGINT/SIGTERM do
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("still running 10s after the signal")
			return -1
		}
	}
	t.Cleanup(func() { cancel(nil) })
	urls = map[string]string{}
	if !strings.HasPrefix(out.String(), "{") {
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			fields := strings.Fields(line)
			if len(fields) != 2 {
				t.Fatalf("stdout line %q is not NAME URL", line)
			}
			urls[fields[0]] = fields[1]
		}
	}
	return urls, out, errOut, stop
}
