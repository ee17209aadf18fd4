package node

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// nodeResources is one node's entry of GET /admin/resources' per_node
// (scheduler.py summarize_resources), with its name.
type nodeResources struct {
	Node    string
	Figures map[string]any
}

// figure shows one of the figures, "" when the server sent none.
func figure(name string) func(*nodeResources) string {
	return func(n *nodeResources) string {
		switch v := n.Figures[name].(type) {
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		case nil:
			return ""
		default:
			b, _ := json.Marshal(v)
			return string(b)
		}
	}
}

// shownFigures are the figures with columns of their own; the rest (which
// differ between servers) go under OTHER.
var shownFigures = []string{"cpu_available", "ram_available", "cpu_max_per_instance"}

var resourcesResource = builders.Resource[nodeResources]{
	Singular: "node", Plural: "nodes",
	Columns: []builders.Column[nodeResources]{
		builders.Field("NODE", func(n *nodeResources) string { return n.Node }),
		builders.Field("CPU_AVAILABLE", figure("cpu_available")),
		builders.Field("RAM_AVAILABLE", figure("ram_available")),
		builders.Field("CPU_MAX_PER_INSTANCE", figure("cpu_max_per_instance")),
		builders.Field("OTHER", func(n *nodeResources) string {
			rest := map[string]any{}
			for k, v := range n.Figures {
				rest[k] = v
			}
			for _, k := range shownFigures {
				delete(rest, k)
			}
			return builders.CompactJSON(rest)
		}),
	},
	Raw: func(n *nodeResources) json.RawMessage {
		return builders.WithRawField(cmdutil.RawOf(nil, n.Figures), "node", n.Node)
	},
}

// NewCmdResources builds `shakectl node resources`.
func NewCmdResources(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "resources", Short: "Show what the scheduler sees free on each node",
		Long: `Show the scheduler's view of each node's free capacity (GET /admin/resources,
admin only): vCPUs and MiB of memory available, the most vCPUs one instance
may have, and the other figures the server reports. NODE shows one node.
-o json prints one object per node, its name under "node".

The 2024 release has the handler but never routes it: against such a
server this says so (exit 1); "shakectl node events NODE --type resources"
shows the figures each node reported instead.`,
		Example: `  shakectl node resources
  shakectl node resources sf-1 -o json`,
	}, func(s *cmdutil.Session, args []string) error {
		res, err := s.Client.NodeResources(s.Ctx)
		if err != nil {
			return err
		}
		items := make([]nodeResources, 0, len(res.PerNode))
		for name, figs := range res.PerNode {
			if len(args) == 0 || args[0] == name {
				items = append(items, nodeResources{Node: name, Figures: figs})
			}
		}
		if len(args) == 1 && len(items) == 0 {
			return cmdutil.NotFoundf("the scheduler reports no node %q; \"shakectl node list\" shows the nodes", args[0])
		}
		sort.Slice(items, func(i, j int) bool { return items[i].Node < items[j].Node })
		return s.PrintList(resourcesResource.List(items))
	})
	return builders.Args(c, "[NODE]", complete.NodeNames(f))
}
