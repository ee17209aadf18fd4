package artifact

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/client/poll"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdCache builds `shakectl artifact cache`. The server answers before
// it fetches (shakenfist da448b1a ArtifactsEndpoint.post queues a
// FetchImageTask), so the command waits as shakectl's other creates do,
// under --async, reading the artifact's event trail: that is where the end
// of the fetch, and a failure's reason, are recorded (client.
// ArtifactFetchOutcome). A version newer than before is not the sign: a
// fetch of an unchanged image adds none.
func NewCmdCache(f *cmdutil.Factory) *cobra.Command {
	var (
		shared    bool
		namespace string
	)
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "cache",
		Short: "Have the cluster fetch an image from a URL, and wait for it",
		Long: `Ask the cluster to fetch the image at URL into an artifact (created if new,
the existing one otherwise), wait for the fetch, and print the artifact.

The cluster fetches after it answers, so shakectl waits as --async says:
with pause (the default) up to 60s, then prints the artifact as it is
(still "initial" if the fetch has not ended; "artifact events" shows how it
goes); with block up to 1h; with continue it prints the answer at once. A
--timeout that runs out exits 124. A fetch that fails exits 1 with the
cluster's reason (a 2024 cluster records every failure as "DNS error"); a
failed refresh of an image the cluster already holds says that the old copy
is still served.

The fetch is over when the cluster records "artifact fetch complete": a
first fetch adds version 1 and makes the artifact "created"; a fetch of an
image that has not changed at its URL adds no version. Only the system
namespace may make shared artifacts (--shared).`,
		Example: `  shakectl artifact cache https://images.example/debian-12.qcow2
  shakectl artifact cache debian:12 --shared --async block
  shakectl artifact cache https://images.example/big.qcow2 --timeout 10m`,
	}, func(s *cmdutil.Session, args []string) error {
		start := time.Now()
		a, err := s.Client.CacheArtifact(s.Ctx, args[0], shared, namespace)
		if err != nil {
			return err
		}
		if s.Cfg.Async.Waits() {
			a, err = awaitFetch(s, start, a)
		}
		if err != nil {
			return err
		}
		return s.PrintDetail(artifactResource.Detail(a))
	})
	builders.Args(c, "URL")
	c.Flags().BoolVar(&shared, "shared", false, "share the artifact with every namespace (system only)")
	c.Flags().StringVar(&namespace, "namespace", "", "the namespace to hold the artifact")
	cmdutil.Must(c.RegisterFlagCompletionFunc("namespace", complete.NamespaceNames(f)))
	return c
}

// awaitFetch polls the artifact and its events until the fetch the cache
// request queued has ended, within the --timeout or --async budget
// counted from start. It answers the artifact as last seen.
func awaitFetch(s *cmdutil.Session, start time.Time, a *client.Artifact) (*client.Artifact, error) {
	name := a.Name()
	type fetch struct {
		artifact *client.Artifact
		outcome  client.FetchOutcome
	}
	last, err := builders.Await(s, builders.Wait[fetch]{
		Poll: poll.Poll[*fetch]{
			Get: func(ctx context.Context) (*fetch, error) {
				got, err := s.Client.GetArtifact(ctx, a.UUID)
				if err != nil {
					return nil, err
				}
				events, err := s.Client.ArtifactEvents(ctx, a.UUID, client.EventsQuery{})
				if err != nil {
					return nil, err
				}
				return &fetch{got, client.ArtifactFetchOutcome(got, events)}, nil
			},
			Done: func(f *fetch) (bool, error) { return f.outcome.Done, nil },
		},
		Start: start,
		// --async pause forgives running out of its own 60s, never a
		// --timeout the user gave (exit 124).
		OnTimeout: s.Cfg.Async.OnTimeout(),
		Say: func(f *fetch) builders.Said {
			said := builders.Said{Subject: "artifact " + name, Unmet: "was not fetched", Later: fmt.Sprintf("\"shakectl artifact events %s\" shows how it goes", name)}
			if f != nil {
				said.State = cmdutil.OrUnknown(f.artifact.State)
			}
			return said
		},
	})
	if last == nil {
		return a, err
	}
	if err != nil {
		return last.artifact, err
	}
	return last.artifact, last.outcome.Err(name)
}
