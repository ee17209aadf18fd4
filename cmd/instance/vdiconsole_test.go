package instance_test

import (
	"os"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// vdiStubs answers the .vv file of web1 as the 2024 server's handler
// fills its template (client/testdata/sf2024/vdiconsole.vv: a real node's
// answer for a running instance, recorded).
func vdiStubs(t *testing.T) *clitest.Stubs {
	s := clitest.NewStubs(t)
	s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	s.ReplyWith("GET", "/instances/web1/vdiconsolehelper", 200, map[string][]string{"Content-Type": {"application/x-virt-viewer"}},
		clitest.ReadGolden(t, "sf2024/vdiconsole.vv")).Optional()
	return s
}

// The viewer runs on a private temporary copy of the file, which is gone
// afterwards; the command exits with the viewer's status.
func TestVDIConsoleRunsTheViewer(t *testing.T) {
	viewer := t.TempDir() + "/viewer"
	if err := os.WriteFile(viewer, []byte("#!/bin/sh\ncat \"$2\"; echo \"$2\" >&2\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := clitest.AgainstStubs(vdiStubs(t))
	// The setting's words, then the file: "$1" is --full-screen.
	r.Env = map[string]string{"SHAKECTL_VDI_VIEWER": viewer + " --full-screen"}
	res := r.Run(t, "instance", "vdiconsole", "web1")
	if res.Code != 0 || res.Stdout != clitest.ReadGolden(t, "sf2024/vdiconsole.vv") {
		t.Fatal(res)
	}
	if _, err := os.Stat(strings.TrimSpace(res.Stderr)); !os.IsNotExist(err) {
		t.Errorf("the temporary .vv file %s was left (%v)", res.Stderr, err)
	}
	res = clitest.AgainstStubs(vdiStubs(t)).Run(t, "instance", "vdiconsole", "web1", "--viewer", "false")
	if res.Code != 1 {
		t.Errorf("a viewer that exits 1: %s", res)
	}
}

// With no viewer at all, nothing is asked of the server and the error says
// how to get one, or to save the file.
func TestVDIConsoleWithoutAViewer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s := vdiStubs(t)
	res := clitest.AgainstStubs(s).Run(t, "instance", "vdiconsole", "web1")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "no VDI viewer: install virt-viewer (remote-viewer)") ||
		!strings.Contains(res.Stderr, `shakectl instance vdiconsolefile web1`) {
		t.Fatal(res)
	}
	if n := s.Count("GET", "/instances/web1/vdiconsolehelper"); n != 0 {
		t.Errorf("%d requests for the file with no viewer to run", n)
	}
}

// consoledelete against InstanceConsoleDataEndpoint.delete (da448b1a; the
// 2026 handler the same): 200 null, nothing printed; an unknown instance
// is the server's 404, exit 5.
func TestConsoleDeleteRecorded(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("DELETE", "/instances/web1/consoledata", 200, "null\n")
	s.Reply("DELETE", "/instances/gone/consoledata", 404, `{"error": "instance not found", "status": 404}`)
	r := clitest.AgainstStubs(s)
	if res := r.Run(t, "instance", "consoledelete", "web1"); res.Code != 0 || res.Stdout != "" {
		t.Fatal(res)
	}
	if res := r.Run(t, "instance", "consoledelete", "gone"); res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}

// pause and unpause against the power handlers' answer (da448b1a and 2026
// instance.py: they return None, 200 null): nothing printed; an instance
// not created is the server's 406, said and exit 1.
func TestPauseUnpauseRecorded(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("POST", "/instances/web1/pause", 200, "null\n")
	s.Reply("POST", "/instances/web1/unpause", 200, "null\n")
	s.Reply("POST", "/instances/new1/pause", 406, `{"error": "instance 1ed362d7-c7ee-485e-b20e-d944b3c5d6af is not ready (initial)", "status": 406}`)
	r := clitest.AgainstStubs(s)
	for _, verb := range []string{"pause", "unpause"} {
		if res := r.Run(t, "instance", verb, "web1"); res.Code != 0 || res.Stdout != "" {
			t.Fatal(res)
		}
	}
	if res := r.Run(t, "instance", "pause", "new1"); res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "is not ready (initial)") {
		t.Fatal(res)
	}
}

// An instance that is not running: the real 2024 server answers a .vv
// file whose port is Python's None (recorded from da448b1a,
// client/testdata/sf2024/recorded/vdi-helper.http). No viewer can open
// it, so nothing is written and the error says why.
func TestVDIConsoleFileOfAnInstanceNotRunning(t *testing.T) {
	raw := clitest.ReadGolden(t, "sf2024/recorded/vdi-helper.http")
	_, body, ok := strings.Cut(raw, "\r\n\r\n")
	if !ok || !strings.Contains(body, "port=None\n") {
		t.Fatalf("recorded answer %q", raw)
	}
	s := clitest.NewStubs(t)
	s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	s.ReplyWith("GET", "/instances/web1/vdiconsolehelper", 200, map[string][]string{"Content-Type": {"application/x-virt-viewer"}}, body)
	dir := t.TempDir()
	res := clitest.AgainstStubs(s).Run(t, "instance", "vdiconsolefile", "web1", dir)
	if res.Code != cmdutil.ExitFailure || res.Stdout != "" || !strings.Contains(res.Stderr, "instance web1 has no console port (the server's file says port=None): is it running?") {
		t.Fatal(res)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("left %v (%v)", entries, err)
	}
}
