package instance_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// simRun is a runner against an in-process simulator of generation gen
// with one created instance, web1; mutate, if given, changes the
// simulator's config first.
func simRun(t *testing.T, gen string, mutate ...func(*cluster.Config)) clitest.CmdRun {
	t.Helper()
	cfg := cluster.DefaultConfig()
	cfg.Generation = gen
	cfg.AuthNamespace, cfg.AuthKey = clitest.TestNamespace, clitest.TestKey
	cfg.CreateTime = time.Second
	for _, m := range mutate {
		m(&cfg)
	}
	sim, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	r := clitest.CmdRun{Url: "http://sf.test", Transport: httpstub.HandlerTransport{Handler: sim.Handler()}}
	if res := r.Run(t, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "--async", "block"); res.Code != 0 {
		t.Fatalf("create: %s", res)
	}
	return r
}

// TestExecuteOutputAndExitCode: the guest command's stdout and stderr are
// shakectl's, and its exit code is shakectl's (both generations).
func TestExecuteOutputAndExitCode(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := simRun(t, gen)
				if res := r.Run(t, "instance", "execute", "web1", "--", "echo", "hello", "it's me"); res.Code != 0 || res.Stdout != "hello it's me\n" || res.Stderr != "" {
					t.Errorf("echo: %s", res)
				}
				if res := r.Run(t, "instance", "execute", "web1", "--", "sh", "-c", "exit 3"); res.Code != 3 || res.Stderr != "" {
					t.Errorf("exit 3: %s", res)
				}
				if res := r.Run(t, "instance", "execute", "web1", "--", "cat", "/etc/hostname"); res.Code != 1 || res.Stderr != "cat: /etc/hostname: No such file or directory\n" {
					t.Errorf("cat: %s", res)
				}
				start := time.Now()
				if res := r.Run(t, "instance", "execute", "web1", "--", "sleep", "5"); res.Code != 0 || time.Since(start) < 5*time.Second {
					t.Errorf("sleep 5 took %s: %s", time.Since(start), res)
				}
				if res := r.Run(t, "instance", "execute", "web1", "-o", "json", "--jq", ".results[\"0\"][\"return-code\"]", "--", "exit", "7"); res.Code != 7 || strings.TrimSpace(res.Stdout) != "7" {
					t.Errorf("-o json: %s", res)
				}
			})
		})
	}
}

// TestExecuteDeadline: past --deadline a 2026 operation is expired and
// shakectl exits 124 naming the reason; a 2024 server is refused the flag
// before anything is sent.
func TestExecuteDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := simRun(t, cluster.Generation2026)
		start := time.Now()
		res := r.Run(t, "instance", "execute", "web1", "--deadline", "2s", "--", "sleep", "60")
		if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "expired (deadline)") || time.Since(start) > 10*time.Second {
			t.Errorf("deadline: after %s %s", time.Since(start), res)
		}
		if res := r.Run(t, "instance", "execute", "web1", "--deadline", "0", "--", "sleep", "700"); res.Code != 0 {
			t.Errorf("--deadline 0 is no deadline: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		r := simRun(t, cluster.Generation2024)
		res := r.Run(t, "instance", "execute", "web1", "--deadline", "2s", "--", "echo", "x")
		if res.Code == 0 || !strings.Contains(res.Stderr, "agentoperation-deadlines") || res.Stdout != "" {
			t.Errorf("2024 --deadline: %s", res)
		}
	})
}

// TestUploadCatDownload: a file copied in is what `cat` prints inside and
// what comes back out; 2024 is refused --progress-timeout before anything
// is sent, 2026 takes it.
func TestUploadCatDownload(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := simRun(t, gen)
				dir := t.TempDir()
				src := filepath.Join(dir, "test.sh")
				clitest.WriteFile(t, src, "#!/bin/sh\necho from the guest\n")
				if res := r.Run(t, "instance", "upload", "web1", src, "/tmp/test.sh"); res.Code != 0 {
					t.Fatalf("upload: %s", res)
				}
				if res := r.Run(t, "instance", "execute", "web1", "--", "cat", "/tmp/test.sh"); res.Code != 0 || res.Stdout != "#!/bin/sh\necho from the guest\n" {
					t.Errorf("cat of the uploaded file: %s", res)
				}
				back := filepath.Join(dir, "back.sh")
				if res := r.Run(t, "instance", "download", "web1", "/tmp/test.sh", back); res.Code != 0 {
					t.Fatalf("download: %s", res)
				}
				if b, _ := os.ReadFile(back); string(b) != "#!/bin/sh\necho from the guest\n" {
					t.Errorf("downloaded %q", b)
				}
				if res := r.Run(t, "instance", "download", "web1", "/nosuch", filepath.Join(dir, "x")); res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "step 0: path does not exist") {
					t.Errorf("download of a missing file: %s", res)
				}
				res := r.Run(t, "instance", "download", "web1", "/tmp/test.sh", filepath.Join(dir, "y"), "--progress-timeout", "30s")
				if gen == cluster.Generation2024 && (res.Code == 0 || !strings.Contains(res.Stderr, "agentoperation-deadlines")) {
					t.Errorf("2024 --progress-timeout: %s", res)
				}
				if gen == cluster.Generation2026 && res.Code != 0 {
					t.Errorf("2026 --progress-timeout: %s", res)
				}
			})
		})
	}
}

