// Package secret is shakectl's one reader of a secret (an API key): from
// a file or stdin, never argv, and at a terminal with the echo off. Only
// the commands that take a key use it, so it sits on the kernel, not in it.
package secret

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/termecho"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output"
)

// maxSecret bounds a key read from a file or stdin: a key is a line.
const maxSecret = 64 << 10

// Read reads a key's secret from keyFile ("-" or "" meaning stdin),
// never from argv, where other users of the machine could read it (ps,
// /proc), through ReadInput: at a terminal it prompts on stderr and
// does not echo. Surrounding white space is dropped (`echo KEY |` adds a
// newline), and a key of more than one line, or holding a NUL or another
// control character, or not UTF-8, is refused (exit 2).
func Read(ctx context.Context, ios *output.IOStreams, keyFile, what string) (client.Secret, error) {
	if keyFile == "" {
		keyFile = userfile.Stdin
	}
	raw, err := ReadInput(ctx, ios, keyFile, userfile.Bound{Flag: "--key-file", Max: maxSecret}, what)
	if err != nil {
		var ue *userfile.Error
		if errors.As(err, &ue) {
			return client.Secret{}, cmdutil.UsageErrorf("%s", err)
		}
		return client.Secret{}, err
	}
	if strings.TrimSpace(string(raw)) == "" {
		return client.Secret{}, cmdutil.UsageErrorf("no key given: pipe it on stdin or name a file with --key-file (never on the command line)")
	}
	// The one rule for a key's text, the one a login's key is read by
	// (userfile.ParseKey): one line of UTF-8 without NUL or other control
	// characters. A key set with a NUL could never
	// be given back: not in an environment variable, and not from a
	// file, which ParseKey refuses.
	from := "--key-file"
	if keyFile == userfile.Stdin {
		from = "stdin"
	}
	key, err := userfile.ParseKey(raw, from)
	if err != nil {
		return client.Secret{}, cmdutil.ReadFileError(err)
	}
	return client.NewSecret(key), nil
}

// ReadInput is shakectl's one reader of a secret (two readers once differed:
// `context create --key-stdin` echoed the key as it was typed, `namespace
// add-key` hid it). arg is a file, or "-" for stdin; b bounds it as every
// file read is bounded. On a terminal stdin it prompts "WHAT (not echoed):"
// on stderr and reads one line with the echo off; Ctrl-C (the run's context)
// ends the wait at once and turns the echo back on. Anything else is read as
// userfile reads any input.
func ReadInput(ctx context.Context, ios *output.IOStreams, arg string, b userfile.Bound, what string) ([]byte, error) {
	if arg != userfile.Stdin || !ios.IsStdinTTY() {
		return userfile.Read(ctx, ios.In, arg, b)
	}
	file, ok := ios.In.(*os.File)
	if !ok {
		return nil, cmdutil.UsageErrorf("cannot read %s from this terminal without echoing it; pipe it in or name a file", what)
	}
	fd := int(file.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	// The echo goes off before the prompt shows: a key typed or pasted the
	// moment the prompt appears must not reach the screen before
	// term.ReadPassword turns the echo off itself.
	if err := termecho.Off(fd); err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	ios.Notifier().Prompt(what + " (not echoed):")
	type result struct {
		b   []byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		line, err := term.ReadPassword(fd)
		got <- result{line, err}
	}()
	select {
	case r := <-got:
		_ = term.Restore(fd, state)
		ios.Notifier().PromptDone()
		switch {
		case r.err != nil:
			return nil, fmt.Errorf("reading %s: %w", what, r.err)
		case int64(len(r.b)) > b.Max:
			return nil, cmdutil.UsageErrorf("%s from the terminal is longer than %d bytes, the most %s reads", what, b.Max, b.Flag)
		}
		return r.b, nil
	case <-ctx.Done():
		// The read goroutine stays blocked until the process ends; the
		// terminal must not stay silent after it.
		_ = term.Restore(fd, state)
		ios.Notifier().PromptDone()
		return nil, context.Cause(ctx)
	}
}
