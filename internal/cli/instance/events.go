package instance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// eventResource is an event of shakenfist da448b1a (external_api/
// instance.py, eventlog): type, timestamp, fqdn, duration, message, extra.
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
		cmdutil.Field("EXTRA", func(e *client.Event) string { return compactRaw(e.Extra) }),
	},
	Raw: func(e *client.Event) json.RawMessage { return cmdutil.RawOf(e.Raw, e) },
}

// compactRaw renders a JSON value on one line, "" for none or null.
func compactRaw(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(raw) == 0 || string(raw) == "null" || json.Compact(&buf, raw) != nil {
		return ""
	}
	return buf.String()
}

// eventTypes are the server's event types (shakenfist da448b1a).
var eventTypes = []string{"audit", "mutate", "status", "usage", "resources", "prune", "historic"}

// NewCmdEvents builds `shakectl instance events`.
func NewCmdEvents(f *cmdutil.Factory) *cobra.Command {
	var q client.EventsQuery
	c := &cobra.Command{
		Use:   "events INSTANCE",
		Short: "List an instance's event trail",
		Long: `List the events the cluster recorded for an instance, newest first as the
server sends them: their type, where (fqdn), how long, the message and any
extra detail. Timestamps are RFC 3339 in UTC. -o json prints the server's
objects as sent.

--type asks the server for one type of event (audit, mutate, status, usage,
resources, prune, historic); --limit for at most that many, 1 to 1000 (the
bounds a 2026 server enforces; its default is 100).`,
		Example: `  shakectl instance events web1
  shakectl instance events web1 --type audit --limit 10
  shakectl instance events web1 -o json | jq -r '.[].message'`,
		Args:              cmdutil.RefArgs("INSTANCE"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteInstanceNames(f)),
		RunE: func(c *cobra.Command, args []string) error {
			if err := cmdutil.CheckEventsLimit(c, q.Limit); err != nil {
				return err
			}
			if q.Type != "" && !slices.Contains(eventTypes, q.Type) {
				return cmdutil.UsageErrorf("--type %q is not an event type; want one of %s", q.Type, strings.Join(eventTypes, ", "))
			}
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			events, err := s.Client.InstanceEvents(s.Ctx, args[0], q)
			if err != nil {
				return err
			}
			return s.PrintList(eventResource.List(events))
		},
	}
	c.Flags().StringVar(&q.Type, "type", "", "only events of this type (the server's event_type)")
	c.Flags().IntVar(&q.Limit, "limit", 0, "at most this many events, 1-1000 (the server's default: 100)")
	cmdutil.Must(c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(eventTypes, cobra.ShellCompDirectiveNoFileComp)))
	return c
}
