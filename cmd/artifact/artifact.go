package artifact

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmd groups the artifact commands, the verbs of sf-client's artifact
// group (client-python 6c25293 commandline/artifact.py).
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := builders.NewGroupCmd(builders.GroupSpec{
		Noun:  "artifact",
		Short: "List, inspect, cache, version, share and delete artifacts (images)",
		Long: `Work with Shakenfist artifacts: images fetched from a URL or uploaded,
snapshots of instance disks, and labels. An artifact is named by its UUID
or its name (the last element of its source URL); its versions are blobs,
numbered by an index that only grows.`,
		Example: `  shakectl artifact list
  shakectl artifact cache https://images.example/debian-12.qcow2
  shakectl artifact show debian-12.qcow2
  shakectl artifact versions debian-12.qcow2
  shakectl artifact delete debian-12.qcow2`,
	}, NewCmdList(f), NewCmdShow(f), NewCmdVersions(f), NewCmdEvents(f), NewCmdCache(f), NewCmdUpload(f), NewCmdDownload(f),
		NewCmdDelete(f), NewCmdDeleteVersion(f), NewCmdMaxVersions(f), NewCmdShare(f), NewCmdUnshare(f),
	)
	c.AddCommand(builders.NewMetadataCmds(f, builders.MetadataSpec{
		Noun: "artifact", Arg: "ARTIFACT", Ref: "debian-12.qcow2", Complete: complete.ArtifactNames(f),
		StringValues: true,
		Get:          (*client.Client).GetArtifactMetadata, Set: (*client.Client).SetArtifactMetadata,
		Delete: (*client.Client).DeleteArtifactMetadata,
	})...)
	return c
}

// artifactResource is Artifact.external_view of shakenfist da448b1a
// (artifact.py): the view has no name, so NAME is the source URL's last
// element, as the server matches names.
var artifactResource = builders.Resource[client.Artifact]{
	Singular: "artifact", Plural: "artifacts",
	Columns: []builders.Column[client.Artifact]{
		builders.Field("UUID", func(a *client.Artifact) string { return a.UUID }),
		builders.Field("NAME", (*client.Artifact).Name),
		builders.Field("NAMESPACE", func(a *client.Artifact) string { return a.Namespace }),
		builders.Field("TYPE", func(a *client.Artifact) string { return a.ArtifactType }),
		builders.Field("VERSIONS", versionsOf),
		builders.StateField("STATE", func(a *client.Artifact) string { return a.State }),
		builders.Field("SHARED", func(a *client.Artifact) string { return builders.YesNo(a.Shared) }),
	},
	Fields: []builders.Column[client.Artifact]{
		builders.Field("uuid", func(a *client.Artifact) string { return a.UUID }),
		builders.Field("name", (*client.Artifact).Name),
		builders.Field("namespace", func(a *client.Artifact) string { return a.Namespace }),
		builders.Field("type", func(a *client.Artifact) string { return a.ArtifactType }),
		builders.StateField("state", func(a *client.Artifact) string { return a.State }),
		builders.Field("source_url", func(a *client.Artifact) string { return a.SourceURL }),
		builders.Field("blob_uuid", func(a *client.Artifact) string { return a.BlobUUID }),
		builders.Field("index", func(a *client.Artifact) string { return strconv.Itoa(a.Index) }),
		builders.Field("versions", versionsOf),
		builders.Field("max_versions", func(a *client.Artifact) string { return strconv.Itoa(a.MaxVersions) }),
		builders.Field("shared", func(a *client.Artifact) string { return builders.YesNo(a.Shared) }),
		{Name: "metadata", Value: func(a *client.Artifact) string { return builders.CompactJSON(a.Metadata) }, OmitEmpty: true},
		{Name: "blobs", Value: blobsOf, OmitEmpty: true},
	},
	Raw: func(a *client.Artifact) json.RawMessage { return cmdutil.RawOf(a.Raw, a) },
}

// versionsOf is how many versions an artifact holds, as "N of INDEX"
// (sf-client's "versions" column: len(blobs) of the highest index).
func versionsOf(a *client.Artifact) string {
	return fmt.Sprintf("%d of %d", len(a.Blobs), a.Index)
}

// blobsOf lists the versions as INDEX=BLOB(SIZE), oldest first.
func blobsOf(a *client.Artifact) string {
	var parts []string
	for _, idx := range a.VersionIndexes() {
		b := a.Blobs[strconv.Itoa(idx)]
		p := fmt.Sprintf("%d=%s (%s)", idx, b.UUID, cmdutil.Bytes(b.Size))
		if len(b.Instances) > 0 {
			p += " used by " + strings.Join(b.Instances, ",")
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}
