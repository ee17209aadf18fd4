package instance_test

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// execute, upload and download against the 2024 server's agent operation
// answers as a real node gave them to shakectl (client/testdata/sf2024/
// agentop_*.json and agent_*: bodies of client/testdata/sf2024/node/n06,
// n08-n11, SOURCES.md; agentoperation.json is the API reference's
// example). Each operation is answered queued (or, a put, preflight) and
// then read once more, ended.

// TestExecuteRecorded: the API reference's operation
// (agentoperation_get_example) prints its stdout and exits 0; a command
// that exited 3 (the agent's execute-response: result false,
// return-code 3) prints its stderr and exits 3.
func TestExecuteRecorded(t *testing.T) {
	for _, tt := range []struct {
		queued, ended  string
		code           int
		stdout, stderr string
	}{
		// The API reference's operation, answered for the recorded one.
		{"sf2024/agentop_execute_queued.json", "sf2024/agentoperation.json", 0, "...", ""},
		// Recorded: sh -c 'echo partial; echo failing >&2; exit 3' on a
		// real guest: result false, return-code 3, both outputs.
		{"sf2024/agentop_execute_queued.json", "sf2024/agentop_execute_failed.json", 3, "partial\n", "failing\n"},
	} {
		fa := clitest.NewStubs(t)
		fa.ReplyRecorded(t, "POST", "/instances/web1/agent/execute", 200, tt.queued)
		fa.ReplyRecorded(t, "GET", "/agentoperations/ffdedc9e-8a76-4afa-a452-3ba848644f11", 200, tt.ended)
		res := clitest.AgainstStubs(fa).Run(t, "instance", "execute", "web1", "--poll", "1ms", "--", "cat", "/tmp/README.md")
		if res.Code != tt.code || res.Stdout != tt.stdout || res.Stderr != tt.stderr {
			t.Errorf("%s: %s", tt.ended, res)
		}
		if got := fa.LastBody("POST", "/instances/web1/agent/execute"); got != `{"command_line":"cat /tmp/README.md"}` {
			t.Errorf("body = %s", got)
		}
	}
	// An instance whose agent is not ready is the server's 400, said
	// (recorded from a real node before its agent had talked).
	fa := clitest.NewStubs(t)
	fa.Canned("POST", "/instances/web1/agent/execute", clitest.RecordedRefusal(t, "sf2024/refusals.json", "400 agent not ready"))
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "execute", "web1", "--", "true"); res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "instance agent not ready") {
		t.Error(res)
	}
}

// TestExecuteLongOutputRecorded: an output over 10 KiB comes back as a
// blob in place of stdout (recorded: seq 1 4000, 18893 bytes, became
// stdout_blob), which execute prints whole.
func TestExecuteLongOutputRecorded(t *testing.T) {
	const blob = "/blobs/bc2ad4ef-5312-4aa6-a9e0-3aa14a91aae6"
	data := clitest.ReadGolden(t, "sf2024/agent_stdout.data")
	fa := clitest.NewStubs(t)
	fa.ReplyRecorded(t, "POST", "/instances/web1/agent/execute", 200, "sf2024/agentop_execute_long_queued.json")
	fa.ReplyRecorded(t, "GET", "/agentoperations/fff70b46-ce97-4a96-81f9-ee212a17263f", 200, "sf2024/agentop_execute_long.json")
	fa.ReplyRecorded(t, "GET", blob, 200, "sf2024/agent_stdout_blob.json")
	fa.Reply("GET", blob+"/data", 200, data)
	res := clitest.AgainstStubs(fa).Run(t, "instance", "execute", "web1", "--poll", "1ms", "--", "seq", "1", "4000")
	if res.Code != 0 || res.Stdout != data || res.Stderr != "" || len(data) != 18893 {
		t.Fatalf("exit %d, %d bytes of stdout (want %d), stderr %q", res.Code, len(res.Stdout), len(data), res.Stderr)
	}
}

