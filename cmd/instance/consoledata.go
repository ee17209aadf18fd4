package instance

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdConsoleData builds `shakectl instance consoledata`.
func NewCmdConsoleData(f *cmdutil.Factory) *cobra.Command {
	var length int
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "consoledata", Short: "Print the end of an instance's serial console",
		Long: `Print the last --length bytes (default 10240, the server's) of an instance's
serial console log. sf-client's positional LENGTH is accepted too. The text
is written as the console wrote it, except that on a terminal control
characters other than newlines and tabs are shown as "?" so that the
guest cannot drive your terminal. -o json and -o yaml print
{"instance", "length", "data"}.`,
		Example: `  shakectl instance consoledata web1
  shakectl instance consoledata web1 --length 2048 | grep -i panic`,
	}, func(s *cmdutil.Session, args []string) error {
		n := length
		if len(args) == 2 {
			v, err := strconv.Atoi(args[1])
			if err != nil || v < 1 {
				return cmdutil.UsageErrorf("LENGTH %q is not a positive number of bytes", args[1])
			}
			n = v
		}
		data, err := s.Client.ConsoleData(s.Ctx, args[0], n)
		if err != nil {
			return err
		}
		if n == 0 {
			n = client.DefaultConsoleLength
		}
		return printConsole(s, args[0], n, data)
	})
	builders.Args(c, "INSTANCE [LENGTH]", complete.InstanceNames(f))
	// At most what the client reads of an answer.
	numflag.Var(c.Flags(), &length, "length", 0, numflag.Between(1, client.MaxResponseBody), "how many bytes from the end of the console log (default 10240)")
	return builders.PrintsText(c)
}

// printConsole writes console bytes: raw to a pipe or file, with control
// characters defused on a terminal, or as one JSON object.
func printConsole(s *cmdutil.Session, ref string, n int, data []byte) error {
	out := s.F.IOStreams.Out
	if s.Cfg.JQ != "" || s.Cfg.Output.Data() {
		raw := map[string]any{"instance": ref, "length": n, "data": strings.ToValidUTF8(string(data), "\uFFFD")}
		return s.PrintDetail(output.Detail{Raw: cmdutil.RawOf(nil, raw)})
	}
	if s.F.IOStreams.IsStdoutTTY() {
		data = []byte(strings.Map(func(r rune) rune {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\uFFFD' {
				return '?'
			}
			return r
		}, strings.ToValidUTF8(string(data), "\uFFFD")))
	}
	_, err := out.Write(data)
	return err
}
