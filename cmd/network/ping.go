package network

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/output/termtext"
)

// NewCmdPing builds `shakectl network ping`.
func NewCmdPing(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "ping", Short: "Ping an address from inside a network",
		Long: `Ping ADDRESS ten times from the network's namespace on its network node, and
print ping's output. The address must be inside the network's netblock.
-o json prints the server's {"stdout": [...], "stderr": [...]}.`,
		Example: `  shakectl network ping net1 10.0.0.5`,
	}, func(s *cmdutil.Session, args []string) error {
		res, err := s.Client.PingNetwork(s.Ctx, args[0], args[1])
		if err != nil {
			return err
		}
		if s.Cfg.JQ != "" || s.Cfg.Output.Data() {
			return s.PrintDetail(output.Detail{Raw: cmdutil.RawOf(res.Raw, res)})
		}
		// ping's own lines, as sf-client prints them; the server's
		// text is one line at a time, control characters blanked.
		for _, l := range res.Stdout {
			fmt.Fprintln(s.F.IOStreams.Out, termtext.Line(l))
		}
		for _, l := range res.Stderr {
			if strings.TrimSpace(l) != "" {
				fmt.Fprintln(s.F.IOStreams.Notifier().Relay(), termtext.Line(l))
			}
		}
		return nil
	})
	return builders.PrintsText(builders.Args(c, "NETWORK ADDRESS", complete.NetworkNames(f)))
}
