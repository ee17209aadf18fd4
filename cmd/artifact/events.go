package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/internal/numflag"
)

// NewCmdEvents builds `shakectl artifact events`. Its rows are
// builders.EventResource, the eventlog view (shakenfist da448b1a) that
// instances, networks and nodes share; its flags are checked as they were
// before builders.NewEventsCmd existed (any --type; a --limit of 0, the
// server's default, or more, now up to the 1000 every events call sends).
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	var q client.EventsQuery
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "events", Short: "List an artifact's event trail",
		Long: `List the events the cluster recorded for an artifact, newest first: fetches,
versions added and removed, shares, metadata changes, deletes. --type asks
for one type of event, --limit for at most that many (the server's default
is 100).`,
		Example: `  shakectl artifact events debian-12.qcow2 --limit 5
  shakectl artifact events debian-12.qcow2 -o json --jq '.[].message'`,
	}, func(s *cmdutil.Session, args []string) error {
		events, err := s.Client.ArtifactEvents(s.Ctx, args[0], q)
		if err != nil {
			return err
		}
		return s.PrintList(builders.EventResource.List(events))
	})
	builders.Args(c, "ARTIFACT", complete.ArtifactNames(f))
	c.Flags().StringVarP(&q.Type, "type", "t", "", "only events of this type (audit, mutate, status, ...)")
	numflag.VarP(c.Flags(), &q.Limit, "limit", "l", 0, numflag.Between(0, client.MaxEventsLimit), "at most this many events (0: the server's default)")
	return c
}
