package claim

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdUpdate builds `shakectl namespace claim update`.
func NewCmdUpdate(f *cmdutil.Factory) *cobra.Command {
	var l limitFlags
	var c *cobra.Command
	c = cmdutil.Verb(f, &cobra.Command{
		Use: "update", Short: "Change a capacity claim's limits or expiry",
		Long: `Change the limits or the expiry of a claim: only the flags given are sent
(the server reads the body as a field mask). A claim cannot shrink below
what it uses, and an expired claim cannot change (409, exit 1); growing it
past what the cluster can promise is a 507 (exit 69).`,
		Example: `  shakectl namespace claim update ci 0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f --cpus 48 --expiry 48h`,
	}, func(s *cmdutil.Session, args []string) error {
		var upd client.ClaimUpdate
		set := func(name string, v int) *int {
			if !c.Flags().Changed(name) {
				return nil
			}
			return &v
		}
		upd.LimitCPUs, upd.LimitMemoryMB, upd.LimitDiskGB = set("cpus", l.cpus), set("memory", l.memory), set("disk", l.disk)
		upd.ExpiresInSeconds = set("expiry", client.ExpiresIn(l.expiry))
		if upd == (client.ClaimUpdate{}) { // the server would 400
			return cmdutil.UsageErrorf("nothing to change: give --cpus, --memory, --disk or --expiry")
		}
		claim, err := s.Client.UpdateNamespaceClaim(s.Ctx, args[0], args[1], upd)
		if err != nil {
			return err
		}
		return printClaim(s, claim)
	})
	builders.Args(c, "NAMESPACE CLAIM", complete.NamespaceNames(f))
	l.add(c)
	return c
}
