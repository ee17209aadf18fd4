package blob

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdSetMetadata builds `shakectl blob set-metadata`, sf-client's
// `blob set-metadata UUID KEY VALUE` (client-python 6c25293c
// commandline/blob.py), sent to the blob's own route (PUT
// /blobs/{uuid}/metadata/{key}, shakenfist da448b1a blob.py), where that
// sf-client sends the instance route by mistake.
func NewCmdSetMetadata(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewVerbCmd(f, cmdutil.VerbSpec{
		Use:   "set-metadata",
		Short: "Set a metadata key of a blob",
		Long: `Set KEY to VALUE (a string) in the blob's metadata; blob show -o json
prints it. The server refuses an empty value (exit 1) and an unknown blob
(exit 5). Prints nothing.`,
		Example:  `  shakectl blob set-metadata 578da8b6-eb98-4e10-bb36-e4d4d763d312 built-by ci`,
		Args:     []string{"BLOB", "KEY", "VALUE"},
		Complete: []cobra.CompletionFunc{cmdutil.CompleteBlobUUIDs(f)},
		Run: func(s *cmdutil.Session, args []string) error {
			return s.Client.SetBlobMetadata(s.Ctx, args[0], args[1], args[2])
		},
	})
}

// NewCmdDeleteMetadata builds `shakectl blob delete-metadata` (DELETE
// /blobs/{uuid}/metadata/{key}, BlobMetadataEndpoint.delete).
func NewCmdDeleteMetadata(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewVerbCmd(f, cmdutil.VerbSpec{
		Use:   "delete-metadata",
		Short: "Delete a metadata key of a blob",
		Long: `Remove KEY from the blob's metadata; a key it does not have is no error, as
on the server. Prints nothing.`,
		Example:  `  shakectl blob delete-metadata 578da8b6-eb98-4e10-bb36-e4d4d763d312 built-by`,
		Args:     []string{"BLOB", "KEY"},
		Complete: []cobra.CompletionFunc{cmdutil.CompleteBlobUUIDs(f)},
		Run: func(s *cmdutil.Session, args []string) error {
			return s.Client.DeleteBlobMetadata(s.Ctx, args[0], args[1])
		},
	})
}
