package artifact_test

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// imageFile writes size deterministic pseudo-random bytes under dir.
func imageFile(t *testing.T, dir string, size int, seed uint64) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	r := rand.New(rand.NewPCG(seed, seed))
	for k := range data {
		data[k] = byte(r.Uint32())
	}
	path := filepath.Join(dir, "disk.qcow2")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func sum512(b []byte) string {
	s := sha512.Sum512(b)
	return hex.EncodeToString(s[:])
}

// TestUploadDownloadRoundTrip: an upload of several chunks and its
// download give back the same bytes, verified against the sha512 the
// server computed, against both generations; piped, nothing but the
// result is printed.
func TestUploadDownloadRoundTrip(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			r, _ := clitest.SimCluster(t, gen, nil)
			dir := t.TempDir()
			// Just over client.UploadChunkMax: two chunks at least, however the
			// chunk size adapts, and a last one that is not a whole chunk.
			path, data := imageFile(t, dir, 2<<20+123, 1)
			res := r.Run(t, "artifact", "upload", "ci-image", path, "-o", "simple")
			if res.Code != 0 || res.Stderr != "" || !strings.Contains(res.Stdout, "source_url\tsf://upload/system/ci-image\n") {
				t.Fatalf("upload: %s", res)
			}
			dest := filepath.Join(dir, "back.qcow2")
			res = r.Run(t, "artifact", "download", "ci-image", dest, "-o", "simple")
			if res.Code != 0 || res.Stderr != "" || !strings.Contains(res.Stdout, "sha512_verified\tyes\n") || !strings.Contains(res.Stdout, "sha512\t"+sum512(data)+"\n") {
				t.Fatalf("download: %s", res)
			}
			got, err := os.ReadFile(dest)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("downloaded %d bytes, want the %d uploaded (%v)", len(got), len(data), err)
			}
			// The same file again: the cluster holds its blob, so nothing
			// is sent and no version is added.
			res = r.Run(t, "artifact", "upload", "ci-image", path)
			if res.Code != 0 || !strings.Contains(res.Stderr, "the cluster already holds this file") {
				t.Fatalf("second upload: %s", res)
			}
			if idx := strings.TrimSpace(r.Run(t, "artifact", "show", "ci-image", "-o", "json", "--jq", ".index").Stdout); idx != "1" {
				t.Errorf("index after a duplicate upload: %s", idx)
			}
			// A directory as DEST holds a file named after the artifact.
			if res := r.Run(t, "artifact", "download", "ci-image", dir); res.Code != 0 {
				t.Fatal(res)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "ci-image")); !bytes.Equal(got, data) {
				t.Error("download into a directory")
			}
		})
	}
}

