package label

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmd groups the label commands (client-python 6c25293
// commandline/label.py has update; list and delete follow the server's
// label.py, GET /artifacts and DELETE /label/<name>).
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := builders.NewGroupCmd(builders.GroupSpec{
		Noun:  "label",
		Short: "List, point and delete labels: named, versioned pointers to blobs",
		Long: `A label is an artifact of type "label" whose versions are blobs you choose:
"label update prod BLOB" makes prod's newest version that blob, so an
instance created from the label boots the blob. A label is NAME (in your
namespace) or NAMESPACE/NAME.`,
		Example: `  shakectl label list
  shakectl label update debian-prod 578da8b6-eb98-4e10-bb36-e4d4d763d312
  shakectl label delete debian-prod`,
	}, NewCmdList(f), NewCmdShow(f), NewCmdUpdate(f), NewCmdDelete(f))
	return c
}

// labelResource is a label's artifact view (label.py da448b1a
// label_example): source_url sf://label/<namespace>/<name>.
var labelResource = builders.Resource[client.Artifact]{
	Singular: "label", Plural: "labels",
	Columns: []builders.Column[client.Artifact]{
		builders.Field("NAME", (*client.Artifact).Name),
		builders.Field("NAMESPACE", func(a *client.Artifact) string { return a.Namespace }),
		builders.Field("BLOB", func(a *client.Artifact) string { return a.BlobUUID }),
		builders.Field("INDEX", func(a *client.Artifact) string { return strconv.Itoa(a.Index) }),
		builders.StateField("STATE", func(a *client.Artifact) string { return a.State }),
		builders.Field("UUID", func(a *client.Artifact) string { return a.UUID }),
	},
	Fields: []builders.Column[client.Artifact]{
		builders.Field("name", (*client.Artifact).Name),
		builders.Field("namespace", func(a *client.Artifact) string { return a.Namespace }),
		builders.Field("uuid", func(a *client.Artifact) string { return a.UUID }),
		builders.StateField("state", func(a *client.Artifact) string { return a.State }),
		builders.Field("source_url", func(a *client.Artifact) string { return a.SourceURL }),
		builders.Field("blob_uuid", func(a *client.Artifact) string { return a.BlobUUID }),
		builders.Field("index", func(a *client.Artifact) string { return strconv.Itoa(a.Index) }),
		builders.Field("versions", func(a *client.Artifact) string { return strconv.Itoa(len(a.Blobs)) }),
		builders.Field("max_versions", func(a *client.Artifact) string { return strconv.Itoa(a.MaxVersions) }),
	},
	Raw: func(a *client.Artifact) json.RawMessage { return cmdutil.RawOf(a.Raw, a) },
}

// checkLabelName refuses, before any request, what the server would: a
// name of more than NAMESPACE/NAME (LabelHierarchyTooDeep), or one with
// an empty part.
func checkLabelName(name string) error {
	parts := strings.Split(name, "/")
	if len(parts) > 2 || slices.Contains(parts, "") {
		return cmdutil.UsageErrorf("LABEL %q is not NAME or NAMESPACE/NAME", name)
	}
	return nil
}