// TestUploadRecorded: the file is a blob the cluster already holds (the
// 2024 root page offers blob-search-by-hash; blob.json), made an artifact
// (artifact.json), then put: the put names the artifact's blob, and the
// agent's put-file-response and chmod-response, which carry no "result",
// are a success.
func TestUploadRecorded(t *testing.T) {
	src := filepath.Join(t.TempDir(), "test.sh")
	clitest.WriteFile(t, src, "#!/bin/sh\necho from the guest\n")
	sum := sha512.Sum512([]byte("#!/bin/sh\necho from the guest\n"))
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	fa.ReplyRecorded(t, "GET", "/blob_checksums/sha512/"+hex.EncodeToString(sum[:]), 200, "sf2024/blob.json")
	fa.ReplyRecorded(t, "POST", "/artifacts/upload/upload-to-web1", 200, "sf2024/artifact.json")
	fa.ReplyRecorded(t, "POST", "/instances/web1/agent/put", 200, "sf2024/agentop_put_preflight.json")
	fa.ReplyRecorded(t, "GET", "/agentoperations/d8bfa248-ed97-4a9f-a24a-40bc10bfe791", 200, "sf2024/agentop_put_complete.json")
	res := clitest.AgainstStubs(fa).Run(t, "instance", "upload", "web1", src, "/tmp/test.sh", "--mode", "755", "--poll", "1ms")
	if res.Code != 0 || !strings.Contains(res.Stderr, "is /tmp/test.sh in instance web1 (blob 25adc99e-369b-4959-a387-2ae046ee6ad4)") {
		t.Fatal(res)
	}
	var put map[string]string
	if err := json.Unmarshal([]byte(fa.LastBody("POST", "/instances/web1/agent/put")), &put); err != nil ||
		put["blob_uuid"] != "25adc99e-369b-4959-a387-2ae046ee6ad4" || put["path"] != "/tmp/test.sh" || put["mode"] != "755" {
		t.Errorf("put = %v (%v)", put, err)
	}
}

// TestDownloadRecorded: the agent's get-file-response names the blob
// (content_blob) whose view (agent_get_blob.json: size and sha512 of the
// file) and data (agent_get_file.data) are the file; a path the guest
// does not have ends the operation in error with the agent's message.
// All recorded from a real guest.
func TestDownloadRecorded(t *testing.T) {
	const blob = "/blobs/e8e0955c-093a-4d01-898a-6901069bd1e9"
	data := clitest.ReadGolden(t, "sf2024/agent_get_file.data")
	fa := clitest.NewStubs(t)
	fa.ReplyRecorded(t, "POST", "/instances/web1/agent/get", 200, "sf2024/agentop_get_queued.json")
	fa.ReplyRecorded(t, "GET", "/agentoperations/138939b7-1dda-4198-95dd-0c177b7ee6bd", 200, "sf2024/agentop_get_complete.json")
	fa.ReplyRecorded(t, "GET", blob, 200, "sf2024/agent_get_blob.json")
	fa.Reply("GET", blob+"/data", 200, data)
	dest := filepath.Join(t.TempDir(), "report.txt")
	res := clitest.AgainstStubs(fa).Run(t, "instance", "download", "web1", "/tmp/report.txt", dest, "--poll", "1ms")
	if res.Code != 0 {
		t.Fatal(res)
	}
	if b, err := os.ReadFile(dest); err != nil || string(b) != data || data != "report line 1\nreport line 2\n" {
		t.Errorf("downloaded %q (%v), want %q", b, err, data)
	}
	if got := fa.LastBody("POST", "/instances/web1/agent/get"); got != `{"path":"/tmp/report.txt"}` {
		t.Errorf("body = %s", got)
	}

	fa = clitest.NewStubs(t)
	fa.ReplyRecorded(t, "POST", "/instances/web1/agent/get", 200, "sf2024/agentop_get_missing_queued.json")
	fa.ReplyRecorded(t, "GET", "/agentoperations/78d45723-0e02-4802-bcb8-19189af254e9", 200, "sf2024/agentop_get_error.json")
	missing := filepath.Join(t.TempDir(), "x")
	res = clitest.AgainstStubs(fa).Run(t, "instance", "download", "web1", "/nonexistent/file", missing, "--poll", "1ms")
	if res.Code != cmdutil.ExitFailure || res.Stderr != "error: agent operation 78d45723-0e02-4802-bcb8-19189af254e9 ended error: step 0: path does not exist\n" {
		t.Fatalf("%s\n%q", res, res.Stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed download (%v)", missing, err)
	}
}
