package cmdutil

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// maxSecret bounds a key read from a file or stdin: a key is a line.
const maxSecret = 64 << 10

// ReadSecret reads a key's secret from keyFile ("-" or "" meaning stdin),
// never from argv, where other users of the machine could read it (ps,
// /proc). At a terminal it prompts on stderr and does not echo. Trailing
// line ends are dropped, as `echo KEY |` adds one.
func ReadSecret(ios *output.IOStreams, keyFile, what string) (client.Secret, error) {
	in, errOut := ios.In, ios.ErrOut
	var raw []byte
	var err error
	switch {
	case keyFile != "" && keyFile != "-":
		f, oerr := os.Open(keyFile)
		if oerr != nil {
			return client.Secret{}, UsageErrorf("--key-file: cannot read %s: %s", keyFile, PathErrReason(oerr))
		}
		defer f.Close()
		raw, err = io.ReadAll(io.LimitReader(f, maxSecret+1))
	case ios.IsStdinTTY():
		fmt.Fprintf(errOut, "%s (not echoed): ", what)
		file, ok := in.(*os.File)
		if !ok {
			return client.Secret{}, UsageErrorf("cannot read the key from this terminal; use --key-file")
		}
		raw, err = term.ReadPassword(int(file.Fd()))
		fmt.Fprintln(errOut)
	default:
		if in == nil {
			return client.Secret{}, UsageErrorf("no standard input to read the key from; use --key-file")
		}
		raw, err = io.ReadAll(io.LimitReader(in, maxSecret+1))
	}
	if err != nil {
		return client.Secret{}, fmt.Errorf("reading the key: %w", err)
	}
	if len(raw) > maxSecret {
		return client.Secret{}, UsageErrorf("the key is longer than %d bytes; is that the right file?", maxSecret)
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
