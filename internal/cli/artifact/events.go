package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// eventResource is an event of the artifact's event log (eventlog,
// shakenfist da448b1a): type, timestamp, fqdn, duration, message, extra.
var eventResource = cmdutil.Resource[client.Event]{
	Singular: "event", Plural: "events",
	Columns: []cmdutil.Column[client.Event]{
		cmdutil.Field("TIMESTAMP", func(e *client.Event) string { return cmdutil.FormatUnix(e.Timestamp) }),
		cmdutil.Field("TYPE", func(e *client.Event) string { return e.Type }),
		cmdutil.Field("FQDN", func(e *client.Event) string { return e.FQDN }),
		cmdutil.Field("DURATION", func(e *client.Event) string {
			if e.Duration == nil {
				return ""
			}
			return fmt.Sprintf("%.3fs", *e.Duration)
		}),
		cmdutil.Field("MESSAGE", func(e *client.Event) string { return e.Message }),
		cmdutil.Field("EXTRA", func(e *client.Event) string {
			var buf bytes.Buffer
			if len(e.Extra) == 0 || string(e.Extra) == "null" || json.Compact(&buf, e.Extra) != nil {
				return ""
			}
			return buf.String()
		}),
	},
	Raw: func(e *client.Event) json.RawMessage { return cmdutil.RawOf(e.Raw, e) },
}

// NewCmdEvents builds `shakectl artifact events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	var q client.EventsQuery
	c := &cobra.Command{
		Use:   "events ARTIFACT",
		Short: "List an artifact's event trail",
		Long: `List the events the cluster recorded for an artifact, newest first: fetches,
versions added and removed, shares, metadata changes, deletes. --type asks
for one type of event, --limit for at most that many (the server's default
is 100).`,
		Example: `  shakectl artifact events debian-12.qcow2 --limit 5
  shakectl artifact events debian-12.qcow2 -o json --jq '.[].message'`,
		Args:              cmdutil.RefArgs("ARTIFACT"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteArtifactNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			if q.Limit < 0 {
				return cmdutil.UsageErrorf("--limit must be at least 1")
			}
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			events, err := s.Client.ArtifactEvents(s.Ctx, args[0], q)
			if err != nil {
				return err
			}
			return s.PrintList(eventResource.List(events))
		},
	}
	c.Flags().StringVarP(&q.Type, "type", "t", "", "only events of this type (audit, mutate, status, ...)")
	c.Flags().IntVarP(&q.Limit, "limit", "l", 0, "at most this many events")
	return c
}
