// Package admin holds `shakectl admin`: cluster administration that is no
// one object's (sf-client's admin commands, client-python 6c25293c
// commandline/admin.py).
package admin

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmd groups the admin commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	lock := builders.NewGroupCmd(builders.GroupSpec{
		Noun: "lock", Short: "Inspect the cluster's locks",
		Example: "  shakectl admin lock list",
	}, NewCmdLockList(f))
	return builders.NewGroupCmd(builders.GroupSpec{
		Noun:  "admin",
		Short: "Cluster administration (system namespace only)",
		Long: `Cluster-wide administration that belongs to no one object. Every command
needs a key of the system namespace (another namespace: 401).`,
		Example: "  shakectl admin lock list",
	}, lock)
}

var lockResource = builders.Resource[client.Lock]{
	Singular: "lock", Plural: "locks",
	Columns: []builders.Column[client.Lock]{
		builders.Field("LOCK", func(l *client.Lock) string { return l.Key }),
		builders.Field("PID", func(l *client.Lock) string { return l.PID.String() }),
		builders.Field("NODE", func(l *client.Lock) string { return l.Node }),
		builders.Field("OPERATION", func(l *client.Lock) string { return l.Operation }),
	},
	Raw: func(l *client.Lock) json.RawMessage {
		return builders.WithRawField(cmdutil.RawOf(l.Raw, l), "lock", l.Key)
	},
}

// NewCmdLockList builds `shakectl admin lock list`.
func NewCmdLockList(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Verb(f, &cobra.Command{
		Use: "list", Short: "List the locks held in the cluster",
		Long: `List the locks held in the cluster right now (GET /admin/locks): each lock's
key, and the process (pid, node) holding it for what operation. A lock that
stays held points at a stuck daemon. The server answers an object keyed by
lock; -o json prints one object per lock, sorted, its key under "lock"
(sf-client --json prints the server's object).`,
		Example: `  shakectl admin lock list
  shakectl admin lock list --jq '.[] | select(.node == "sf-2") | .lock'`,
	}, func(s *cmdutil.Session, _ []string) error {
		locks, _, err := s.Client.AdminLocks(s.Ctx)
		if err != nil {
			return err
		}
		return s.PrintList(lockResource.List(locks))
	})
}
