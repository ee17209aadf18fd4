package instance

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/output"
)

// NewCmd groups the instance commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
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
		NewCmdList(f),
		NewCmdShow(f),
		NewCmdCreate(f, nil),
		NewCmdDelete(f),
		NewCmdEvents(f),
		NewCmdAwait(f),
		newCmdAction(f, "poweron", "Power an instance on", client.PowerOn),
		newCmdAction(f, "poweroff", "Power an instance off (like pulling the plug)", client.PowerOff),
		NewCmdReboot(f),
		newCmdAction(f, "pause", "Pause an instance (it keeps its memory, its vCPUs stop)", client.Pause),
		newCmdAction(f, "unpause", "Unpause a paused instance", client.Unpause),
		NewCmdDeleteAll(f),
		NewCmdConsoleData(f),
		NewCmdConsoleDelete(f),
		NewCmdVDIConsole(f),
		NewCmdVDIConsoleFile(f),
		NewCmdSnapshot(f),
		NewCmdExecute(f),
		NewCmdUpload(f),
		NewCmdDownload(f),
		NewCmdAddInterface(f),
		NewCmdScreenshot(f),
	)
	c.AddCommand(builders.NewMetadataCmds(f, builders.MetadataSpec{
		Noun: "instance", Arg: "INSTANCE", Ref: "web1", Complete: complete.InstanceNames(f),
		Get: (*client.Client).GetInstanceMetadata, Set: (*client.Client).SetInstanceMetadata,
		Delete: (*client.Client).DeleteInstanceMetadata,
	})...)
	return c
}

// instanceResource is the instance view of shakenfist da448b1a
// (external_api/instance.py): interfaces carry the addresses.
var instanceResource = instanceResourceWith(nil)

// nodeNames maps a 2026 instance's node UUID to the node's name, as far as
// the client could resolve it (client.NodeName: listing nodes needs an
// admin token).
type nodeNames map[string]string

// name is the node's name, or the reference as the server sent it.
func (n nodeNames) name(ref string) string {
	if name, ok := n[ref]; ok {
		return name
	}
	return ref
}

// resolveNodeNames resolves the node UUIDs of 2026 instances
// (placement['node'] "holds a node UUID", instance.py VDI helper comment)
// to names, once per command. A 2024 instance names its node already, so
// nothing that is not a UUID is looked up, and a 2024 command sends no
// extra request; an unresolvable UUID (a token that may not list nodes)
// is shown as it is.
func resolveNodeNames(s *cmdutil.Session, insts ...client.Instance) nodeNames {
	names := nodeNames{}
	for _, i := range insts {
		if _, done := names[i.Node]; done || !looksLikeUUID(i.Node) {
			continue
		}
		if n, err := s.Client.NodeName(s.Ctx, i.Node); err == nil && n != i.Node {
			names[i.Node] = n
		}
	}
	return names
}

func looksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for k, r := range s {
		switch {
		case k == 8 || k == 13 || k == 18 || k == 23:
			if r != '-' {
				return false
			}
		case !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'):
			return false
		}
	}
	return true
}

// instanceResourceWith is the instance view with node names resolved: the
// NODE column shows the name (what a 2024 server sends, and what people
// read), show keeps the server's node (a UUID on 2026) and adds node_name.
func instanceResourceWith(nodes nodeNames) builders.Resource[client.Instance] {
	return builders.Resource[client.Instance]{
		Singular: "instance", Plural: "instances",
		Columns: []builders.Column[client.Instance]{
			builders.Field("UUID", func(i *client.Instance) string { return i.UUID }),
			builders.Field("NAME", func(i *client.Instance) string { return i.Name }),
			builders.Field("NAMESPACE", func(i *client.Instance) string { return i.Namespace }),
			builders.Field("CPUS", func(i *client.Instance) string { return strconv.Itoa(i.CPUs) }),
			builders.Field("MEMORY", func(i *client.Instance) string { return strconv.Itoa(i.Memory) }),
			builders.Field("NODE", func(i *client.Instance) string { return nodes.name(i.Node) }),
			builders.StateField("STATE", func(i *client.Instance) string { return i.State }),
			builders.StateField("POWER", func(i *client.Instance) string { return i.PowerState }),
			builders.Field("ADDRESSES", instanceAddresses),
		},
		Fields: []builders.Column[client.Instance]{
			builders.Field("uuid", func(i *client.Instance) string { return i.UUID }),
			builders.Field("name", func(i *client.Instance) string { return i.Name }),
			builders.Field("namespace", func(i *client.Instance) string { return i.Namespace }),
			builders.Field("cpus", func(i *client.Instance) string { return strconv.Itoa(i.CPUs) }),
			builders.Field("memory", func(i *client.Instance) string { return strconv.Itoa(i.Memory) }),
			builders.Field("disk", instanceDisks),
			builders.Field("node", func(i *client.Instance) string { return i.Node }),
			{Name: "node_name", Value: func(i *client.Instance) string {
				if n := nodes.name(i.Node); n != i.Node {
					return n
				}
				return ""
			}, OmitEmpty: true},
			builders.StateField("state", func(i *client.Instance) string { return i.State }),
			builders.StateField("power_state", func(i *client.Instance) string { return i.PowerState }),
			{Name: "error_message", Value: func(i *client.Instance) string { return i.ErrorMessage },
				Paint: func(c output.ColourScheme, s string) string { return c.Red(s) }, OmitEmpty: true},
			{Name: "interfaces", Value: instanceInterfaces, OmitEmpty: true},
			builders.Field("metadata", func(i *client.Instance) string { return builders.CompactJSON(i.Metadata) }),
			{Name: "ssh_key", Value: func(i *client.Instance) string { return i.SSHKey }, OmitEmpty: true},
			{Name: "user_data", Value: func(i *client.Instance) string {
				if i.UserData == "" {
					return ""
				}
				return fmt.Sprintf("(%d bytes of base64)", len(i.UserData))
			}, OmitEmpty: true},
			builders.Field("version", func(i *client.Instance) string { return strconv.Itoa(i.Version) }),
		},
		Raw: func(i *client.Instance) json.RawMessage { return cmdutil.RawOf(i.Raw, i) },
	}
}

func instanceDisks(i *client.Instance) string {
	disks := make([]string, 0, len(i.DiskSpec))
	for _, d := range i.DiskSpec {
		s := strconv.Itoa(d.Size)
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

func instanceDetail(i *client.Instance) output.Detail { return instanceResource.Detail(i) }
