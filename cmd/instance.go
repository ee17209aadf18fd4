package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
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
		newCmdInstanceAction(f, "poweron", "Power an instance on", client.PowerOn),
		newCmdInstanceAction(f, "poweroff", "Power an instance off (like pulling the plug)", client.PowerOff),
		NewCmdInstanceReboot(f),
		newCmdInstanceAction(f, "pause", "Pause an instance (it keeps its memory, its vCPUs stop)", client.Pause),
		newCmdInstanceAction(f, "unpause", "Unpause a paused instance", client.Unpause),
	)
	return c
}

// instanceResource is the instance view of shakenfist da448b1a
// (external_api/instance.py): interfaces carry the addresses.
var instanceResource = resource[client.Instance]{
	singular: "instance", plural: "instances",
	columns: []column[client.Instance]{
		field("UUID", func(i *client.Instance) string { return i.UUID }),
		field("NAME", func(i *client.Instance) string { return i.Name }),
		field("NAMESPACE", func(i *client.Instance) string { return i.Namespace }),
		field("CPUS", func(i *client.Instance) string { return itoa(i.CPUs) }),
		field("MEMORY", func(i *client.Instance) string { return itoa(i.Memory) }),
		field("NODE", func(i *client.Instance) string { return i.Node }),
		stateField("STATE", func(i *client.Instance) string { return i.State }),
		stateField("POWER", func(i *client.Instance) string { return i.PowerState }),
		field("ADDRESSES", instanceAddresses),
	},
	fields: []column[client.Instance]{
		field("uuid", func(i *client.Instance) string { return i.UUID }),
		field("name", func(i *client.Instance) string { return i.Name }),
		field("namespace", func(i *client.Instance) string { return i.Namespace }),
		field("cpus", func(i *client.Instance) string { return itoa(i.CPUs) }),
		field("memory", func(i *client.Instance) string { return itoa(i.Memory) }),
		field("disk", instanceDisks),
		field("node", func(i *client.Instance) string { return i.Node }),
		stateField("state", func(i *client.Instance) string { return i.State }),
		stateField("power_state", func(i *client.Instance) string { return i.PowerState }),
		{name: "error_message", value: func(i *client.Instance) string { return i.ErrorMessage },
			paint: func(c output.ColourScheme, s string) string { return c.Red(s) }, omitEmpty: true},
		{name: "interfaces", value: instanceInterfaces, omitEmpty: true},
		field("metadata", func(i *client.Instance) string { return compactJSON(i.Metadata) }),
		{name: "ssh_key", value: func(i *client.Instance) string { return i.SSHKey }, omitEmpty: true},
		{name: "user_data", value: func(i *client.Instance) string {
			if i.UserData == "" {
				return ""
			}
			return fmt.Sprintf("(%d bytes of base64)", len(i.UserData))
		}, omitEmpty: true},
		field("version", func(i *client.Instance) string { return itoa(i.Version) }),
	},
	raw: func(i *client.Instance) json.RawMessage { return rawOf(i.Raw, i) },
}

func instanceDisks(i *client.Instance) string {
	disks := make([]string, 0, len(i.DiskSpec))
	for _, d := range i.DiskSpec {
		s := itoa(d.Size)
		if d.Base != "" {
			s += "@" + d.Base
		}
		disks = append(disks, s)
	}
	return strings.Join(disks, ", ")
}

// instanceAddresses lists the IPv4 addresses, each floating address after
// its interface's ("10.0.0.5 (192.168.1.20)").
func instanceAddresses(i *client.Instance) string {
	var out []string
	for _, ifc := range i.Interfaces {
		a := ifc.IPv4
		if ifc.Floating != "" {
			a += " (" + ifc.Floating + ")"
		}
		if a != "" {
			out = append(out, a)
		}
	}
	return strings.Join(out, ", ")
}

