package instance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/transfer"
	"github.com/shakenfist/shakectl/internal/outfile"
)

// NewCmdConsoleDelete builds `shakectl instance consoledelete`.
func NewCmdConsoleDelete(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "consoledelete", Short: "Clear an instance's serial console log",
		Long: `Empty the serial console log the hypervisor keeps for an instance (DELETE
/instances/REF/consoledata), so that "consoledata" shows only what the
guest writes from now on. It prints nothing.`,
		Example: "  shakectl instance consoledelete web1 && shakectl instance reboot web1",
	}, func(s *cmdutil.Session, args []string) error {
		return s.Client.DeleteConsoleData(s.Ctx, args[0])
	})
	return builders.Args(c, "INSTANCE", complete.InstanceNames(f))
}

// EnvVDIViewer names the user's VDI viewer command: its words, to which
// the .vv file's path is added.
const EnvVDIViewer = "SHAKECTL_VDI_VIEWER"

// The viewers looked for on PATH, in the 2026 sf-client's order
// (client-python PLAN-vdi-console-tokens phase 4, decision 6: ryll, else
// remote-viewer); the 2024 sf-client (6c25293c commandline/instance.py
// instance_vdiconsole) runs remote-viewer only.
const (
	ryllViewer    = "ryll"
	defaultViewer = "remote-viewer"
)

// NewCmdVDIConsoleFile builds `shakectl instance vdiconsolefile`.
func NewCmdVDIConsoleFile(f *cmdutil.Factory) *cobra.Command {
	var clobber, direct bool
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "vdiconsolefile", Short: "Save the .vv file that opens an instance's VDI console",
		Long: `Save the virt-viewer connection file (.vv) of an instance's SPICE or VNC
console to DEST, a file or a directory to hold INSTANCE.vv (default: the
current directory); "-" writes it to stdout, as sf-client prints it. Open
it with remote-viewer (virt-viewer), ryll or another SPICE client.

` + vdiRouteHelp + `

As every download, it never replaces an existing file unless --clobber is
given, not even one that appears while the file is fetched, and writes
DEST only once the whole file has arrived. A new file is private (0600).`,
		Example: `  shakectl instance vdiconsolefile web1
  shakectl instance vdiconsolefile web1 /tmp/web1.vv --clobber && remote-viewer /tmp/web1.vv`,
	}, func(s *cmdutil.Session, args []string) error {
		dest := "."
		if len(args) == 2 {
			dest = args[1]
		}
		out, err := transfer.DownloadDest(dest, args[0]+".vv", 0o600, clobber)
		if err != nil {
			return err
		}
		vv, err := vdiFile(s, args[0], direct)
		if err != nil {
			return err
		}
		return out.Write(s.Ctx, s.F.IOStreams.Out, s.F.IOStreams.Notifier().Lines("wrote"), func(w io.Writer) error {
			_, err := w.Write(vv)
			return err
		})
	})
	builders.Args(c, "INSTANCE [DEST]", complete.InstanceNames(f), complete.Files)
	transfer.AddClobberFlag(c, &clobber)
	addDirectFlag(c, &direct)
	return c
}

// vdiRouteHelp says, for both VDI commands, where the console file comes
// from.
const vdiRouteHelp = `Where the file comes from is discovered from what the server offers, as
sf-client does: a 2026 server that advertises vdi-console-proxy (Kerbside
is configured) mints a single-use console token (GET
/instances/REF/vdiconsoleproxy), and the file is fetched once from the
Kerbside URL the API answered, without the API token: it points at
Kerbside and carries a console password valid for about a minute.
Otherwise, or with --direct, it is the hypervisor's own file (GET
/instances/REF/vdiconsolehelper), which names the node and ports and holds
no password. shakectl never connects to the console itself.`

// addDirectFlag is sf-client's --direct: the hypervisor's file even when
// the Kerbside proxy is offered.
func addDirectFlag(c *cobra.Command, direct *bool) {
	c.Flags().BoolVar(direct, "direct", false, "use the hypervisor's own console file even when the server offers the Kerbside proxy")
}

// vdiFile is the console file of ref: through the Kerbside proxy when
// the server offers it and --direct is not given, else the direct file.
func vdiFile(s *cmdutil.Session, ref string, direct bool) ([]byte, error) {
	if direct || !s.Client.VDIProxyOffered(s.Ctx) {
		return s.Client.VDIConsoleFile(s.Ctx, ref)
	}
	p, err := s.Client.MintVDIConsoleProxy(s.Ctx, ref)
	if err != nil {
		return nil, err
	}
	return s.Client.VDIProxyFile(s.Ctx, p)
}

