package root_test

import (
	"os"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Issue 28, item 6: every flag that reads a file reads /dev/zero up to its
// purpose's bound and refuses it there, naming the flag and the bound (each
// passed 1.5 GB in seconds). Reading /dev/zero touches nothing.
func TestEndlessFileInputsAreBounded(t *testing.T) {
	t.Parallel() // each case reads up to its bound (16 MiB) of /dev/zero; nothing is shared
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"api", "POST", "/instances", "--input", "/dev/zero"}, "--input /dev/zero is larger than 16 MiB, the most --input reads"},
		{[]string{"instance", "create", "a", "1", "512", "-d", "8", "-u", "/dev/zero"}, "--user-data-file /dev/zero is larger than 1 MiB"},
		{[]string{"instance", "create", "a", "1", "512", "-d", "8", "-i", "/dev/zero"}, "--ssh-key-file /dev/zero is larger than 64 KiB"},
		{[]string{"parking-probe", "--target", "http://127.0.0.1:1", "--body", "@/dev/zero"}, "--body /dev/zero is larger than 16 MiB"},
		{[]string{"parking-probe", "--target", "http://127.0.0.1:1", "--actors-file", "/dev/zero"}, "--actors-file /dev/zero is larger than 16 MiB"},
		{[]string{"sim", "cluster", "--script", "/dev/zero"}, "--script /dev/zero is larger than 1 MiB"},
		{[]string{"--config", "/dev/zero", "node", "list"}, "config file /dev/zero is larger than 1 MiB"},
	} {
		res := clitest.CmdRun{Url: "http://127.0.0.1:1"}.Run(t, c.args...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), res.Code, res.Stderr, c.want)
		}
	}
}
