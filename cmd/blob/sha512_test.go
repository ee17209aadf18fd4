package blob_test

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// imageSum is the sha512 the recorded answer is served for. (The recorded
// blob's own sha512 is elided in the server's example, so no real hash
// of it exists; the server matched on its side before answering.)
var imageSum = strings.Repeat("0123456789abcdef", 8)

// withChecksums is recorded() plus GET /blob_checksums/sha512/{hash}: the
// recorded blob (shakenfist da448b1a blob.py blob_get_example, which
// BlobChecksumsEndpoint.get answers with) for imageSum, and 200 null,
// what the server answers when no created blob matches, for any other.
func withChecksums(t *testing.T) *clitest.Stubs {
	fa := recorded(t)
	fa.Offer("GET", "/blob_checksums/sha512/"+imageSum, 200, clitest.ReadGolden(t, "sf2024/blob.json"))
	fa.Offer("GET", "/blob_checksums/sha512/"+strings.Repeat("ab", 64), 200, "null\n")
	return fa
}

// TestBlobSHA512Golden: the blob found is printed as blob show prints it
// (the artifacts naming it included); -o json is the server's object.
func TestBlobSHA512Golden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(withChecksums(t)), "blob_sha512", "blob", "sha512", imageSum)
}

// -o json is the answer as sent, not show's object with "artifacts".
func TestBlobSHA512JSONIsTheServersObject(t *testing.T) {
	res := clitest.AgainstStubs(withChecksums(t)).Run(t, "blob", "sha512", imageSum, "-o", "json")
	var got, want map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || res.Code != 0 {
		t.Fatalf("%s (%v)", res, err)
	}
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "sf2024/blob.json")), &want); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("-o json is not the server's blob:\n%s\nwant\n%s", gb, wb)
	}
}

// The server's 200 null is a not-found: exit 5, nothing on stdout.
func TestBlobSHA512NoMatch(t *testing.T) {
	res := clitest.AgainstStubs(withChecksums(t)).Run(t, "blob", "sha512", strings.Repeat("ab", 64))
	if res.Code != cmdutil.ExitNotFound || res.Stdout != "" || !strings.Contains(res.Stderr, "no blob has sha512 "+strings.Repeat("ab", 64)) {
		t.Fatal(res)
	}
	res = clitest.AgainstStubs(withChecksums(t)).Run(t, "blob", "sha512", strings.Repeat("ab", 64), "-o", "json")
	if res.Code != cmdutil.ExitNotFound || res.Stdout != "" {
		t.Fatalf("-o json of no match: %s", res)
	}
}

// A hash in capitals (some tools print them) is sent as the lower-case
// hex the server stores and compares as a string.
func TestBlobSHA512UpperCase(t *testing.T) {
	fa := withChecksums(t)
	res := clitest.AgainstStubs(fa).Run(t, "blob", "sha512", strings.ToUpper(imageSum), "-o", "json", "--jq", ".uuid")
	if res.Code != 0 || res.Stdout != "578da8b6-eb98-4e10-bb36-e4d4d763d312\n" {
		t.Fatal(res)
	}
	if fa.Count("GET", "/blob_checksums/sha512/"+imageSum) != 1 {
		t.Errorf("requests: %v", fa.Requests())
	}
}

// What cannot be a sha512 is refused with exit 2 before any request (no
// login either): the server would answer 200 null and hide the mistake.
func TestBlobSHA512RefusesWhatIsNotASHA512(t *testing.T) {
	for name, hash := range map[string]string{
		"empty":              "",
		"sha256":             strings.Repeat("ab", 32),
		"one short":          imageSum[1:],
		"one long":           imageSum + "0",
		"not hex":            strings.Repeat("zz", 64),
		"path":               "../../blobs/" + strings.Repeat("a", 116),
		"query":              strings.Repeat("a", 127) + "?",
		"newline":            imageSum[:127] + "\n",
		"sha512sum's line":   imageSum + "  image.qcow2",
		"non-ascii":          strings.Repeat("a", 126) + "é",
		"unicode hex digits": strings.Repeat("a", 125) + "١",
	} {
		t.Run(name, func(t *testing.T) {
			fa := withChecksums(t)
			res := clitest.AgainstStubs(fa).Run(t, "blob", "sha512", hash)
			// An empty argument is refused as every empty REF is.
			why := "a sha512 is 128 hex digits"
			if hash == "" {
				why = "HASH is empty"
			}
			if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, why) {
				t.Errorf("%q: %s", hash, res)
			}
			if n := len(fa.Requests()); n != 0 || fa.Logins() != 0 {
				t.Errorf("%q: %d requests and %d logins sent for a refused hash", hash, n, fa.Logins())
			}
		})
	}
	if res := clitest.AgainstStubs(withChecksums(t)).Run(t, "blob", "sha512", strings.Repeat("ab", 32)); !strings.Contains(res.Stderr, "a sha256") {
		t.Errorf("a sha256 is not named as one: %s", res)
	}
}

// TestBlobSHA512AgainstSimCluster: an uploaded file's sha512 (as
// sha512sum prints it) finds its blob, the one the artifact's version
// names; TAB offers the sums of the cluster's verified blobs; a sum no
// blob has exits 5. Both generations route it the same.
func TestBlobSHA512AgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			r, _ := clitest.SimCluster(t, gen, nil)

			data := []byte(strings.Repeat("a CI image, not really qcow2\n", 4096))
			path := filepath.Join(t.TempDir(), "image.qcow2")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			sum := sha512.Sum512(data)
			hash := hex.EncodeToString(sum[:])
			if res := r.Run(t, "artifact", "upload", "ci-image", path); res.Code != 0 {
				t.Fatalf("upload: %s", res)
			}
			blob := strings.TrimSpace(r.Run(t, "artifact", "show", "ci-image", "-o", "json", "--jq", ".blob_uuid").Stdout)

			res := r.Run(t, "blob", "sha512", hash, "-o", "simple")
			if res.Code != 0 || !strings.HasPrefix(res.Stdout, "uuid\t"+blob+"\n") || !strings.Contains(res.Stdout, "sha512\t"+hash+"\n") || !strings.Contains(res.Stdout, "\nartifacts\tci-image (") {
				t.Errorf("blob sha512: %s", res)
			}
			if got := strings.TrimSpace(r.Run(t, "blob", "sha512", strings.ToUpper(hash), "-o", "json", "--jq", ".uuid").Stdout); got != blob {
				t.Errorf("blob sha512 in capitals found %q, want %s", got, blob)
			}
			other := sha512.Sum512([]byte("no such image"))
			if res := r.Run(t, "blob", "sha512", hex.EncodeToString(other[:])); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "no blob has sha512") {
				t.Errorf("an unknown sum: %s", res)
			}

			f, out, _ := clitest.CompletionTestFactory(t)
			env := map[string]string{"SHAKENFIST_API_URL": r.Url, "SHAKENFIST_NAMESPACE": "system", "SHAKENFIST_KEY": clitest.TestKey}
			f.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			got, directive := clitest.RunComplete(t, f, out, "blob", "sha512", hash[:6])
			if !slices.Equal(got, []string{hash}) || directive != clitest.NoFileCompLine {
				t.Errorf("blob sha512 %s<TAB>: %q %s", hash[:6], got, directive)
			}
		})
	}
}