// instanceInterfaces shows each interface as NETWORK MAC IPV4 [floating F].
func instanceInterfaces(i *client.Instance) string {
	var out []string
	for _, ifc := range i.Interfaces {
		s := strings.TrimSpace(ifc.NetworkUUID + " " + ifc.MACAddr + " " + ifc.IPv4)
		if ifc.Floating != "" {
			s += " floating " + ifc.Floating
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func instanceDetail(i *client.Instance) output.Detail { return instanceResource.detail(i) }

// NewCmdInstanceList builds `shakectl instance list`.
func NewCmdInstanceList(f *Factory) *cobra.Command {
	return newListCmd(f, instanceResource, listSpec[client.Instance]{
		short: "List the namespace's instances",
		long: `List the instances of the namespace you authenticate to (all namespaces for
the system namespace). Deleted instances are left out unless --all is given.

With -o table on a terminal the list is an aligned table; piped, and with
-o simple, each instance is one tab-separated line without a header:
UUID NAME NAMESPACE CPUS MEMORY(MiB) NODE STATE POWER ADDRESSES.`,
		example: `  shakectl instance list
  shakectl instance list -o simple | cut -f2
  shakectl instance list -o json | jq -r '.[] | select(.state | endswith("error")) | .uuid'`,
		withAll: true,
		fetch:   (*client.Client).ListInstances,
	})
}

// NewCmdInstanceShow builds `shakectl instance show`.
func NewCmdInstanceShow(f *Factory) *cobra.Command {
	c := newShowCmd(f, instanceResource, showSpec[client.Instance]{
		arg: "INSTANCE", short: "Show one instance",
		long: `Show one instance, named by UUID or name, with its interfaces (network, MAC,
IPv4, floating address). -o json and -o yaml print the server's object as
it was sent, including fields shakectl does not know.`,
		example: `  shakectl instance show web1
  shakectl instance show web1 -o json | jq '.interfaces[].ipv4'`,
		complete: completeInstanceNames(f),
		get:      (*client.Client).GetInstance,
	})
	return c
}

// NewCmdInstanceDelete builds `shakectl instance delete`.
func NewCmdInstanceDelete(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete INSTANCE",
		Short: "Delete an instance",
		Long: `Delete an instance, named by UUID or name, and print it.

The server answers with the instance as it was and deletes it in the
background. With --async pause (the default) or block, wait until the
server reports it deleted, within the deadline (--timeout, else 60s for
pause and 1h for block); with --async continue, return as soon as the
server accepted the delete.`,
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
			if s.cfg.Async != "continue" && inst.State != "deleted" {
				inst, err = waitFor(s, watchedInstance(s.client), start, inst, args[0], "deleted", untilState("deleted"), s.cfg.Async == "pause")
			}
			return printResult(s, instanceDetail, inst, err)
		},
	}
}

// eventResource is an event of shakenfist da448b1a (external_api/
// instance.py, eventlog): type, timestamp, fqdn, duration, message, extra.
var eventResource = resource[client.Event]{
	singular: "event", plural: "events",
	columns: []column[client.Event]{
		field("TIMESTAMP", func(e *client.Event) string { return formatUnix(e.Timestamp) }),
		field("TYPE", func(e *client.Event) string { return e.Type }),
		field("FQDN", func(e *client.Event) string { return e.FQDN }),
		field("DURATION", func(e *client.Event) string {
			if e.Duration == nil {
				return ""
			}
			return fmt.Sprintf("%.3fs", *e.Duration)
		}),
		field("MESSAGE", func(e *client.Event) string { return e.Message }),
		field("EXTRA", func(e *client.Event) string { return compactRaw(e.Extra) }),
	},
	raw: func(e *client.Event) json.RawMessage { return rawOf(e.Raw, e) },
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

// NewCmdInstanceEvents builds `shakectl instance events`.
func NewCmdInstanceEvents(f *Factory) *cobra.Command {
	var q client.EventsQuery
	c := &cobra.Command{
		Use:   "events INSTANCE",
		Short: "List an instance's event trail",
		Long: `List the events the cluster recorded for an instance, newest first as the
server sends them: their type, where (fqdn), how long, the message and any
extra detail. Timestamps are RFC 3339 in UTC. -o json prints the server's
objects as sent.

--type asks the server for one type of event (audit, mutate, status, usage,
resources, prune, historic); --limit for at most that many (the server's
default is 100).`,
		Example: `  shakectl instance events web1
  shakectl instance events web1 --type audit --limit 10
  shakectl instance events web1 -o json | jq -r '.[].message'`,
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			if q.Limit < 0 {
				return usageErrorf("--limit must be at least 1")
			}
			if q.Type != "" && !slices.Contains(eventTypes, q.Type) {
				return usageErrorf("--type %q is not an event type; want one of %s", q.Type, strings.Join(eventTypes, ", "))
			}
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			events, err := s.client.InstanceEvents(s.ctx, args[0], q)
			if err != nil {
				return err
			}
			return s.printList(eventResource.list(events))
		},
	}
	f.defineFlags(c, func() {
		c.Flags().StringVar(&q.Type, "type", "", "only events of this type (the server's event_type)")
		c.Flags().IntVar(&q.Limit, "limit", 0, "at most this many events (the server's limit; default 100)")
		must(c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(eventTypes, cobra.ShellCompDirectiveNoFileComp)))
	})
	return c
}

// runInstancePower sends one power action. The real server answers 200
// with body null: the action was accepted and there is nothing to print on
// stdout; an answer with the instance is printed.
func runInstancePower(f *Factory, ref string, action client.PowerAction) error {
	s, err := newSession(f, nil)
	if err != nil {
		return err
	}
	defer s.close()
	inst, err := s.client.InstancePower(s.ctx, ref, action)
	if err != nil {
		return err
	}
	if inst == nil {
		if !s.cfg.Quiet {
			fmt.Fprintf(s.f.IOStreams.ErrOut, "instance %s: %s done\n", ref, action)
		}
		return nil
	}
	return s.printDetail(instanceDetail(inst))
}

// newCmdInstanceAction builds the power commands, which all take one
// instance.
func newCmdInstanceAction(f *Factory, name, short string, action client.PowerAction) *cobra.Command {
	return &cobra.Command{
		Use:   name + " INSTANCE",
		Short: short,
		Long: short + `, named by UUID or name. The server confirms with an empty answer;
shakectl says so on stderr (unless --quiet) and prints nothing on stdout.
An instance that is not created yet is refused (406), and a powered-off one
cannot be paused or rebooted (409 "Invalid lifecycle state").`,
		Example:           fmt.Sprintf("  shakectl instance %s web1", name),
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			return runInstancePower(f, args[0], action)
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
restart (ACPI, the server's rebootsoft); --hard resets the virtual machine
like a power button (reboothard). A powered-off instance cannot be rebooted
(409 "Invalid lifecycle state").`,
		Example: `  shakectl instance reboot web1
  shakectl instance reboot web1 --hard`,
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			action := client.RebootSoft
			if hard {
				action = client.RebootHard
			}
			return runInstancePower(f, args[0], action)
		},
	}
	f.defineFlags(c, func() {
		c.Flags().BoolVar(&hard, "hard", false, "reset the instance instead of asking the guest to reboot")
	})
	return c
}
