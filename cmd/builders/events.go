package builders

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/numflag"
)

// EventResource is an event of shakenfist da448b1a (external_api/
// instance.py, network.py, node.py, eventlog): type, timestamp, fqdn,
// duration, message, extra. Instances, networks and nodes share it.
var EventResource = Resource[client.Event]{
	Singular: "event", Plural: "events",
	Columns: []Column[client.Event]{
		Field("TIMESTAMP", func(e *client.Event) string { return FormatUnix(e.Timestamp) }),
		Field("TYPE", func(e *client.Event) string { return e.Type }),
		Field("FQDN", func(e *client.Event) string { return e.FQDN }),
		Field("DURATION", func(e *client.Event) string {
			if e.Duration == nil {
				return ""
			}
			return fmt.Sprintf("%.3fs", *e.Duration)
		}),
		Field("MESSAGE", func(e *client.Event) string { return e.Message }),
		Field("EXTRA", func(e *client.Event) string { return CompactRaw(e.Extra) }),
	},
	Raw: func(e *client.Event) json.RawMessage { return cmdutil.RawOf(e.Raw, e) },
}

// CompactRaw renders a JSON value on one line, "" for none or null.
func CompactRaw(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(raw) == 0 || string(raw) == "null" || json.Compact(&buf, raw) != nil {
		return ""
	}
	return buf.String()
}

// EventTypes are the server's event types (shakenfist da448b1a).
var EventTypes = []string{"audit", "mutate", "status", "usage", "resources", "prune", "historic"}

// EventsSpec is one kind of object's event trail.
type EventsSpec struct {
	Noun, Arg, Example string
	Complete           cobra.CompletionFunc
	Fetch              func(c *client.Client, ctx context.Context, ref string, q client.EventsQuery) ([]client.Event, error)
}

// NewEventsCmd builds "<noun> events REF" with sf-client's --type and
// --limit (client-python 6c25293c: -t/--type, -l/--limit).
func NewEventsCmd(f *cmdutil.Factory, spec EventsSpec) *cobra.Command {
	var q client.EventsQuery
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "events", Short: "List " + withArticle(spec.Noun) + "'s event trail",
		Long: `List the events the cluster recorded for ` + withArticle(spec.Noun) + `, newest first as the
server sends them: their type, where (fqdn), how long, the message and any
extra detail. Timestamps are RFC 3339 in UTC. -o json prints the server's
objects as sent.

--type asks the server for one type of event (audit, mutate, status, usage,
resources, prune, historic); --limit for at most that many, 1 to 1000 (the
bounds a 2026 server enforces; its default is 100).`,
		Example: spec.Example,
	}, func(s *cmdutil.Session, args []string) error {
		events, err := spec.Fetch(s.Client, s.Ctx, args[0], q)
		if err != nil {
			return err
		}
		return s.PrintList(EventResource.List(events))
	})
	Args(c, spec.Arg, spec.Complete)
	// The flags are checked before any request: a bad one is a usage error
	// with nothing sent.
	c.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if q.Type != "" && !slices.Contains(EventTypes, q.Type) {
			return cmdutil.UsageErrorf("--type %q is not an event type; want one of %s", q.Type, strings.Join(EventTypes, ", "))
		}
		return nil
	}
	c.Flags().StringVarP(&q.Type, "type", "t", "", "only events of this type (the server's event_type)")
	// A 2026 server validates --limit to 1–1000 (shakenfist-2026.md 2.4),
	// and a 2024 one took any integer, so the tighter bound holds for
	// both. Unset, the server's default (100).
	numflag.VarP(c.Flags(), &q.Limit, "limit", "l", 0, numflag.Between(1, client.MaxEventsLimit), "at most this many events (the server's default: 100)")
	cmdutil.Must(c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(EventTypes, cobra.ShellCompDirectiveNoFileComp)))
	return c
}
