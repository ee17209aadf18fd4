package claim

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdCreate builds `shakectl namespace claim create`.
func NewCmdCreate(f *cmdutil.Factory) *cobra.Command {
	var l limitFlags
	var c *cobra.Command
	c = cmdutil.Verb(f, &cobra.Command{
		Use: "create", Short: "Claim capacity for a namespace",
		Long: `Ask the cluster to promise NAMESPACE up to --cpus vCPUs, --memory MiB and
--disk GB for --expiry, and print the claim. Every limit and the expiry are
required. A 507 means the cluster cannot promise that much (exit 69); a 503
asks to be asked again (exit 75); a 409 says the namespace already holds a
claim ("namespace claim update" changes it).`,
		Example: `  shakectl namespace claim create ci --cpus 40 --memory 81920 --disk 2000 --expiry 24h`,
	}, func(s *cmdutil.Session, args []string) error {
		if err := missing(c); err != nil {
			return err
		}
		claim, err := s.Client.CreateNamespaceClaim(s.Ctx, args[0], client.ClaimRequest{
			LimitCPUs: l.cpus, LimitMemoryMB: l.memory, LimitDiskGB: l.disk, ExpiresInSeconds: client.ExpiresIn(l.expiry),
		})
		if err != nil {
			return err
		}
		return printClaim(s, claim)
	})
	builders.Args(c, "NAMESPACE", complete.NamespaceNames(f))
	l.add(c)
	return c
}
