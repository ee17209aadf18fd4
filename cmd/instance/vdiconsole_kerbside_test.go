package instance_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// The recorded token of client/testdata/sf2026/vdiconsoleproxy.json.
const recordedConsoleToken = "header.payload.signature"

// kerbsideStubs is a 2026 server with Kerbside configured, answering as
// recorded (client/testdata/sf2026: its root page advertises
// vdi-console-proxy; the mint's answer; the direct file), and a
// Kerbside whose exchange answers the recorded .vv. The mint's URL is the
// recorded one with its host moved to the Kerbside stub.
func kerbsideStubs(t *testing.T) (api *clitest.Stubs, kerbside *httpstub.Registry) {
	kerbside = httpstub.New(t)
	kurl := kerbside.Serve()
	kerbside.Register(httpstub.REST("GET", "/sf-console.vv"),
		httpstub.Answer(200, http.Header{"Content-Type": {"application/x-virt-viewer"}}, clitest.ReadGolden(t, "sf2026/kerbside.vv"))).Optional()
	api = clitest.NewStubs(t)
	api.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	minted := strings.Replace(clitest.ReadGolden(t, "sf2026/vdiconsoleproxy.json"), "https://kerbside.example.com", kurl, 1)
	api.Reply("GET", "/instances/web1/vdiconsoleproxy", 200, minted).Optional()
	api.ReplyWith("GET", "/instances/web1/vdiconsolehelper", 200, http.Header{"Content-Type": {"application/x-virt-viewer"}},
		clitest.ReadGolden(t, "sf2026/vdiconsole.vv")).Optional()
	return api, kerbside
}

// A server that offers the Kerbside proxy gets the console file from
// Kerbside: one mint, one exchange of the token at the URL the API
// answered, without the API's token; --direct takes the hypervisor's file.
// --debug shows neither the console token nor the file's password.
func TestVDIConsoleFileThroughKerbside(t *testing.T) {
	api, kerbside := kerbsideStubs(t)
	r := clitest.AgainstStubs(api)
	res := r.Run(t, "instance", "vdiconsolefile", "web1", "-", "--debug")
	if res.Code != 0 || res.Stdout != clitest.ReadGolden(t, "sf2026/kerbside.vv") {
		t.Fatal(res)
	}
	got := kerbside.Last("GET", "/sf-console.vv")
	if got.Query != "token="+recordedConsoleToken || got.Header.Get("Authorization") != "" {
		t.Errorf("the exchange sent query %q, Authorization %q", got.Query, got.Header.Get("Authorization"))
	}
	if n := api.Count("GET", "/instances/web1/vdiconsolehelper"); n != 0 {
		t.Errorf("%d requests for the direct file", n)
	}
	for _, secret := range []string{recordedConsoleToken, "9f2c4e7a1b0d8c3f"} {
		if strings.Contains(res.Stderr, secret) {
			t.Errorf("--debug printed the secret %q:\n%s", secret, res.Stderr)
		}
	}
	if !strings.Contains(res.Stderr, "/sf-console.vv?token=[redacted]") {
		t.Errorf("--debug does not show the exchange:\n%s", res.Stderr)
	}

	res = r.Run(t, "instance", "vdiconsolefile", "web1", "-", "--direct")
	if res.Code != 0 || res.Stdout != clitest.ReadGolden(t, "sf2026/vdiconsole.vv") {
		t.Fatal(res)
	}
	if n := api.Count("GET", "/instances/web1/vdiconsoleproxy"); n != 1 {
		t.Errorf("%d mints, want the first command's one", n)
	}
}

