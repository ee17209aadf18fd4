package cmdutil

import (
	"context"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output"
)

// maxSecret bounds a key read from a file or stdin: a key is a line.
const maxSecret = 64 << 10

// ReadSecret reads a key's secret from keyFile ("-" or "" meaning stdin),
// never from argv, where other users of the machine could read it (ps,
// /proc). At a terminal it prompts on stderr and does not echo. Trailing
// line ends are dropped, as `echo KEY |` adds one.
func ReadSecret(ctx context.Context, ios *output.IOStreams, keyFile, what string) (client.Secret, error) {
	in, errOut := ios.In, ios.ErrOut
	var raw []byte
	var err error
	switch {
	case keyFile != "" && keyFile != userfile.Stdin, !ios.IsStdinTTY():
		if keyFile == "" {
			keyFile = userfile.Stdin
		}
		raw, err = userfile.Read(ctx, in, keyFile, userfile.Bound{Flag: "--key-file", Max: maxSecret})
		if err != nil {
			return client.Secret{}, UsageErrorf("%s", err)
		}
	default:
		fmt.Fprintf(errOut, "%s (not echoed): ", what)
		file, ok := in.(*os.File)
		if !ok {
			return client.Secret{}, UsageErrorf("cannot read the key from this terminal; use --key-file")
		}
		raw, err = term.ReadPassword(int(file.Fd()))
		fmt.Fprintln(errOut)
		if err != nil {
			return client.Secret{}, fmt.Errorf("reading the key: %w", err)
		}
	}
	s := strings.TrimRight(string(raw), "\r\n")
	switch {
	case s == "":
		return client.Secret{}, UsageErrorf("no key given: pipe it on stdin or name a file with --key-file (never on the command line)")
	case strings.ContainsAny(s, "\r\n"):
		return client.Secret{}, UsageErrorf("the key spans several lines; a key is one line")
	}
	return client.NewSecret(s), nil
}
