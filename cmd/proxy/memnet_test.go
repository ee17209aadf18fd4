package proxy_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/memnet"
)

// `shakectl proxy` listens and dials on the factory's network: inside a
// synctest bubble the proxy, its upstream and its client are in memory, so
// a real server's 15 s Retry-After is waited out on the virtual clock, and
// the retry line's budget left is exact.
func TestProxyCommandOnTheFactorysNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		var creates atomic.Int32
		up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if creates.Add(1) == 1 {
				w.Header().Set("Retry-After", "15")
				w.WriteHeader(http.StatusInsufficientStorage)
				io.WriteString(w, `{"error": "No nodes remaining at scheduling stage sufficient_idle_cpu", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`)
				return
			}
			io.WriteString(w, `{"uuid": "u1", "name": "web-1"}`)
		})}
		ln, err := n.Listen(t.Context(), "tcp", "sf.test:13000")
		if err != nil {
			t.Fatal(err)
		}
		go up.Serve(ln)
		defer up.Close()

		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		f, out, errOut := clitest.ServingFactory(t, ctx, clitest.FirstLineOut)
		f.Net = n
		done := make(chan int, 1)
		go func() { done <- root.Run(f, []string{"proxy", "--api-url", "http://sf.test:13000/api"}) }()
		select {
		case <-out.Ready:
		case code := <-done:
			t.Fatalf("exited %d before printing its URL; stderr %q", code, errOut)
		}
		url := strings.TrimSpace(out.String())

		web := n.Transport()
		defer web.CloseIdleConnections()
		start := time.Now()
		resp, err := (&http.Client{Transport: web}).Post(url+"/instances", "application/json", strings.NewReader(`{"name":"web-1"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != `{"uuid": "u1", "name": "web-1"}` || creates.Load() != 2 {
			t.Fatalf("through the proxy: %d %s after %d creates upstream", resp.StatusCode, body, creates.Load())
		}
		if waited := time.Since(start); waited != 15*time.Second {
			t.Errorf("the proxy answered after %s of the bubble's clock, not the server's Retry-After of 15s", waited)
		}
		cancel(cmdutil.ErrTerminated) // what SIGTERM does to the run's context
		if code := <-done; code != 143 {
			t.Errorf("exit %d after SIGTERM, want 143; stderr:\n%s", code, errOut)
		}
		stderr := errOut.String()
		for _, want := range []string{
			"POST /api/instances: capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 1m0s left)\n",
			"proxy: 1 request forwarded, 1 refusal waited out, 0 refusals handed back\n",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
	})
}
