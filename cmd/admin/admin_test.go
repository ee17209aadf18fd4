package admin_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The locks object the real 2024 server answered (recorded)
// (client/testdata/sf2024/admin_locks.json), in every output format.
func TestLockListRecordedGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.ReplyRecorded(t, "GET", "/admin/locks", 200, "sf2024/admin_locks.json")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "lock_list", "admin", "lock", "list")
}

// A 2026 server's locks (client/testdata/sf2026/admin_locks.json, the
// MariaDB holder's fields): the key and the three shared fields in the
// table, every field under -o json.
func TestLockList2026Recorded(t *testing.T) {
	s := clitest.NewStubs(t)
	s.ReplyRecorded(t, "GET", "/admin/locks", 200, "sf2026/admin_locks.json")
	r := clitest.AgainstStubs(s)
	res := r.Run(t, "admin", "lock", "list", "-o", "simple")
	if res.Code != 0 || res.Stdout != "cluster/\t3326781\tsf-1\tCluster maintenance\n" {
		t.Fatalf("%q\n%s", res.Stdout, res)
	}
	res = r.Run(t, "admin", "lock", "list", "--jq", ".[0] | [.lock, .thread, .id] | @tsv")
	if res.Code != 0 || res.Stdout != "cluster/\t139872440084352\tq2VfS8bzkp6oUPLk\n" {
		t.Fatalf("%q\n%s", res.Stdout, res)
	}
}

// Another namespace than system: the admin decorator's 401, exit 4.
func TestLockListNeedsSystem(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/admin/locks", 401, `{"error": "unauthorized", "status": 401}`)
	if res := clitest.AgainstStubs(s).Run(t, "admin", "lock", "list"); res.Code != cmdutil.ExitAuth {
		t.Fatal(res)
	}
}
