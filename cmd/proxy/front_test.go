package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	rootcmd "github.com/shakenfist/shakectl/cmd/root"
)

// Issue 34, item 9: --budget 0 once silently meant 60s; it is refused, as
// are sizes and Host patterns that cannot mean anything, before anything
// listens.
func TestProxyRefusesMeaninglessFrontOptions(t *testing.T) {
	up, creates := refusingAPI(t, 0)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy", "--budget", "0"}, `error: invalid argument "0" for "--budget" flag: it is out of range: want a duration more than 0 and at most 24h` + "\n"},
		{[]string{"wrap", "--budget", "0s", "--", "true"}, `error: invalid argument "0s" for "--budget" flag: it is out of range: want a duration more than 0 and at most 24h` + "\n"},
		{[]string{"proxy", "--replay-memory", "0"}, `error: invalid argument "0" for "--replay-memory" flag: it is out of range: want a size from 1 to 64Gi` + "\n"},
		{[]string{"proxy", "--replay-memory", "lots"}, `error: invalid argument "lots" for "--replay-memory" flag: want a size from 1 to 64Gi` + "\n"},
		{[]string{"proxy", "--accept-hosts", "a(b"}, `error: --accept-hosts "a(b" is not a regular expression: missing closing ): ` + "`^(?:a(b)$`\n"},
		// wrap's proxy takes the same flags, declared once.
		{[]string{"wrap", "--replay-memory", "0", "--", "true"}, `error: invalid argument "0" for "--replay-memory" flag: it is out of range: want a size from 1 to 64Gi` + "\n"},
		{[]string{"wrap", "--accept-hosts", "a(b", "--", "true"}, `error: --accept-hosts "a(b" is not a regular expression: missing closing ): ` + "`^(?:a(b)$`\n"},
	} {
		res := clitest.CmdRun{Url: up.URL}.Run(t, tt.args...)
		first, _, _ := strings.Cut(res.Stderr, "hint:")
		if res.Code != cmdutil.ExitUsage || first != tt.want || res.Stdout != "" {
			t.Errorf("shakectl %s: %s\nwant exit 2 and the first line %q", strings.Join(tt.args, " "), res, tt.want)
		}
	}
	if n := creates.Load(); n != 0 {
		t.Errorf("the upstream saw %d creates", n)
	}
}

// Issue 34, item 9: `proxy --insecure` was refused as a client setting the
// proxy does not take. It is the proxy's own connection to the upstream:
// without it a self-signed upstream is a 502, with it the answer passes,
// and the warning is the one the client commands print.
func TestProxyInsecureSkipsTheUpstreamsCertificate(t *testing.T) {
	up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `[]`)
	}))
	t.Cleanup(up.Close)
	for _, tt := range []struct {
		insecure bool
		status   int
	}{{false, http.StatusBadGateway}, {true, http.StatusOK}} {
		args := []string{"--api-url", up.URL + "/api"}
		if tt.insecure {
			args = append(args, "--insecure")
		}
		url, errOut, stop := startProxyCmd(t, args...)
		resp, err := http.Get(url + "/instances")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		stop(cmdutil.ErrInterrupted)
		if resp.StatusCode != tt.status {
			t.Errorf("--insecure=%v: %d %q, want %d", tt.insecure, resp.StatusCode, body, tt.status)
		}
		warning := "warning: --insecure: the API server's TLS certificate is not verified; anyone on the path can read the key and answer in the server's place\n"
		if got := strings.HasPrefix(errOut.String(), warning); got != tt.insecure {
			t.Errorf("--insecure=%v: stderr starts with the warning: %v\n%s", tt.insecure, got, errOut)
		}
	}
}

// Issue 34, item 9: -o json's summary says how many bodies streamed for
// want of replay memory and how many requests were refused unforwarded;
// a foreign Host is refused with its own event.
func TestProxyJSONSummaryCountsRefusals(t *testing.T) {
	up, _ := refusingAPI(t, 0)
	line, errOut, stop := startProxyCmd(t, "--api-url", up.URL+"/api", "-o", "json")
	var started struct {
		URL string `json:"api_url"`
	}
	if err := json.Unmarshal([]byte(line), &started); err != nil {
		t.Fatalf("stdout %q: %v", line, err)
	}
	req, _ := http.NewRequest("GET", started.URL+"/instances", nil)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The page names the flag that accepts other Hosts.
	wantPage := "shakectl proxy: Host \"evil.example\" is not accepted: only loopback names (localhost, 127.0.0.1, [::1]) are, so that no web page can reach the API through this proxy by DNS rebinding; start the proxy with --accept-hosts to accept other names\n"
	if resp.StatusCode != http.StatusForbidden || string(page) != wantPage {
		t.Errorf("Host evil.example: %d %q, want 403 %q", resp.StatusCode, page, wantPage)
	}
	stop(cmdutil.ErrInterrupted)
	want := `{"event":"refused","method":"GET","path":"/api/instances","host":"evil.example","status":403,"reason":"Host \"evil.example\" is not accepted","message":"GET /api/instances: refused (403): Host \"evil.example\" is not accepted"}
{"event":"summary","requests":0,"waited_out":0,"handed_back":0,"held_back":0,"never_sent":0,"over_replay_memory":0,"refused":1,"message":"proxy: 0 requests forwarded, 0 refusals waited out, 0 refusals handed back, 1 request refused unforwarded"}
{"error":"interrupted","exit_code":130}
`
	if got := errOut.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

// wrap's proxy is proxy's: every flag of proxy but where it listens is
// wrap's too, with the same help and default (issue 34: wrap lacked
// --replay-memory and --accept-hosts).
func TestWrapTakesTheProxysFlags(t *testing.T) {
	f, _, _ := clitest.CompletionTestFactory(t)
	root := rootcmd.NewCmdRoot(f)
	find := func(name string) *cobra.Command {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name {
			t.Fatalf("no %s command: %v", name, err)
		}
		return c
	}
	proxy, wrap := find("proxy"), find("wrap")
	n := 0
	proxy.Flags().VisitAll(func(pf *pflag.Flag) {
		if pf.Name == "listen" || pf.Name == "allow-remote" || pf.Name == "help" {
			return
		}
		n++
		wf := wrap.Flags().Lookup(pf.Name)
		switch {
		case wf == nil:
			t.Errorf("wrap has no --%s", pf.Name)
		case wf.Usage != pf.Usage || wf.DefValue != pf.DefValue:
			t.Errorf("wrap's --%s differs from proxy's: %q (default %q) vs %q (default %q)", pf.Name, wf.Usage, wf.DefValue, pf.Usage, pf.DefValue)
		}
	})
	if n < 5 {
		t.Errorf("proxy has %d flags wrap should share; it has had 5", n)
	}
}
