package artifact

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmd groups the artifact commands, the verbs of sf-client's artifact
// group (client-python 6c25293 commandline/artifact.py).
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.NewGroupCmd(cmdutil.GroupSpec{
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
	c.AddCommand(cmdutil.NewMetadataCmds(f, cmdutil.MetadataSpec{
		Noun: "artifact", Arg: "ARTIFACT", Ref: "debian-12.qcow2", Complete: cmdutil.CompleteArtifactNames(f),
		StringValues: true,
		Get:          (*client.Client).GetArtifactMetadata, Set: (*client.Client).SetArtifactMetadata,
		Delete: (*client.Client).DeleteArtifactMetadata,
	})...)
	return c
}

// artifactResource is Artifact.external_view of shakenfist da448b1a
// (artifact.py): the view has no name, so NAME is the source URL's last
// element, as the server matches names.
var artifactResource = cmdutil.Resource[client.Artifact]{
	Singular: "artifact", Plural: "artifacts",
	Columns: []cmdutil.Column[client.Artifact]{
		cmdutil.Field("UUID", func(a *client.Artifact) string { return a.UUID }),
		cmdutil.Field("NAME", (*client.Artifact).Name),
		cmdutil.Field("NAMESPACE", func(a *client.Artifact) string { return a.Namespace }),
		cmdutil.Field("TYPE", func(a *client.Artifact) string { return a.ArtifactType }),
		cmdutil.Field("VERSIONS", versionsOf),
		cmdutil.StateField("STATE", func(a *client.Artifact) string { return a.State }),
		cmdutil.Field("SHARED", func(a *client.Artifact) string { return cmdutil.YesNo(a.Shared) }),
	},
	Fields: []cmdutil.Column[client.Artifact]{
		cmdutil.Field("uuid", func(a *client.Artifact) string { return a.UUID }),
		cmdutil.Field("name", (*client.Artifact).Name),
		cmdutil.Field("namespace", func(a *client.Artifact) string { return a.Namespace }),
		cmdutil.Field("type", func(a *client.Artifact) string { return a.ArtifactType }),
		cmdutil.StateField("state", func(a *client.Artifact) string { return a.State }),
		cmdutil.Field("source_url", func(a *client.Artifact) string { return a.SourceURL }),
		cmdutil.Field("blob_uuid", func(a *client.Artifact) string { return a.BlobUUID }),
		cmdutil.Field("index", func(a *client.Artifact) string { return cmdutil.Itoa(a.Index) }),
		cmdutil.Field("versions", versionsOf),
		cmdutil.Field("max_versions", func(a *client.Artifact) string { return cmdutil.Itoa(a.MaxVersions) }),
		cmdutil.Field("shared", func(a *client.Artifact) string { return cmdutil.YesNo(a.Shared) }),
		{Name: "metadata", Value: func(a *client.Artifact) string { return cmdutil.CompactJSON(a.Metadata) }, OmitEmpty: true},
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
