package cmd

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/output"
)

// NewCmdNamespace groups the namespace commands.
func NewCmdNamespace(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "namespace <command>",
		Aliases: []string{"namespaces"},
		Short:   "List namespaces",
		Long:    `Work with Shakenfist namespaces (the units of ownership and authentication).`,
		Example: `  shakectl namespace list`,
	}
	c.AddCommand(NewCmdNamespaceList(f))
	return c
}

var namespaceColumns = []output.Column{{Header: "NAME"}, {Header: "KEYS"}, {Header: "METADATA"}}

// NewCmdNamespaceList builds `shakectl namespace list`.
func NewCmdNamespaceList(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the namespaces you can see",
		Long: `List the namespaces visible to the namespace you authenticate to (all of them
for the system namespace), with the names of their keys (never the keys).
Piped, and with -o simple, each is one tab-separated line: NAME KEYS METADATA.`,
		Example: `  shakectl namespace list
  shakectl namespace list -o json | jq -r '.[].name'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			items, err := s.client.ListNamespaces(s.ctx)
			if err != nil {
				return err
			}
			l := output.List{Columns: namespaceColumns, Rows: [][]string{}, Raw: []json.RawMessage{}}
			for _, n := range items {
				l.Rows = append(l.Rows, []string{n.Name, strings.Join(n.KeyNames, ","), compactJSON(n.Metadata)})
				l.Raw = append(l.Raw, rawOf(n.Raw, n))
			}
			return s.printList(l)
		},
	}
}
