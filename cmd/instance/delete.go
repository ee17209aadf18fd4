package instance

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDelete builds `shakectl instance delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "delete", Short: "Delete an instance",
		Long: `Delete an instance, named by UUID or name, and print it.

The server answers with the instance as it was and deletes it in the
background. With --async pause (the default) or block, wait until the
server reports it deleted, within the deadline (--timeout, else 60s for
pause and 1h for block); with --async continue, return as soon as the
server accepted the delete.`,
		Example: `  shakectl instance delete web1
  shakectl instance delete web1 --async continue`,
	}, func(s *cmdutil.Session, args []string) error {
		start := time.Now()
		inst, err := s.Client.DeleteInstance(s.Ctx, args[0])
		if err != nil {
			return err
		}
		inst, err = builders.AwaitAsync(s, builders.WatchedInstance(s.Client), start, inst, args[0], client.StateDeleted)
		return builders.PrintResult(s, instanceDetail, inst, err)
	})
	return builders.Args(c, "INSTANCE", complete.InstanceNames(f))
}
