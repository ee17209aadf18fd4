package parkingprobe_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
)

// Issue 28, item 15: --host-template '{actor} evil.com' sent every request
// with an empty Host and failed reached_parking with no explanation. The
// template is rendered before any load; a Host that is not one is a usage
// error naming the flag.
func TestInvalidHostIsAUsageErrorBeforeTheLoad(t *testing.T) {
	t.Parallel()
	srv, hits := countingTarget(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--host-template", "{actor} evil.com"}, `invalid --host-template "{actor} evil.com" for actor "actor-0001": "actor-0001 evil.com" is not a valid Host`},
		{[]string{"--host-template", "{actor}.x/y"}, "is not a valid Host"},
		{[]string{"-H", "Host: a b"}, `invalid Host header "a b"`},
	} {
		f, _, errOut := probeTestFactory(t, context.Background())
		args := append([]string{"parking-probe", "--target", srv.URL, "--requests", "3"}, c.args...)
		if code := root.Run(f, args); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %s", c.args, code, errOut)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent with an invalid Host", n)
	}
}
