package instance_test

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/sfclienttest"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// TestRealSFClientScreenshotAndBlobSHA512 runs the real sf-client
// (client-python 6c25293c, the 2024 command line) and shakectl against one
// 2024 simulator on loopback: `instance screenshot REF DEST` saves the same
// bytes from both, and `blob sha512 H` of those bytes names the same blob,
// the server's object being what both print as JSON. Where they differ by
// design: no match is sf-client's "null" and exit 0, shakectl's exit 5;
// sf-client's blob set-metadata fails (it sends the instance route), and
// shakectl's sets the blob's key.
func TestRealSFClientScreenshotAndBlobSHA512(t *testing.T) {
	sfc := sfclienttest.Find(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // bounds a runaway client
	defer cancel()
	cfg := cluster.DefaultConfig()
	cfg.Generation = cluster.Generation2024
	cfg.Listen = "127.0.0.1:0"
	cfg.AuthNamespace, cfg.AuthKey = "system", clitest.TestKey
	cfg.CreateTime = 200 * time.Millisecond
	sim, err := cluster.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	r := clitest.CmdRun{Url: sim.URL(), Ctx: ctx, Env: map[string]string{"SHAKENFIST_NAMESPACE": "system"}}
	run := func(args ...string) (code int, stdout, stderr string) {
		t.Helper()
		cmd := sfc.Command(ctx, t, sim.URL(), "system", clitest.TestKey, args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("sf-client %s: %v", strings.Join(args, " "), err)
			}
			code = ee.ExitCode()
		}
		return code, out.String(), errOut.String()
	}
	sf := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := run(args...)
		if code != 0 {
			t.Fatalf("sf-client %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}

	if res := r.Run(t, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "--async", "block"); res.Code != 0 {
		t.Fatalf("create: %s", res)
	}
	dir := t.TempDir()
	theirs, ours := filepath.Join(dir, "sf-client.png"), filepath.Join(dir, "shakectl.png")
	sf("instance", "screenshot", "web1", theirs)
	if res := r.Run(t, "instance", "screenshot", "web1", ours); res.Code != 0 {
		t.Fatalf("shakectl instance screenshot: %s", res)
	}
	a, errA := os.ReadFile(theirs)
	b, errB := os.ReadFile(ours)
	if errA != nil || errB != nil || len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the screenshots differ: sf-client %d bytes (%v), shakectl %d bytes (%v)", len(a), errA, len(b), errB)
	}

	sum := sha512.Sum512(a)
	hash := hex.EncodeToString(sum[:])
	var sfBlob, ourBlob map[string]any
	if out := sf("--json", "blob", "sha512", hash); json.Unmarshal([]byte(out), &sfBlob) != nil || sfBlob == nil {
		t.Fatalf("sf-client --json blob sha512: %q", out)
	}
	res := r.Run(t, "blob", "sha512", hash, "-o", "json")
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &ourBlob) != nil {
		t.Fatalf("shakectl blob sha512: %s", res)
	}
	if sfBlob["uuid"] == nil || sfBlob["uuid"] != ourBlob["uuid"] || sfBlob["sha512"] != hash {
		t.Errorf("sf-client names blob %v, shakectl %v (sha512 %v)", sfBlob["uuid"], ourBlob["uuid"], sfBlob["sha512"])
	}
	if !reflect.DeepEqual(sfBlob, ourBlob) {
		t.Errorf("the blob's JSON differs:\nsf-client %v\nshakectl  %v", sfBlob, ourBlob)
	}

	none := strings.Repeat("0", 128)
	if out := strings.TrimSpace(sf("--json", "blob", "sha512", none)); out != "null" {
		t.Errorf("sf-client --json blob sha512 of no blob: %q, want null", out)
	}
	if res := r.Run(t, "blob", "sha512", none); res.Code != cmdutil.ExitNotFound {
		t.Errorf("shakectl blob sha512 of no blob: %s", res)
	}

	// sf-client 6c25293c's blob set-metadata sends PUT
	// /instances/BLOB/metadata/KEY (set_instance_metadata_item): no
	// instance has the blob's UUID, so it fails and the blob is unchanged.
	// shakectl's sends the blob's route.
	blob := ourBlob["uuid"].(string)
	if code, stdout, stderr := run("blob", "set-metadata", blob, "built-by", "sf-client"); code == 0 || !strings.Contains(stderr, "instance not found") {
		t.Errorf("sf-client blob set-metadata: exit %d, want its failure on the instance route: %s %s", code, stdout, stderr)
	}
	if res := r.Run(t, "blob", "set-metadata", blob, "built-by", "shakectl"); res.Code != 0 {
		t.Fatalf("shakectl blob set-metadata: %s", res)
	}
	if got := strings.TrimSpace(r.Run(t, "blob", "show", blob, "-o", "json", "--jq", `.metadata["built-by"]`).Stdout); got != "shakectl" {
		t.Errorf("the blob's built-by is %q, want shakectl's value alone", got)
	}
}
