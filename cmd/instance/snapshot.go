package instance

import (
	"encoding/json"
	"sort"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// startedSnapshot is one disk of POST /instances/{ref}/snapshot's answer,
// with the device it is keyed by.
type startedSnapshot struct {
	Device string `json:"device"`
	client.SnapshotStarted
}

var startedResource = builders.Resource[startedSnapshot]{
	Singular: "snapshot", Plural: "snapshots",
	Columns: []builders.Column[startedSnapshot]{
		builders.Field("DEVICE", func(s *startedSnapshot) string { return s.Device }),
		builders.Field("ARTIFACT", func(s *startedSnapshot) string { return s.ArtifactUUID }),
		builders.Field("BLOB", func(s *startedSnapshot) string { return s.BlobUUID }),
		builders.Field("SOURCE", func(s *startedSnapshot) string { return s.SourceURL }),
	},
	Raw: func(s *startedSnapshot) json.RawMessage { return cmdutil.RawOf(nil, s) },
}

// NewCmdSnapshot builds `shakectl instance snapshot`.
func NewCmdSnapshot(f *cmdutil.Factory) *cobra.Command {
	var req client.SnapshotRequest
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "snapshot", Short: "Snapshot an instance's disks",
		Long: `Snapshot an instance's first disk, every disk (--all) or one device
(--device vdb), flattened unless --thin keeps it on top of its base image
(sf-client's flags). It prints one line per disk: the snapshot artifact and
the blob that will hold it. The blob fills in the background: "shakectl
instance show INSTANCE --snapshots" shows when it is created.`,
		Example: `  shakectl instance snapshot web1
  shakectl instance snapshot web1 --all --thin`,
	}, func(s *cmdutil.Session, args []string) error {
		byDevice, err := s.Client.SnapshotInstance(s.Ctx, args[0], req)
		if err != nil {
			return err
		}
		items := make([]startedSnapshot, 0, len(byDevice))
		for dev, st := range byDevice {
			items = append(items, startedSnapshot{Device: dev, SnapshotStarted: st})
		}
		sort.Slice(items, func(i, j int) bool { return items[i].Device < items[j].Device })
		return s.PrintList(startedResource.List(items))
	})
	builders.Args(c, "INSTANCE", complete.InstanceNames(f))
	c.Flags().BoolVarP(&req.All, "all", "a", false, "snapshot every disk")
	c.Flags().StringVarP(&req.Device, "device", "d", "", "snapshot this device (vda, vdb, ...)")
	c.Flags().BoolVar(&req.Thin, "thin", false, "keep the snapshot on top of its base image instead of flattening it")
	return c
}
