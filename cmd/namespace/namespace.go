package namespace

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/namespace/claim"
)

// NewCmd groups the namespace commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := builders.NewGroupCmd(builders.GroupSpec{
		Noun:  "namespace",
		Short: "Create, inspect and delete namespaces, their keys, trust, metadata and claims",
		Long: `Work with Shakenfist namespaces (the units of ownership and authentication):
create and delete them, manage their keys (a key's secret is read from stdin
or a file, never from the command line, and never printed), who they trust,
their metadata, and (2026 servers) their capacity claims. Most of this needs
the system namespace's key.`,
		Example: `  shakectl namespace list
  shakectl namespace create ci
  printf %s "$SECRET" | shakectl namespace add-key ci deploy
  shakectl namespace claim create ci --cpus 40 --memory 81920 --disk 2000 --expiry 24h`,
	},
		NewCmdList(f), NewCmdShow(f), NewCmdCreate(f), NewCmdDelete(f), NewCmdClean(f),
		NewCmdAddKey(f), NewCmdUpdateKey(f), NewCmdDeleteKey(f),
		NewCmdAddTrust(f), NewCmdRemoveTrust(f),
		claim.NewCmd(f),
	)
	c.AddCommand(builders.NewMetadataCmds(f, builders.MetadataSpec{
		Noun: "namespace", Arg: "NAMESPACE", Ref: "ci", Complete: complete.NamespaceNames(f),
		Get: (*client.Client).GetNamespaceMetadata, Set: (*client.Client).SetNamespaceMetadata,
		Delete: (*client.Client).DeleteNamespaceMetadata,
	})...)
	return c
}

// namespaceResource is GET /auth/namespaces of shakenfist da448b1a: the key
// names are under "keys", the trusted namespaces under trust.full.
var namespaceResource = builders.Resource[client.Namespace]{
	Singular: "namespace", Plural: "namespaces",
	Columns: []builders.Column[client.Namespace]{
		builders.Field("NAME", func(n *client.Namespace) string { return n.Name }),
		builders.Field("KEYS", namespaceKeys),
		builders.Field("METADATA", func(n *client.Namespace) string { return builders.CompactJSON(n.Metadata) }),
	},
	Fields: []builders.Column[client.Namespace]{
		builders.Field("name", func(n *client.Namespace) string { return n.Name }),
		builders.StateField("state", func(n *client.Namespace) string { return n.State }),
		builders.Field("keys", namespaceKeys),
		builders.Field("trust", func(n *client.Namespace) string { return strings.Join(n.Trust.Full, ",") }),
		builders.Field("metadata", func(n *client.Namespace) string { return builders.CompactJSON(n.Metadata) }),
		builders.Field("version", func(n *client.Namespace) string { return strconv.Itoa(n.Version) }),
	},
	Raw: func(n *client.Namespace) json.RawMessage { return cmdutil.RawOf(n.Raw, n) },
}

func namespaceKeys(n *client.Namespace) string { return strings.Join(n.Keys, ",") }
