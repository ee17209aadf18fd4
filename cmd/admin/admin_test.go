package admin_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The locks object of the 2024 server's source
// (client/testdata/sf2024/admin_locks.json), in every output format.
func TestLockListRecordedGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.ReplyRecorded(t, "GET", "/admin/locks", 200, "sf2024/admin_locks.json")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "lock_list", "admin", "lock", "list")
}

// Another namespace than system: the admin decorator's 401, exit 4.
func TestLockListNeedsSystem(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/admin/locks", 401, `{"error": "unauthorized", "status": 401}`)
	if res := clitest.AgainstStubs(s).Run(t, "admin", "lock", "list"); res.Code != cmdutil.ExitAuth {
		t.Fatal(res)
	}
}
