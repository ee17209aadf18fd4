package instance_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// The hint every console route's null gets: what the null means for the
// instance, from the route and the answer, and where to look.
const notPlacedHint = "hint: an instance the scheduler never placed on a node (state initial-error, \"scheduling failed\") has no console; \"shakectl instance show big\" shows its state and node\n"

// Issue 40, item 5: for an instance never placed the real server answers
// the console routes with 200 null. consoledata printed "null" and exited
// 0; vdiconsolefile wrote "null" as the .vv file (to DEST and to stdout)
// and exited 0; vdiconsole started the viewer on it. Each is now exit 1,
// saying what the server sent, before anything is written or started.
func TestConsoleRoutesRefuseANullAnswer(t *testing.T) {
	s := clitest.NeverPlacedStubs(t)
	r := clitest.AgainstStubs(s)

	res := r.Run(t, "instance", "consoledata", "big")
	if want := "error: GET /instances/big/consoledata: the server answered 200 with null, not a console log: instance big has no console\n" + notPlacedHint; res.Code != cmdutil.ExitFailure || res.Stdout != "" || res.Stderr != want {
		t.Errorf("consoledata: %s\nwant stderr %q", res, want)
	}
	// The answer said null and the instance has no node: the view was
	// looked at to tell (a proxied log may say "null").
	if s.Count("GET", "/instances/big") != 1 {
		t.Errorf("consoledata read the instance %d times, want once", s.Count("GET", "/instances/big"))
	}

	const vvErr = "error: GET /instances/big/vdiconsolehelper: the server answered 200 with null, not a console file: instance big has no console\n" + notPlacedHint
	dir := t.TempDir()
	for _, args := range [][]string{
		{"instance", "vdiconsolefile", "big", dir},
		{"instance", "vdiconsolefile", "big", "-"},
		{"instance", "vdiconsolefile", "big", filepath.Join(dir, "big.vv")},
	} {
		res := r.Run(t, args...)
		if res.Code != cmdutil.ExitFailure || res.Stdout != "" || res.Stderr != vvErr {
			t.Errorf("%v: %s\nwant stderr %q", args, res, vvErr)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("vdiconsolefile left %v (%v)", entries, err)
	}

	// The viewer would leave a mark; it must not run.
	mark := filepath.Join(dir, "viewer-ran")
	viewer := filepath.Join(t.TempDir(), "viewer")
	if err := os.WriteFile(viewer, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	res = r.Run(t, "instance", "vdiconsole", "big", "--viewer", viewer)
	if res.Code != cmdutil.ExitFailure || res.Stdout != "" || res.Stderr != vvErr {
		t.Errorf("vdiconsole: %s\nwant stderr %q", res, vvErr)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Errorf("the viewer was started on a null answer (%v)", err)
	}
}

// A JSON null from consoledata is the log itself when the instance has a
// node: proxied from another hypervisor the log comes labelled
// application/json (shakenfist da448b1a base.py redirect_instance_request),
// and a log may end in "null". It is printed as sent.
func TestConsoleDataNullOfAPlacedInstanceIsItsLog(t *testing.T) {
	s := clitest.NewStubs(t)
	placed := strings.Replace(clitest.ReadGolden(t, "sf2024/instance_never_placed.json"), `"node": null`, `"node": "sf-2"`, 1)
	s.Reply("GET", "/instances/big", 200, placed)
	s.Reply("GET", "/instances/big/consoledata", 200, "null\n")
	res := clitest.AgainstStubs(s).Run(t, "instance", "consoledata", "big", "--length", "5")
	if res.Code != 0 || res.Stdout != "null\n" || res.Stderr != "" {
		t.Fatal(res)
	}
}

// A console file is checked before it is written: the [virt-viewer]
// document, with a port to connect to. What is not is exit 1 naming what
// came, for the direct file and Kerbside's alike.
func TestConsoleFileIsCheckedBeforeItIsWritten(t *testing.T) {
	for _, tc := range []struct {
		name, body, stderr string
	}{
		{"an empty object", `{}`, "error: GET /instances/web1/vdiconsolehelper: the server answered 200 with a body that is not a virt-viewer console file (it begins {})\nhint: the server's answer is not what the Shakenfist API sends; check the API URL and the server's version\n"},
		{"an HTML page", "<html><body>login</body></html>", "error: GET /instances/web1/vdiconsolehelper: the server answered 200 with a body that is not a virt-viewer console file (it begins (HTML page))\nhint: this is not a Shakenfist API: the URL answered with an HTML page; a real API URL is http://HOST:13000 (the API server itself), or the URL your load balancer serves it at (http://HOST/api behind a 2024 deployment's Apache)\n"},
		{"no port", "[virt-viewer]\ntype=spice\nhost=sf-1\ndelete-this-file=1\n", "error: GET /instances/web1/vdiconsolehelper: the server answered 200 with a console file without a port\nhint: the server's answer is not what the Shakenfist API sends; check the API URL and the server's version\n"},
		{"port None", "[virt-viewer]\ntype=spice\nhost=sf-1\nport=None\ndelete-this-file=1\n", "error: GET /instances/web1/vdiconsolehelper: the server answered 200 with a console file without a port (port=None)\nhint: instance web1 has no console port (the server's file says port=None): is it running? \"shakectl instance show web1\" shows its state and power state\n"},
		{"an empty body", "", "error: GET /instances/web1/vdiconsolehelper: the server answered 200 with an empty body, not a console file\nhint: the answer was cut short: a proxy or the server may have failed mid-answer; try again\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := clitest.NewStubs(t)
			s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
			s.ReplyWith("GET", "/instances/web1/vdiconsolehelper", 200, http.Header{"Content-Type": {"application/x-virt-viewer"}}, tc.body)
			dir := t.TempDir()
			res := clitest.AgainstStubs(s).Run(t, "instance", "vdiconsolefile", "web1", dir)
			if res.Code != cmdutil.ExitFailure || res.Stdout != "" || res.Stderr != tc.stderr {
				t.Errorf("%s\nwant stderr %q", res, tc.stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("wrote %v", entries)
			}
		})
	}
	// A TLS port alone is a port (2024 files with a CA carry both).
	s := clitest.NewStubs(t)
	s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	tlsOnly := "[virt-viewer]\ntype=spice\nhost=sf-3\nport=None\ntls-port=43197\ndelete-this-file=1\n"
	s.ReplyWith("GET", "/instances/web1/vdiconsolehelper", 200, http.Header{"Content-Type": {"application/x-virt-viewer"}}, tlsOnly)
	if res := clitest.AgainstStubs(s).Run(t, "instance", "vdiconsolefile", "web1", "-"); res.Code != 0 || res.Stdout != tlsOnly {
		t.Error(res)
	}
}

// Kerbside's exchange answering null is no console file either, and the
// viewer is not started on it.
func TestKerbsideNullIsNoConsoleFile(t *testing.T) {
	kerbside := httpstub.New(t)
	kurl := kerbside.Serve()
	kerbside.Register(httpstub.REST("GET", "/sf-console.vv"), httpstub.Answer(200, http.Header{"Content-Type": {"application/json"}}, "null\n"))
	api := clitest.NewStubs(t)
	api.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	api.Reply("GET", "/instances/web1/vdiconsoleproxy", 200, strings.Replace(clitest.ReadGolden(t, "sf2026/vdiconsoleproxy.json"), "https://kerbside.example.com", kurl, 1))
	res := clitest.AgainstStubs(api).Run(t, "instance", "vdiconsolefile", "web1", "-")
	want := "error: GET /sf-console.vv?token=[redacted]: the server answered 200 with null, not a console file: instance web1 has no console\n" +
		"hint: the server's answer is not what the Shakenfist API sends; check the API URL and the server's version\n"
	if res.Code != cmdutil.ExitFailure || res.Stdout != "" || res.Stderr != want {
		t.Errorf("%s\nwant stderr %q", res, want)
	}
}
