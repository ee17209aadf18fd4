package cmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdNode groups the node commands.
func NewCmdNode(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "node <command>",
		Aliases: []string{"nodes"},
		Short:   "List and inspect the cluster's nodes and their capacity",
		Long: `Inspect the cluster's nodes: whether each is a hypervisor, its tags (which
affinity rules match), and its capacity accounting in vCPUs, MiB of memory
and GiB of disk, used/max. This is where to look when a create is refused
with HTTP 507.`,
		Example: `  shakectl node list
  shakectl node show node1 -o json`,
	}
	c.AddCommand(NewCmdNodeList(f), NewCmdNodeShow(f))
	return c
}

var nodeColumns = []output.Column{
	{Header: "NAME"}, {Header: "IP"}, {Header: "STATE", Paint: output.StatePainter}, {Header: "HYPERVISOR"},
	{Header: "CPU"}, {Header: "MEMORY"}, {Header: "DISK"}, {Header: "TAGS"}, {Header: "VERSION"},
}

func usedOfMax(used, most int) string { return fmt.Sprintf("%d/%d", used, most) }

func nodeList(items []client.Node) output.List {
	l := output.List{Columns: nodeColumns, Rows: [][]string{}, Raw: []json.RawMessage{}}
	for _, n := range items {
		l.Rows = append(l.Rows, []string{
			n.Name, n.IP, n.State, yesNo(n.IsHypervisor),
			usedOfMax(n.CPUUsed, n.CPUMax), usedOfMax(n.MemoryUsed, n.MemoryMax), usedOfMax(n.DiskUsed, n.DiskMax),
			strings.Join(n.Tags, ","), n.Version,
		})
		l.Raw = append(l.Raw, rawOf(n.Raw, n))
	}
	return l
}

func nodeDetail(n *client.Node) output.Detail {
	return output.Detail{
		Fields: []output.Field{
			{Name: "name", Value: n.Name},
			{Name: "ip", Value: n.IP},
			{Name: "state", Value: n.State, Paint: output.StatePainter},
			{Name: "is_hypervisor", Value: yesNo(n.IsHypervisor)},
			{Name: "tags", Value: strings.Join(n.Tags, ",")},
			{Name: "cpu_used", Value: itoa(n.CPUUsed)},
			{Name: "cpu_max", Value: itoa(n.CPUMax)},
			{Name: "memory_used", Value: itoa(n.MemoryUsed)},
			{Name: "memory_max", Value: itoa(n.MemoryMax)},
			{Name: "disk_used", Value: itoa(n.DiskUsed)},
			{Name: "disk_max", Value: itoa(n.DiskMax)},
			{Name: "version", Value: n.Version},
			{Name: "lastseen", Value: formatUnix(n.LastSeen)},
		},
		Raw: rawOf(n.Raw, n),
	}
}

// NewCmdNodeList builds `shakectl node list`.
func NewCmdNodeList(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the cluster's nodes with their capacity",
		Long: `List the cluster's nodes. CPU, MEMORY and DISK are used/max in vCPUs, MiB and
GiB. Piped, and with -o simple, each node is one tab-separated line without
a header: NAME IP STATE HYPERVISOR CPU MEMORY DISK TAGS VERSION.`,
		Example: `  shakectl node list
  shakectl node list -o json | jq '[.[] | .cpu_max - .cpu_used] | add'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			items, err := s.client.ListNodes(s.ctx)
			if err != nil {
				return err
			}
			return s.printList(nodeList(items))
		},
	}
}

// NewCmdNodeShow builds `shakectl node show`.
func NewCmdNodeShow(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "show NODE",
		Short:             "Show one node and its capacity",
		Example:           `  shakectl node show node1`,
		Args:              refArgs("NODE"),
		ValidArgsFunction: argsAccepted(completeNodeNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			n, err := s.client.GetNode(s.ctx, args[0])
			if err != nil {
				return err
			}
			return s.printDetail(nodeDetail(n))
		},
	}
}
