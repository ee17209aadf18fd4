// Package termecho turns a terminal's echo off before a secret's prompt is
// shown. golang.org/x/term's ReadPassword turns it off only once the read
// starts, so a key typed straight after the prompt (a paste, a quick typist,
// a script driving a pty) could land on the screen in the gap between the
// prompt and the read.
package termecho
