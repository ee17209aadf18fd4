package blob

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmd groups the blob commands (client-python 6c25293
// commandline/blob.py: list, show, sha512, set-metadata, delete-metadata).
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := builders.NewGroupCmd(builders.GroupSpec{
		Noun:  "blob",
		Short: "List and inspect blobs, the stored bytes behind artifact versions",
		Long: `A blob is one stored file: each version of an artifact (an image, a
snapshot, a label) is a blob, and one blob may be the version of several
artifacts. Blobs are named by UUID.`,
		Example: `  shakectl blob list
  shakectl blob show 578da8b6-eb98-4e10-bb36-e4d4d763d312
  sha512sum image.qcow2 | cut -d' ' -f1 | xargs shakectl blob sha512
  shakectl blob events 578da8b6-eb98-4e10-bb36-e4d4d763d312`,
	}, NewCmdList(f), NewCmdShow(f), NewCmdSHA512(f),
		NewCmdEvents(f)) // events.go (2026 servers)
	// set-metadata goes to the blob's own route (PUT
	// /blobs/{uuid}/metadata/{key}, shakenfist da448b1a blob.py), where
	// sf-client 6c25293c sends the instance route by mistake. A blob's
	// metadata has no route of its own to read: blob show -o json has it.
	c.AddCommand(builders.NewMetadataCmds(f, builders.MetadataSpec{
		Noun: "blob", Arg: "BLOB", Ref: "578da8b6-eb98-4e10-bb36-e4d4d763d312", Complete: complete.BlobUUIDs(f),
		StringValues: true,
		Set:          (*client.Client).SetBlobMetadata, Delete: (*client.Client).DeleteBlobMetadata,
	})...)
	return c
}

func sha(b *client.Blob) string {
	if b.SHA512 == nil {
		return ""
	}
	return *b.SHA512
}

// blobResource is Blob.external_view of shakenfist da448b1a (blob.py).
var blobResource = builders.Resource[client.Blob]{
	Singular: "blob", Plural: "blobs",
	Columns: []builders.Column[client.Blob]{
		builders.Field("UUID", func(b *client.Blob) string { return b.UUID }),
		builders.StateField("STATE", func(b *client.Blob) string { return b.State }),
		builders.Field("SIZE", func(b *client.Blob) string { return cmdutil.Bytes(b.Size) }),
		builders.Field("FORMAT", func(b *client.Blob) string { return b.FileFormat }),
		builders.Field("REFS", func(b *client.Blob) string { return strconv.Itoa(b.ReferenceCount) }),
		builders.Field("LOCATIONS", func(b *client.Blob) string { return strings.Join(b.Locations, ",") }),
	},
	Raw: func(b *client.Blob) json.RawMessage { return cmdutil.RawOf(b.Raw, b) },
}
