package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdInstance groups the instance commands.
func NewCmdInstance(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "instance <command>",
		Aliases: []string{"instances"},
		Short:   "List, inspect, create, delete and power instances",
		Long: `Work with Shakenfist instances (virtual machines). An instance is named by
its UUID or its name.`,
		Example: `  shakectl instance list
  shakectl instance create web1 2 2048 -d 20@debian:12 -n net1
  shakectl instance show web1 -o json
  shakectl instance await web1 --state created --timeout 5m
  shakectl instance delete web1`,
	}
	c.AddCommand(
		NewCmdInstanceList(f),
		NewCmdInstanceShow(f),
		NewCmdInstanceCreate(f, nil),
		NewCmdInstanceDelete(f),
		NewCmdInstanceEvents(f),
		NewCmdInstanceAwait(f),
		newCmdInstanceAction(f, "poweron", "Power an instance on", (*client.Client).PowerOnInstance),
		newCmdInstanceAction(f, "poweroff", "Power an instance off (like pulling the plug)", (*client.Client).PowerOffInstance),
		NewCmdInstanceReboot(f),
		newCmdInstanceAction(f, "pause", "Pause an instance (it keeps its memory, its vCPUs stop)", (*client.Client).PauseInstance),
		newCmdInstanceAction(f, "unpause", "Unpause a paused instance", (*client.Client).UnpauseInstance),
	)
	return c
}

var instanceColumns = []output.Column{
	{Header: "UUID"}, {Header: "NAME"}, {Header: "NAMESPACE"}, {Header: "CPUS"}, {Header: "MEMORY"},
	{Header: "NODE"}, {Header: "STATE", Paint: output.StatePainter}, {Header: "POWER", Paint: output.StatePainter},
}

func instanceList(items []client.Instance) output.List {
	l := output.List{Columns: instanceColumns, Rows: [][]string{}, Raw: []json.RawMessage{}}
	for _, i := range items {
		l.Rows = append(l.Rows, []string{i.UUID, i.Name, i.Namespace, itoa(i.CPUs), itoa(i.Memory), i.Node, i.State, i.PowerState})
		l.Raw = append(l.Raw, rawOf(i.Raw, i))
	}
	return l
}

func instanceDetail(i *client.Instance) output.Detail {
	disks := make([]string, 0, len(i.DiskSpec))
	for _, d := range i.DiskSpec {
		s := itoa(d.Size)
		if d.Base != "" {
			s += "@" + d.Base
		}
		disks = append(disks, s)
	}
	fields := []output.Field{
		{Name: "uuid", Value: i.UUID},
		{Name: "name", Value: i.Name},
		{Name: "namespace", Value: i.Namespace},
		{Name: "cpus", Value: itoa(i.CPUs)},
		{Name: "memory", Value: itoa(i.Memory)},
		{Name: "disk", Value: strings.Join(disks, ", ")},
		{Name: "node", Value: i.Node},
		{Name: "state", Value: i.State, Paint: output.StatePainter},
		{Name: "power_state", Value: i.PowerState, Paint: output.StatePainter},
	}
	if i.ErrorMessage != "" {
		fields = append(fields, output.Field{Name: "error_message", Value: i.ErrorMessage, Paint: func(c output.ColourScheme, s string) string { return c.Red(s) }})
	}
	fields = append(fields, output.Field{Name: "metadata", Value: compactJSON(i.Metadata)})
	if i.SSHKey != "" {
		fields = append(fields, output.Field{Name: "ssh_key", Value: i.SSHKey})
	}
	if i.UserData != "" {
		fields = append(fields, output.Field{Name: "user_data", Value: fmt.Sprintf("(%d bytes of base64)", len(i.UserData))})
	}
	fields = append(fields, output.Field{Name: "version", Value: itoa(i.Version)})
	return output.Detail{Fields: fields, Raw: rawOf(i.Raw, i)}
}

// NewCmdInstanceList builds `shakectl instance list`.
func NewCmdInstanceList(f *Factory) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the namespace's instances",
		Long: `List the instances of the namespace you authenticate to (all namespaces for
the system namespace). Deleted instances are left out unless --all is given.

With -o table on a terminal the list is an aligned table; piped, and with
-o simple, each instance is one tab-separated line without a header:
UUID NAME NAMESPACE CPUS MEMORY(MiB) NODE STATE POWER.`,
		Example: `  shakectl instance list
  shakectl instance list -o simple | cut -f2
  shakectl instance list -o json | jq -r '.[] | select(.state=="error") | .uuid'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			items, err := s.client.ListInstances(s.ctx, all)
			if err != nil {
				return err
			}
			return s.printList(instanceList(items))
		},
	}
	c.Flags().BoolVarP(&all, "all", "a", false, "include deleted instances")
	return c
}

// NewCmdInstanceShow builds `shakectl instance show`.
func NewCmdInstanceShow(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show INSTANCE",
		Short: "Show one instance",
		Long: `Show one instance, named by UUID or name. -o json and -o yaml print the
