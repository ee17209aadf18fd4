package instance_test

import (
	"path/filepath"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The text inputs beside a namespace key (issue 40, item 12): a public
// key read from --ssh-key-file is text too; one holding a NUL, an escape
// or bytes that are not UTF-8 was sent as the instance's ssh_key. It is a
// usage error (exit 2) now, before anything is sent.
func TestSSHKeyFileMustBeText(t *testing.T) {
	for name, content := range map[string]string{
		"a NUL":     "ssh-ed25519 AAAAC3Nza\x00C1lZDI1 me@host\n",
		"an escape": "ssh-ed25519 AAAAC3NzaC1lZDI1 \x1b]0;owned\x07me@host\n",
		"not UTF-8": "ssh-ed25519 AAAAC3NzaC1lZDI1 m\xffe@host\n",
	} {
		path := filepath.Join(t.TempDir(), "key.pub")
		clitest.WriteFile(t, path, content)
		fa := clitest.NewStubs(t)
		res := clitest.AgainstStubs(fa).Run(t, "instance", "create", "web", "1", "1024", "-d", "8", "--ssh-key-file", path)
		want := "error: --ssh-key-file " + path + " holds a NUL or another control character, or is not UTF-8: a public key is text\nhint: see 'shakectl instance create --help'\n"
		if res.Code != cmdutil.ExitUsage || res.Stderr != want || len(fa.Requests()) != 0 {
			t.Errorf("%s: %s\nwant %q, nothing sent", name, res, want)
		}
	}
}
