package namespace

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdUpdateKey builds `shakectl namespace update-key`.
func NewCmdUpdateKey(f *cmdutil.Factory) *cobra.Command {
	return newKeyCmd(f, &cobra.Command{
		Use: "update-key", Short: "Give a namespace's key a new secret",
		Long: `Rotate the key KEYNAME: give it a new secret, read as add-key reads it. Tokens
issued for the old secret stop working. A 2026 server rotates with
PUT /auth/namespaces/NS/keys/KEYNAME (and --expiry replaces the old expiry;
without it the key no longer lapses); a 2024 server, whose PUT never
worked, by adding the key again.`,
		Example: `  printf %s "$NEW_SECRET" | shakectl namespace update-key ci deploy`,
	}, func(c *client.Client, s *cmdutil.Session, ns, name string, secret client.Secret, expiry time.Time) (*client.NamespaceKey, error) {
		return c.RotateNamespaceKey(s.Ctx, ns, name, secret, expiry)
	})
}