// ryll is given the Kerbside URL and exchanges the token itself: shakectl
// mints, fetches nothing and writes no file. Another viewer gets the
// exchanged file; ryll on the direct path gets --file.
func TestVDIConsoleViewersThroughKerbside(t *testing.T) {
	dir := t.TempDir()
	ryll := filepath.Join(dir, "ryll")
	if err := os.WriteFile(ryll, []byte("#!/bin/sh\necho \"$@\"\n[ \"$1\" = --file ] && cat \"$2\"\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	viewer := filepath.Join(dir, "viewer")
	if err := os.WriteFile(viewer, []byte("#!/bin/sh\ncat \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}

	api, kerbside := kerbsideStubs(t)
	res := clitest.AgainstStubs(api).Run(t, "instance", "vdiconsole", "web1", "--viewer", ryll)
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "--url http://") || !strings.HasSuffix(res.Stdout, "/sf-console.vv?token="+recordedConsoleToken+"\n") {
		t.Fatal(res)
	}
	if n := kerbside.Count("GET", "/sf-console.vv"); n != 0 {
		t.Errorf("shakectl exchanged the token (%d) that ryll was given", n)
	}

	res = clitest.AgainstStubs(api).Run(t, "instance", "vdiconsole", "web1", "--viewer", viewer)
	if res.Code != 0 || res.Stdout != clitest.ReadGolden(t, "sf2026/kerbside.vv") {
		t.Fatal(res)
	}

	res = clitest.AgainstStubs(api).Run(t, "instance", "vdiconsole", "web1", "--viewer", ryll, "--direct")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "--file ") || !strings.HasSuffix(res.Stdout, clitest.ReadGolden(t, "sf2026/vdiconsole.vv")) {
		t.Fatal(res)
	}
}

// A refused exchange (a token used twice) is an error that names the
// exchange without its token.
func TestVDIConsoleFileKerbsideRefusal(t *testing.T) {
	kerbside := httpstub.New(t)
	kurl := kerbside.Serve()
	kerbside.Register(httpstub.REST("GET", "/sf-console.vv"), httpstub.String(401, `{"error": "token already used", "status": 401}`))
	api := clitest.NewStubs(t)
	api.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	api.Reply("GET", "/instances/web1/vdiconsoleproxy", 200, strings.Replace(clitest.ReadGolden(t, "sf2026/vdiconsoleproxy.json"), "https://kerbside.example.com", kurl, 1))
	res := clitest.AgainstStubs(api).Run(t, "instance", "vdiconsolefile", "web1", "-")
	if res.Code == 0 || !strings.Contains(res.Stderr, "token already used") || strings.Contains(res.Stderr, recordedConsoleToken) {
		t.Fatal(res)
	}
}

// Against the simulator: a 2026 cluster with Kerbside mints and exchanges
// (the file points at Kerbside, with a password; a token works once); a
// 2026 cluster without it, and a 2024 one, answer the hypervisor's file.
// The simulator is in memory on synctest's clock (its create and the
// command's wait for it cost no wall time); its Kerbside stand-in is the
// host the request named, sf.test here.
func TestVDIConsoleFileAgainstSimCluster(t *testing.T) {
	for _, tc := range []struct {
		gen      string
		kerbside bool
		host     string // the file's host line
	}{
		{cluster.Generation2026, true, "host=sf.test\nport=5901\ntls-port=5900\npassword="},
		{cluster.Generation2026, false, "host=10."},
		{cluster.Generation2024, false, "host=node"},
	} {
		t.Run(tc.gen+map[bool]string{true: "-kerbside"}[tc.kerbside], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _ := clitest.SimClusterInMemory(t, tc.gen, func(c *cluster.Config) {
					c.CreateTime = 50 * time.Millisecond
					c.Kerbside = tc.kerbside
				})
				if res := r.Run(t, "instance", "create", "web1", "1", "512", "-d", "8"); res.Code != 0 {
					t.Fatal(res)
				}
				res := r.Run(t, "instance", "vdiconsolefile", "web1", "-")
				if res.Code != 0 || !strings.HasPrefix(res.Stdout, "[virt-viewer]\ntype=spice\n"+tc.host) {
					t.Fatalf("%s\n%s", tc.host, res)
				}
				if tc.kerbside {
					if !strings.Contains(res.Stdout, "\ntitle=web1\n") {
						t.Errorf("the Kerbside file: %q", res.Stdout)
					}
					res = r.Run(t, "instance", "vdiconsolefile", "web1", "-", "--direct")
					if res.Code != 0 || !strings.HasPrefix(res.Stdout, "[virt-viewer]\ntype=spice\nhost=10.") {
						t.Errorf("--direct: %s", res)
					}
				}
			})
		})
	}
}