// NewCmdVDIConsole builds `shakectl instance vdiconsole`.
func NewCmdVDIConsole(f *cmdutil.Factory) *cobra.Command {
	var viewer string
	var direct bool
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "vdiconsole", Short: "Open an instance's VDI console in your viewer",
		Long: `Open an instance's SPICE or VNC console in your viewer: fetch its .vv file
(as "vdiconsolefile" does) into a private temporary file, run the viewer on
it, then remove the file. The viewer connects to the console.

` + vdiRouteHelp + `

The viewer is --viewer, else $` + EnvVDIViewer + ` (a command's words, no shell:
e.g. "remote-viewer --full-screen"), else ryll, else remote-viewer, the
first on PATH, as the 2026 sf-client chooses. ryll is given the Kerbside
URL itself ("ryll --url URL": shakectl fetches no file and writes none) or
the direct file ("ryll --file FILE"); any other viewer gets the file's path.
With none, nothing is fetched and the command says how to get one, or to
save the file with "vdiconsolefile" (exit 1). The command exits with the
viewer's status.`,
		Example: `  shakectl instance vdiconsole web1
  SHAKECTL_VDI_VIEWER="remote-viewer --full-screen" shakectl instance vdiconsole web1`,
	}, func(s *cmdutil.Session, args []string) error {
		env := ""
		if s.F.Getenv != nil {
			env, _ = s.F.Getenv(EnvVDIViewer)
		}
		argv, err := viewerCommand(viewer, env)
		if err != nil {
			return fmt.Errorf("%w; or save the console file with \"shakectl instance vdiconsolefile %s\" and open it with your SPICE client", err, args[0])
		}
		ryll := filepath.Base(argv[0]) == ryllViewer
		if ryll && !direct && s.Client.VDIProxyOffered(s.Ctx) {
			p, err := s.Client.MintVDIConsoleProxy(s.Ctx, args[0])
			if err != nil {
				return err
			}
			return runViewer(s, append(argv, "--url", p.URL))
		}
		vv, err := vdiFile(s, args[0], direct)
		if err != nil {
			return err
		}
		// A private file for the viewer, through the one writer.
		scratch, err := outfile.NewScratch("shakectl-vdi-")
		if err != nil {
			return err
		}
		defer scratch.Remove()
		path, err := scratch.WriteFile("console.vv", vv, 0o600)
		if err != nil {
			return err
		}
		if ryll {
			return runViewer(s, append(argv, "--file", path))
		}
		return runViewer(s, append(argv, path))
	})
	builders.Args(c, "INSTANCE", complete.InstanceNames(f))
	c.Flags().StringVar(&viewer, "viewer", "", "the viewer command to run (default $"+EnvVDIViewer+", else ryll or remote-viewer on PATH)")
	addDirectFlag(c, &direct)
	return c
}

// viewerCommand is the viewer to run: the flag, else the environment, else
// remote-viewer when it is installed.
func viewerCommand(flag, env string) ([]string, error) {
	for _, v := range []string{flag, env} {
		if argv := strings.Fields(v); len(argv) > 0 {
			return argv, nil
		}
	}
	for _, name := range []string{ryllViewer, defaultViewer} {
		if path, err := exec.LookPath(name); err == nil {
			return []string{path}, nil
		}
	}
	return nil, errors.New("no VDI viewer: install virt-viewer (remote-viewer) or ryll, or name one with --viewer or $" + EnvVDIViewer)
}

// runViewer runs the viewer, without a shell, with the terminal's stdio;
// the caller removes any file it was given afterwards (remote-viewer may
// remove it first: the file says delete-this-file=1). The command's exit
// status is the viewer's.
func runViewer(s *cmdutil.Session, argv []string) error {
	ios := s.F.IOStreams
	cmd := exec.CommandContext(s.F.Context, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ios.In, ios.Out, ios.Notifier().Relay()
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		if cause := context.Cause(s.F.Context); cause != nil {
			return cause
		}
		code := ee.ExitCode()
		if code < 0 {
			code = cmdutil.ExitFailure // killed by a signal
		}
		return &cmdutil.ExitStatusError{Code: code}
	}
	return fmt.Errorf("cannot run the viewer %s: %w", argv[0], err)
}
