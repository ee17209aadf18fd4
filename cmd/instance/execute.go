package instance

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdExecute builds `shakectl instance execute`.
func NewCmdExecute(f *cmdutil.Factory) *cobra.Command {
	var (
		deadline time.Duration
		poll     time.Duration
	)
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "execute",
		Short: "Run a command inside an instance through its agent",
		Long: `Run COMMAND inside the instance through the Shakenfist agent, wait for it,
print its stdout on stdout and its stderr on stderr, and exit with its exit
code, so a pipeline can branch on it: 128+N when signal N ended it, as a
shell reports it; exit 1 with "the agent reported no exit code" when the
agent's answer has none (missing, null or not an integer), and with "the
agent reported the command failed" when it says "result": false with an
exit code of 0. COMMAND and its arguments are joined
into one shell command line (each quoted as sh would need).

--deadline bounds the operation on the server (2026 servers, capability
agentoperation-deadlines; 0 means none, the server's default is 10m): an
operation past it ends "expired" and shakectl exits 124 with the reason. A
server without deadlines (2024) is refused the flag before anything is
sent, rather than having it ignored. -o json prints the operation as the
server ended it instead of the command's output, and still exits with the
command's code.`,
		Example: `  shakectl instance execute web1 -- uname -a
  shakectl instance execute web1 --deadline 30s -- sh -c 'exit 3'; echo $?`,
	}, func(s *cmdutil.Session, args []string) error {
		start := time.Now()
		req := client.ExecuteRequest{CommandLine: shellJoin(args[1:])}
		if s.F.Command.Flags().Changed("deadline") {
			req.Deadline = &deadline
		}

		op, err := s.Client.InstanceExecute(s.Ctx, args[0], req)
		if err != nil {
			return err
		}
		op, err = waitAgentOp(s, start, op, poll)
		if err != nil {
			return err
		}
		if s.Cfg.JSONOutput() {
			if err := s.PrintDetail(output.Detail{Raw: cmdutil.RawOf(op.Raw, op)}); err != nil {
				return err
			}
		}
		switch op.State {
		case client.AgentOpExpired:
			reason := "deadline"
			if op.ExpiryReason != nil {
				reason = *op.ExpiryReason
			}
			return &cmdutil.ExitStatusError{Code: cmdutil.ExitTimeout, Err: fmt.Errorf("agent operation %s expired (%s)", op.UUID, reason)}
		case client.AgentOpComplete:
		default:
			return fmt.Errorf("agent operation %s ended %s", op.UUID, op.State)
		}
		res, ok := op.Results["0"]
		if !ok {
			return fmt.Errorf("agent operation %s is complete without a result", op.UUID)
		}
		if !s.Cfg.JSONOutput() {
			if err := agentOutput(s, s.F.IOStreams.Out, res.Stdout, res.StdoutBlob); err != nil {
				return err
			}
			if err := agentOutput(s, s.F.IOStreams.Notifier().Relay(), res.Stderr, res.StderrBlob); err != nil {
				return err
			}
		}
		// The agent answers with text: bytes that were not UTF-8 arrive as
		// U+FFFD, so binary output is altered. Say so, after the output.
		for _, o := range []struct{ name, text string }{{"stdout", res.Stdout}, {"stderr", res.Stderr}} {
			if !s.Cfg.Quiet && notText(o.text) {
				s.Warn("the guest's %s was not text (NUL bytes, or bytes that are not UTF-8 and arrive as U+FFFD): the agent relays text, so binary output is altered; copy a file with shakectl instance download instead", o.name)
			}
		}
		code, err := res.ExitStatus()
		if err != nil {
			return fmt.Errorf("agent operation %s: %w", op.UUID, err)
		}
		if code != 0 {
			return &cmdutil.ExitStatusError{Code: code}
		}
		return nil
	})
	builders.Args(c, "INSTANCE -- COMMAND [ARG...]", complete.InstanceNames(f))
	addDeadlineFlag(c, &deadline)
	addPollFlag(c, &poll)
	return c
}

// shellJoin quotes each word for sh where it needs it.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for k, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+") == "" {
			out[k] = w
			continue
		}
		out[k] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// notText reports whether the guest's output, as the agent relayed it,
// was not text: a NUL byte, or U+FFFD where the server replaced bytes that
// were not UTF-8.
func notText(s string) bool {
	return strings.ContainsRune(s, 0) || strings.ContainsRune(s, utf8.RuneError)
}

// agentOutput writes a command's stdout or stderr: the text, or, for an
// output over 10 KiB, the blob the server put it in, streamed.
func agentOutput(s *cmdutil.Session, w io.Writer, text, blob string) error {
	if blob == "" {
		_, err := io.WriteString(w, text)
		return err
	}
	b, err := s.Client.GetBlob(s.Ctx, blob)
	if err != nil {
		return err
	}
	_, err = s.Client.DownloadBlob(s.Ctx, blob, b.Size, w, client.DownloadBlobOptions{})
	return err
}
