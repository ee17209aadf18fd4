package namespace

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdAddKey builds `shakectl namespace add-key`.
func NewCmdAddKey(f *cmdutil.Factory) *cobra.Command {
	return newKeyCmd(f, &cobra.Command{
		Use: "add-key", Short: "Add a key to a namespace",
		Long: `Add the key KEYNAME to a namespace. Its secret is read from standard input (at
a terminal, typed without echo) or from --key-file, never from the command
line where other users could read it, and it is never printed: -o json
shows the key's name only. --expiry (2026 servers) makes the key lapse.
On a 2024 server adding an existing KEYNAME replaces its secret.`,
		Example: `  printf %s "$SECRET" | shakectl namespace add-key ci deploy
  shakectl namespace add-key ci deploy --key-file ./deploy.key --expiry 720h`,
	}, func(c *client.Client, s *cmdutil.Session, ns, name string, secret client.Secret, expiry time.Time) (*client.NamespaceKey, error) {
		return c.AddNamespaceKey(s.Ctx, ns, name, secret, expiry)
	})
}
