package nobodytest_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shakenfist/shakectl/internal/nobodytest"
)

// The re-run is nobody, with the argument given, in a directory of its own
// that it may write, and a read-only one it may not.
func TestRerunIsNobody(t *testing.T) {
	if arg, child := nobodytest.Arg(); child {
		if uid, gid := os.Geteuid(), os.Getegid(); uid != nobodytest.UID || gid != nobodytest.GID {
			t.Errorf("re-run as %d:%d", uid, gid)
		}
		if groups, _ := os.Getgroups(); len(groups) > 1 || (len(groups) == 1 && groups[0] != nobodytest.GID) {
			t.Errorf("root's supplementary groups kept: %v", groups)
		}
		if err := os.WriteFile(filepath.Join(t.TempDir(), "f"), nil, 0o600); err != nil {
			t.Errorf("its temporary directory: %v", err)
		}
		if err := os.WriteFile(filepath.Join(arg, "f"), nil, 0o600); err == nil {
			t.Errorf("wrote into the read-only %s", arg)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("only root can switch to nobody; uid " + strconv.Itoa(os.Geteuid()))
	}
	s := nobodytest.New(t)
	s.Run(t, s.Mkdir(t, "ro", 0o555))
}