server's object as it was sent, including fields shakectl does not know.`,
		Example: `  shakectl instance show web1
  shakectl instance show web1 -o json | jq .node`,
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			inst, err := s.client.GetInstance(s.ctx, args[0])
			if err != nil {
				return err
			}
			return s.printDetail(instanceDetail(inst))
		},
	}
}

// NewCmdInstanceDelete builds `shakectl instance delete`.
func NewCmdInstanceDelete(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete INSTANCE",
		Short: "Delete an instance",
		Long: `Delete an instance, named by UUID or name, and print it.

With --async pause (the default) or block, wait until the server reports it
deleted, within the deadline (--timeout, else 60s for pause and 1h for
block); with --async continue, return as soon as the server accepted the
delete. The cluster gets the instance's capacity back a few seconds after
the delete (the measured metrics lag is about 5.5s).`,
		Example: `  shakectl instance delete web1
  shakectl instance delete web1 --async continue`,
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			start := time.Now()
			inst, err := s.client.DeleteInstance(s.ctx, args[0])
			if err != nil {
				return err
			}
			if inst == nil {
				inst = &client.Instance{Name: args[0], State: "deleting"}
			}
			if s.cfg.Async != "continue" && inst.State != "deleted" {
				inst, err = s.waitForState(start, inst, args[0], "deleted", untilState("deleted"), s.cfg.Async == "pause")
				if inst == nil {
					return err
				}
				if perr := s.printDetail(instanceDetail(inst)); perr != nil {
					return perr
				}
				return err
			}
			return s.printDetail(instanceDetail(inst))
		},
	}
}

var eventColumns = []output.Column{
	{Header: "TIMESTAMP"}, {Header: "FQDN"}, {Header: "OPERATION"}, {Header: "PHASE"}, {Header: "DURATION"}, {Header: "MESSAGE"},
}

// NewCmdInstanceEvents builds `shakectl instance events`.
func NewCmdInstanceEvents(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "events INSTANCE",
		Short: "List an instance's event trail",
		Long: `List the events the cluster recorded for an instance: scheduling decisions
(including "schedule has no candidates at stage ..." for a refused create),
state changes and their durations. Timestamps are RFC 3339 in UTC.`,
		Example: `  shakectl instance events web1
  shakectl instance events web1 -o json | jq -r '.[].message'`,
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			events, err := s.client.InstanceEvents(s.ctx, args[0])
			if err != nil {
				return err
			}
			l := output.List{Columns: eventColumns, Rows: [][]string{}, Raw: []json.RawMessage{}}
			for _, e := range events {
				dur := ""
				if e.Duration != nil {
					dur = fmt.Sprintf("%.3fs", *e.Duration)
				}
				l.Rows = append(l.Rows, []string{formatUnix(e.Timestamp), e.FQDN, e.Operation, e.Phase, dur, e.Message})
				l.Raw = append(l.Raw, rawOf(nil, e))
			}
			return s.printList(l)
		},
	}
}

type instanceAction func(*client.Client, context.Context, string) (*client.Instance, error)

// newCmdInstanceAction builds the power commands, which all take one
// instance and print it as the server answered.
func newCmdInstanceAction(f *Factory, name, short string, act instanceAction) *cobra.Command {
	return &cobra.Command{
		Use:               name + " INSTANCE",
		Short:             short,
		Long:              short + ", named by UUID or name, and print the instance as the server answered.",
		Example:           fmt.Sprintf("  shakectl instance %s web1", name),
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			inst, err := act(s.client, s.ctx, args[0])
			if err != nil {
				return err
			}
			return s.printDetail(instanceDetail(inst))
		},
	}
}

// NewCmdInstanceReboot builds `shakectl instance reboot [--hard]`.
func NewCmdInstanceReboot(f *Factory) *cobra.Command {
	var hard bool
	c := &cobra.Command{
		Use:   "reboot INSTANCE",
		Short: "Reboot an instance (soft by default, --hard to reset it)",
		Long: `Reboot an instance, named by UUID or name. A soft reboot asks the guest to
restart (ACPI); --hard resets the virtual machine like a power button.`,
		Example: `  shakectl instance reboot web1
  shakectl instance reboot web1 --hard`,
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			inst, err := s.client.RebootInstance(s.ctx, args[0], hard)
			if err != nil {
				return err
			}
			return s.printDetail(instanceDetail(inst))
		},
	}
	c.Flags().BoolVar(&hard, "hard", false, "reset the instance instead of asking the guest to reboot")
	return c
}
