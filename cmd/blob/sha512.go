package blob

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// sha512Detail prints what blob show prints; -o json|yaml is the server's
// object as sent (BlobChecksumsEndpoint.get's external_view plus
// instances), without show's added "artifacts", so a script sees exactly
// what sf-client's `blob sha512 -o json` sees.
var sha512Detail = builders.Resource[referencedBlob]{
	Singular: "blob", Plural: "blobs",
	Fields: blobDetail.Fields,
	Raw:    func(b *referencedBlob) json.RawMessage { return cmdutil.RawOf(b.Raw, &b.Blob) },
}

// checkSHA512 refuses, before anything is sent, what cannot be a sha512:
// the server would look it up and answer 200 null, a "not found" that
// hides a typo or a sha256 pasted by mistake.
func checkSHA512(hash string) error {
	isHex := strings.Trim(strings.ToLower(hash), "0123456789abcdef") == ""
	if isHex && len(hash) == 128 {
		return nil
	}
	what := "not hex"
	switch {
	case isHex && len(hash) == 64:
		what = "64 hex digits, a sha256"
	case isHex:
		what = strconv.Itoa(len(hash)) + " hex digits"
	}
	return cmdutil.UsageErrorf("HASH is not a sha512 (%s): a sha512 is 128 hex digits, as sha512sum prints", what)
}

// NewCmdSHA512 builds `shakectl blob sha512`, sf-client's `blob sha512
// HASH` (client-python 6c25293c commandline/blob.py blob_sha512, GET
// /blob_checksums/sha512/HASH; shakenfist da448b1a blob.py
// BlobChecksumsEndpoint.get).
func NewCmdSHA512(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefDetailCmd(f, sha512Detail, builders.RefDetailSpec[referencedBlob]{
		Use: "sha512", Arg: "HASH", Short: "Find the blob with a sha512",
		Long: `Find the blob whose sha512 is HASH and show it as blob show does: a pipeline
can ask whether the cluster already holds an image before uploading it. The
server matches only blobs it has finished and verified (state created, with
a sha512 computed); when none matches it answers nothing, and shakectl says
so and exits 5. HASH is 128 hex digits (either case); anything else is
refused before a request is sent (exit 2). -o json prints the server's blob
as sent, with the instances using it.`,
		Example: `  sha512sum image.qcow2 | cut -d' ' -f1 | xargs shakectl blob sha512
  shakectl blob sha512 "$(sha512sum image.qcow2 | cut -d' ' -f1)" -o json --jq .uuid`,
		Check:    checkSHA512,
		Complete: complete.BlobSHA512s(f),
		Call: func(c *client.Client, ctx context.Context, hash string) (*referencedBlob, error) {
			// The server compares the hash as a string with the hex
			// digest it stored (hashlib's, lower case).
			hash = strings.ToLower(hash)
			b, err := c.BlobBySHA512(ctx, hash)
			if err != nil {
				return nil, err
			}
			if b == nil {
				return nil, cmdutil.NotFoundf("no blob has sha512 %s (the server matches only created blobs whose sha512 it has computed)", hash)
			}
			refs, err := c.ArtifactsOfBlob(ctx, b.UUID)
			if err != nil {
				return nil, err
			}
			return &referencedBlob{Blob: *b, Artifacts: refs}, nil
		},
	})
}