// TestTransferProgressForms: -o json gives JSON progress lines on stderr
// ending in done; a terminal gets a bar redrawn with \r.
func TestTransferProgressForms(t *testing.T) {
	r, _ := clitest.SimCluster(t, cluster.Generation2026, nil)
	dir := t.TempDir()
	path, _ := imageFile(t, dir, 3<<20, 2)
	res := r.Run(t, "artifact", "upload", "img", path, "-o", "json", "--reupload")
	if res.Code != 0 {
		t.Fatal(res)
	}
	lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	var last struct {
		Progress string `json:"progress"`
		Bytes    int64  `json:"bytes"`
		Done     bool   `json:"done"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Progress != "upload" || !last.Done || last.Bytes != 3<<20 {
		t.Errorf("last progress line %q (%v)", lines[len(lines)-1], err)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("stderr line is not JSON: %q", l)
		}
	}
	tty := r
	tty.Tty = true
	res = tty.Run(t, "artifact", "download", "img", filepath.Join(dir, "out"))
	if res.Code != 0 || !strings.Contains(res.Stderr, "\rdownload ") || !strings.Contains(res.Stderr, "3.0 MiB / 3.0 MiB 100%") {
		t.Errorf("bar on a terminal: %q", res.Stderr)
	}
	if res := r.Run(t, "artifact", "download", "img", filepath.Join(dir, "out2"), "--quiet"); res.Code != 0 || res.Stderr != "" {
		t.Errorf("--quiet: %s", res)
	}
}

// interrupting cancels the run as Ctrl-C does once the requests matching
// match have carried more than after bytes (request bodies for uploads,
// answers for downloads).
type interrupting struct {
	match  func(*http.Request) bool
	after  int64
	moved  atomic.Int64
	cancel context.CancelCauseFunc
}

func (t *interrupting) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.match(req) {
		return http.DefaultTransport.RoundTrip(req)
	}
	if req.Method == http.MethodPost && req.ContentLength > 0 && t.moved.Add(req.ContentLength) > t.after {
		t.cancel(cmdutil.ErrInterrupted)
		return nil, context.Canceled
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && req.Method == http.MethodGet {
		resp.Body = &countingBody{ReadCloser: resp.Body, t: t}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	t *interrupting
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.t.moved.Add(int64(n)) > b.t.after {
		b.t.cancel(cmdutil.ErrInterrupted)
	}
	return n, err
}

var (
	// resumeLineRE is the command an interrupted upload prints, after
	// "shakectl ".
	resumeLineRE = regexp.MustCompile(`(?m)^  shakectl (artifact upload .* --resume [0-9a-f-]{36})$`)
	stoppedRE    = regexp.MustCompile(`stopped at (\d+) of \d+ bytes`)
)

// TestUploadInterruptedAtHalfResumes: Ctrl-C at half an upload exits
// 130 and names the upload; the command it prints, run as printed, sends
// only the rest, and the artifact's blob has the file's sha512, against
// both generations (issue 40, item 6: the resume's first request, a
// bodyless POST asking the upload's size, went chunked, and the 2026
// server refuses a chunked body: 411 Length Required).
func TestUploadInterruptedAtHalfResumes(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			r, _ := clitest.SimCluster(t, gen, nil)
			dir := t.TempDir()
			size := 4 << 20 // half is four chunks of the first size (512 KiB)
			path, data := imageFile(t, dir, size, 3)
			ctx, cancel := context.WithCancelCause(t.Context())
			tr := &interrupting{after: int64(size / 2), cancel: cancel,
				match: func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/upload/") }}
			cut := r
			cut.Transport, cut.Ctx = tr, ctx
			res := cut.Run(t, "artifact", "upload", "half", path)
			if res.Code != cmdutil.ExitInterrupted {
				t.Fatalf("interrupted upload: %s", res)
			}
			printed := resumeLineRE.FindStringSubmatch(res.Stderr)
			at := stoppedRE.FindStringSubmatch(res.Stderr)
			if printed == nil || at == nil {
				t.Fatalf("no resume command in %s", res.Stderr)
			}
			held, _ := strconv.ParseInt(at[1], 10, 64)
			if held <= 0 || held > int64(size)/2 {
				t.Fatalf("stopped at %d of %d", held, size)
			}
			// Resume with the command as printed: only the remaining
			// bytes travel, and no body goes chunked.
			var sent atomic.Int64
			var chunked atomic.Int32
			count := r
			count.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, "/upload/") {
					sent.Add(req.ContentLength)
				}
				if req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0 {
					chunked.Add(1) // net/http sends such a body chunked
				}
				return http.DefaultTransport.RoundTrip(req)
			})
			res = count.Run(t, strings.Fields(printed[1])...)
			if res.Code != 0 {
				t.Fatalf("%s: %s", printed[1], res)
			}
			if n := chunked.Load(); n != 0 {
				t.Errorf("the resume sent %d requests with a body of unknown length (chunked)", n)
			}
			if s := sent.Load(); s != int64(size)-held {
				t.Errorf("the resume sent %d bytes, want the %d the server did not hold", s, int64(size)-held)
			}
			blob := strings.TrimSpace(r.Run(t, "artifact", "show", "half", "-o", "json", "--jq", ".blob_uuid").Stdout)
			got := strings.TrimSpace(r.Run(t, "blob", "show", blob, "-o", "json", "--jq", ".sha512").Stdout)
			if got != sum512(data) {
				t.Errorf("sha512 after resume %s, want %s", got, sum512(data))
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestDownloadInterruptedLeavesNothing: Ctrl-C in the middle of a
// download exits 130 and leaves neither DEST nor a partial file.
func TestDownloadInterruptedLeavesNothing(t *testing.T) {
	r, _ := clitest.SimCluster(t, cluster.Generation2024, nil)
	src := t.TempDir()
	path, _ := imageFile(t, src, 3<<20, 4)
	if res := r.Run(t, "artifact", "upload", "img", path); res.Code != 0 {
		t.Fatal(res)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(t.Context())
	cut := r
	cut.Ctx = ctx
	cut.Transport = &interrupting{after: 1 << 20, cancel: cancel,
		match: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/data") }}
	res := cut.Run(t, "artifact", "download", "img", filepath.Join(dir, "disk.qcow2"))
	if res.Code != cmdutil.ExitInterrupted {
		t.Fatalf("interrupted download: %s", res)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestDownloadChecksumMismatchKeepsNothing: bytes whose sha512 is not the
// one the server reports fail the download and write nothing; an existing
// DEST is left as it was.
func TestDownloadChecksumMismatchKeepsNothing(t *testing.T) {
	fa := clitest.NewStubs(t)
	const blob = "578da8b6-eb98-4e10-bb36-e4d4d763d312"
	art := strings.Replace(clitest.ReadGolden(t, "sf2024/artifact.json"), "25adc99e-369b-4959-a387-2ae046ee6ad4", blob, -1)
	art = strings.Replace(art, `"size": 308406784`, `"size": 5`, 1)
	view := `{"uuid": "` + blob + `", "state": "created", "size": 5, "sha512": "` + sum512([]byte("world")) + `"}`
	fa.Reply("GET", "/artifacts/img", 200, art)
	fa.Reply("GET", "/blobs/"+blob, 200, view)
	fa.ReplyWith("GET", "/blobs/"+blob+"/data", 200, http.Header{"Content-Type": {"text/plain"}}, "hello")
	dir := t.TempDir()
	dest := filepath.Join(dir, "keep")
	clitest.WriteFile(t, dest, "old")
	res := clitest.AgainstStubs(fa).Run(t, "artifact", "download", "img", dest, "--clobber")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "nothing was written") {
		t.Fatalf("mismatch: %s", res)
	}
	if b, _ := os.ReadFile(dest); string(b) != "old" {
		t.Errorf("DEST now holds %q", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}

// Issue 34, item 2: `artifact download ARTIFACT DIR/` named the file after
// the last segment of the artifact's source URL, which its owner (for a
// shared artifact, another namespace) chooses, and replaced what was
// there: ".bashrc" overwrote DIR/.bashrc, exit 0. The file is named after
// what the user typed, an existing file is replaced only with --clobber,
// and the path written is printed.
func TestDownloadIntoADirectoryNeverTakesTheServersNameOrClobbers(t *testing.T) {
	fa := clitest.NewStubs(t)
	const blob = "578da8b6-eb98-4e10-bb36-e4d4d763d312"
	art := strings.Replace(clitest.ReadGolden(t, "sf2024/artifact.json"), "25adc99e-369b-4959-a387-2ae046ee6ad4", blob, -1)
	art = strings.Replace(art, `"size": 308406784`, `"size": 5`, 1)
	art = strings.Replace(art, `"source_url": "debian:11"`, `"source_url": "https://other.example/ns/.bashrc"`, 1)
	if !strings.Contains(art, ".bashrc") {
		t.Fatal("the recorded artifact has no source_url to replace")
	}
	view := `{"uuid": "` + blob + `", "state": "created", "size": 5, "sha512": "` + sum512([]byte("hello")) + `"}`
	fa.Reply("GET", "/artifacts/ci-image", 200, art)
	fa.Reply("GET", "/blobs/"+blob, 200, view)
	fa.ReplyWith("GET", "/blobs/"+blob+"/data", 200, http.Header{"Content-Type": {"application/octet-stream"}}, "hello")
	dir := t.TempDir()
	bashrc := filepath.Join(dir, ".bashrc")
	clitest.WriteFile(t, bashrc, "# mine\n")
	run := clitest.AgainstStubs(fa)

	res := run.Run(t, "artifact", "download", "ci-image", dir+"/", "-o", "json")
	want := filepath.Join(dir, "ci-image")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"path": "`+want+`"`) {
		t.Fatalf("download into a directory: %s\nwant the path %s printed", res, want)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Errorf("DIR/.bashrc now holds %q: the server's name was used", b)
	}
	if b, _ := os.ReadFile(want); string(b) != "hello" {
		t.Errorf("%s holds %q, want the artifact's bytes", want, b)
	}

	// Again: the file exists now, and is not replaced without --clobber.
	clitest.WriteFile(t, want, "kept")
	res = run.Run(t, "artifact", "download", "ci-image", dir)
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "error: "+want+" already exists: pass --clobber to replace it") {
		t.Errorf("an existing file: %s", res)
	}
	if b, _ := os.ReadFile(want); string(b) != "kept" {
		t.Errorf("without --clobber the file now holds %q", b)
	}
	// The same for a file DEST names itself.
	if res = run.Run(t, "artifact", "download", "ci-image", bashrc); res.Code != cmdutil.ExitFailure {
		t.Errorf("DEST an existing dotfile: %s", res)
	}
	if res = run.Run(t, "artifact", "download", "ci-image", dir, "--clobber", "--quiet"); res.Code != 0 {
		t.Fatalf("--clobber: %s", res)
	}
	if b, _ := os.ReadFile(want); string(b) != "hello" {
		t.Errorf("with --clobber the file holds %q, want the artifact's bytes", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("the directory holds %v, want .bashrc and ci-image", left)
	}
}
