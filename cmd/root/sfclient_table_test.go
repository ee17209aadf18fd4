package root_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

// TestSFClientTableIsInStepWithTheCommandTree reads
// docs/sf-client-commands.md (issue 35): every row's shakectl command is a
// leaf of the command tree, every row has a difference written, a row
// marked "—" has no shakectl command of the sf-client name. The
// sf-client side is the table's first column, read from client-python
// 6c25293c commandline/*.py and main.py (87 leaves) and the 2026 claim commands; the
// count pins it, so a row cannot go missing unnoticed.
func TestSFClientTableIsInStepWithTheCommandTree(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "sf-client-commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	f := &cmdutil.Factory{}
	f.IOStreams, _, _, _ = output.Test()
	leaves := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.HasSubCommands() {
			leaves[strings.TrimPrefix(c.CommandPath(), "shakectl ")] = true
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root.NewCmdRoot(f))

	rows := map[string]string{} // sf-client command -> shakectl command ("" for —)
	for _, l := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) != 3 || !strings.HasPrefix(strings.TrimSpace(cells[0]), "`") {
			continue
		}
		sf := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cells[0]), "(2026)"))
		sf = strings.Trim(sf, "` ")
		ours := strings.Trim(strings.TrimSpace(cells[1]), "`")
		diff := strings.TrimSpace(cells[2])
		if _, dup := rows[sf]; dup {
			t.Errorf("sf-client %q has two rows", sf)
		}
		if diff == "" {
			t.Errorf("%s: no difference written (\"none beyond the shared ones\" when there is none)", sf)
		}
		switch {
		case ours == "—":
			rows[sf] = ""
			if leaves[sf] {
				t.Errorf("%s: the table says shakectl lacks it, the tree has it", sf)
			}
		case !leaves[ours]:
			t.Errorf("%s: the table names shakectl %q, which is not a command", sf, ours)
		default:
			rows[sf] = ours
		}
	}
	if len(rows) != 92 {
		t.Errorf("%d sf-client commands in the table, want 92 (87 of 6c25293c, 5 claim commands of 2026)", len(rows))
	}
	// The first column is sf-client's own leaves, as read from its tree
	// (testdata/sfclient-leaves.txt, SOURCES.md): none renamed, none
	// missing, none made up.
	leavesRaw, err := os.ReadFile(filepath.Join("testdata", "sfclient-leaves.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sfLeaves := map[string]bool{}
	for _, l := range strings.Split(string(leavesRaw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			sfLeaves[l] = true
			if _, ok := rows[l]; !ok {
				t.Errorf("sf-client %q has no row", l)
			}
		}
	}
	for sf := range rows {
		if !sfLeaves[sf] {
			t.Errorf("the table's %q is not an sf-client command", sf)
		}
	}
	missing := 0
	for _, ours := range rows {
		if ours == "" {
			missing++
		}
	}
	if missing != 3 {
		t.Errorf("%d sf-client commands without a shakectl one, want the 3 Ansible entry points", missing)
	}
}
