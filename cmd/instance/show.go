package instance

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdShow builds `shakectl instance show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	var snapshots func(s *cmdutil.Session, ref string, d *output.Detail) error
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "show",
		Short: "Show one instance",
		Long: `Show one instance, named by UUID or name, with its interfaces (network, MAC,
IPv4, floating address). -o json and -o yaml print the server's object as
it was sent, including fields shakectl does not know. --snapshots adds the
instance's snapshots (GET /instances/REF/snapshot), under "snapshots" in
-o json.

A 2026 server names the instance's node by its UUID; shakectl adds the
node's name (node_name) when the key may list nodes (the system
namespace). A 2024 server names the node by its name.`,
		Example: `  shakectl instance show web1
  shakectl instance show web1 -o json | jq '.interfaces[].ipv4'
  shakectl instance show web1 --snapshots`,
	}, func(s *cmdutil.Session, args []string) error {
		inst, err := s.Client.GetInstance(s.Ctx, args[0])
		if err != nil {
			return err
		}
		var names nodeNames
		if rendersFields(s) {
			names = resolveNodeNames(s, *inst)
		}
		d := instanceResourceWith(names).Detail(inst)
		if err := snapshots(s, args[0], &d); err != nil {
			return err
		}
		return s.PrintDetail(d)
	})
	builders.Args(c, "INSTANCE", complete.InstanceNames(f))
	snapshots = withSnapshots(c)
	return c
}

// rendersFields says the output is shakectl's own fields (table, simple,
// columns), not the server's object (json, yaml), so node names are worth
// a request.
func rendersFields(s *cmdutil.Session) bool {
	return !s.Cfg.Output.Data() && s.Cfg.JQ == ""
}

// withSnapshots is sf-client's show -s/--snapshots: each snapshot as
// "UUID STATE SIZE" in the detail, and the server's list in raw.
func withSnapshots(c *cobra.Command) func(s *cmdutil.Session, ref string, d *output.Detail) error {
	var on bool
	c.Flags().BoolVarP(&on, "snapshots", "s", false, "also list the instance's snapshots")
	return func(s *cmdutil.Session, ref string, d *output.Detail) error {
		if !on {
			return nil
		}
		snaps, err := s.Client.ListInstanceSnapshots(s.Ctx, ref)
		if err != nil {
			return err
		}
		lines := make([]string, 0, len(snaps))
		raws := make([]json.RawMessage, 0, len(snaps))
		for _, sn := range snaps {
			lines = append(lines, strings.TrimSpace(sn.UUID+" "+sn.State+" "+strconv.FormatInt(sn.Size, 10)))
			raws = append(raws, cmdutil.RawOf(sn.Raw, sn))
		}
		d.Fields = append(d.Fields, output.Field{Name: "snapshots", Value: strings.Join(lines, "; ")})
		d.Raw = builders.WithRawField(d.Raw, "snapshots", raws)
		return nil
	}
}