// Issue 34, item 6: the exit code is the guest command's as a shell would
// give it, and an answer without one is an error, never success: a
// missing, null or string return-code and 256 all exited 0 (the command
// had exited 7), a float was a decode error.
func TestExecuteExitCodeAsAShellGivesIt(t *testing.T) {
	// The agent's answer for a command that exited 3
	// (client/testdata/sf2024/agentop_execute_failed.json), its
	// return-code replaced by each case's.
	const op = "ffdedc9e-8a76-4afa-a452-3ba848644f11"
	recorded := clitest.ReadGolden(t, "sf2024/agentop_execute_failed.json")
	if !strings.Contains(recorded, `"return-code": 3, `) {
		t.Fatal("agentop_execute_failed.json has no return-code 3")
	}
	for _, tt := range []struct {
		rc   string // the return-code field, "" for none
		want int
		err  string
	}{
		{`7`, 7, ""},
		// The fixture says "result": false: with a code of 0 that is a
		// failure (issue 40, item 12), not the success it was.
		{`0`, 1, `the agent reported the command failed ("result": false) although its exit code is 0`},
		{`-15`, 143, ""}, // SIGTERM ended it: 128+15
		{`-9`, 137, ""},
		{`263`, 7, ""}, // as `exit 263` leaves 7
		{`256`, 1, ""}, // never success
		{``, 1, "the agent reported no exit code"},
		{`null`, 1, "the agent reported no exit code"},
		{`"7"`, 1, `the agent reported no exit code (return-code "7")`},
		{`7.5`, 1, "the agent reported no exit code (return-code 7.5)"},
	} {
		fa := clitest.NewStubs(t)
		field := ""
		if tt.rc != "" {
			field = `"return-code": ` + tt.rc + `, `
		}
		body := strings.Replace(strings.Replace(recorded, `"return-code": 3, `, field, 1), `"stderr": "failing\n"`, `"stderr": ""`, 1)
		fa.Reply("POST", "/instances/web1/agent/execute", 200, body)
		res := clitest.AgainstStubs(fa).Run(t, "instance", "execute", "web1", "--", "exit", "7")
		if res.Code != tt.want || (tt.err != "" && !strings.Contains(res.Stderr, "error: agent operation "+op+": "+tt.err)) || (tt.err == "" && res.Stderr != "") {
			t.Errorf("return-code %q: %s\nwant exit %d %s", tt.rc, res, tt.want, tt.err)
		}
	}
}

// Issue 34, item 13: output that was not text (the agent relays text, so
// bytes that are not UTF-8 arrive as U+FFFD) is warned about on stderr,
// after the output.
func TestExecuteWarnsWhenOutputWasNotText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := simRun(t, cluster.Generation2026)
		src := filepath.Join(t.TempDir(), "blob.bin")
		clitest.WriteFile(t, src, "PK\x03\x04\xff\xfe\x00binary")
		if res := r.Run(t, "instance", "upload", "web1", src, "/tmp/blob.bin"); res.Code != 0 {
			t.Fatalf("upload: %s", res)
		}
		const warning = "warning: the guest's stdout was not text (NUL bytes, or bytes that are not UTF-8 and arrive as U+FFFD): the agent relays text, so binary output is altered; copy a file with shakectl instance download instead\n"
		if res := r.Run(t, "instance", "execute", "web1", "--", "cat", "/tmp/blob.bin"); res.Code != 0 || res.Stderr != warning {
			t.Errorf("cat of a binary file: %s", res)
		}
		if res := r.Run(t, "instance", "execute", "web1", "--", "echo", "plain"); res.Code != 0 || res.Stderr != "" {
			t.Errorf("echo: %s", res)
		}
	})
}

// Issue 40, item 12: the agent's "result": false with return-code 0
// exited 0. It fails (exit 1), saying so and quoting the agent's message;
// "result": true with 0 is success, as is a result without the field.
func TestExecuteResultFalseIsAFailure(t *testing.T) {
	recorded := clitest.ReadGolden(t, "sf2024/agentop_execute_failed.json")
	op := regexp.MustCompile(`^\{"uuid": "([0-9a-f-]{36})"`).FindStringSubmatch(recorded)[1]
	for _, tt := range []struct {
		result, message string
		code            int
		stderr          string
	}{
		{`"result": false, `, "", 1, "error: agent operation " + op + `: the agent reported the command failed ("result": false) although its exit code is 0` + "\n"},
		{`"result": false, `, `"message": "command timed out", `, 1, "error: agent operation " + op + `: the agent reported the command failed ("result": false) although its exit code is 0: command timed out` + "\n"},
		{`"result": true, `, "", 0, ""},
		{``, "", 0, ""},
	} {
		body := strings.Replace(recorded, `"return-code": 3, `, `"return-code": 0, `+tt.message, 1)
		body = strings.Replace(body, `"stderr": "failing\n"`, `"stderr": ""`, 1)
		body = strings.Replace(body, `"stdout": "partial\n"`, `"stdout": ""`, 1)
		body = strings.Replace(body, `"result": false, `, tt.result, 1)
		fa := clitest.NewStubs(t)
		fa.Reply("POST", "/instances/web1/agent/execute", 200, body)
		res := clitest.AgainstStubs(fa).Run(t, "instance", "execute", "web1", "--", "true")
		if res.Code != tt.code || res.Stderr != tt.stderr || res.Stdout != "" {
			t.Errorf("%s%s: %s\nwant exit %d, stderr %q", tt.result, tt.message, res, tt.code, tt.stderr)
		}
	}
}
