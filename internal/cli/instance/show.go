package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdShow builds `shakectl instance show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show INSTANCE",
		Short: "Show one instance",
		Long: `Show one instance, named by UUID or name, with its interfaces (network, MAC,
IPv4, floating address). -o json and -o yaml print the server's object as
it was sent, including fields shakectl does not know.

A 2026 server names the instance's node by its UUID; shakectl adds the
node's name (node_name) when the key may list nodes (the system
namespace). A 2024 server names the node by its name.`,
		Example: `  shakectl instance show web1
  shakectl instance show web1 -o json | jq '.interfaces[].ipv4'`,
		Args:              cmdutil.RefArgs("INSTANCE"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			inst, err := s.Client.GetInstance(s.Ctx, args[0])
			if err != nil {
				return err
			}
			var names nodeNames
			if rendersFields(s) {
				names = resolveNodeNames(s, *inst)
			}
			return s.PrintDetail(instanceResourceWith(names).Detail(inst))
		},
	}
}

// rendersFields says the output is shakectl's own fields (table, simple,
// columns), not the server's object (json, yaml), so node names are worth
// a request.
func rendersFields(s *cmdutil.Session) bool {
	return s.Cfg.Output != "json" && s.Cfg.Output != "yaml" && s.Cfg.JQ == ""
}
