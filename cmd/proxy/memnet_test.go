package proxy_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/memnet"
)

// `shakectl proxy` listens and dials on the factory's network: inside a
// synctest bubble the proxy, its upstream and its client are in memory, so
// a real server's 15 s Retry-After is waited out on the virtual clock, and
// the retry line's budget left is exact.
func TestProxyCommandOnTheFactorysNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		h, creates := refusingHandler(1, "15")
		up := &http.Server{Handler: h}
		ln, err := n.Listen(t.Context(), "tcp", "sf.test:13000")
		if err != nil {
			t.Fatal(err)
		}
		go up.Serve(ln)
		defer up.Close()

		url, errOut, stop := startProxyCmdOn(t, n, "--api-url", "http://sf.test:13000/api")
		web := n.Transport()
		defer web.CloseIdleConnections()
		start := time.Now()
		createThrough(t, &http.Client{Transport: web}, url, creates)
		if waited := time.Since(start); waited != 15*time.Second {
			t.Errorf("the proxy answered after %s of the bubble's clock, not the server's Retry-After of 15s", waited)
		}
		if code := stop(cmdutil.ErrTerminated); code != 143 {
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
