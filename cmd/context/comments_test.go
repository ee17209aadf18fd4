package context_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// A config write keeps every hand-written comment that is not about what
// it removes (issue 28, item 2; the rule is configedit's removeEntryAt): a
// removed context takes its own note (the paragraph directly above it, the
// comments inside it) and nothing else; a block's title above a blank
// line, the comments that end the block, and the comments over the
// current-context and contexts keys stay. Each case's file is
// testdata/comments/NAME.yaml, from IN.in.yaml after the commands;
// UPDATE_GOLDEN=1 rewrites them.
func TestConfigWritesKeepCommentsNotAboutTheRemovedEntry(t *testing.T) {
	for _, c := range []struct {
		name, in string
		cmds     [][]string
	}{
		// The first context carries the block's title in its head
		// comment; the current context's deletion empties
		// current-context, its comment and the file's last one kept.
		{"delete-first", "hand", [][]string{{"delete", "lab"}}},
		// The last context carries the comments that end the block.
		{"delete-last", "hand", [][]string{{"delete", "prod"}}},
		// The section stays, emptied, with its comment and the kept ones.
		{"delete-all", "hand", [][]string{{"delete", "lab"}, {"delete", "old"}, {"delete", "prod"}}},
		// The emptied section grows back as a block, after its comments.
		{"delete-all-create", "hand", [][]string{{"delete", "lab"}, {"delete", "old"}, {"delete", "prod"}, {"create", "new", "--api-url", "http://new/api"}}},
		// An alias to a removed anchor becomes a copy of what it named:
		// written as it was, the file is no longer YAML.
		{"delete-anchored", "anchors", [][]string{{"delete", "lab"}}},
		// An emptied section keeps its line comment on its line
		// ("contexts: # x" over "{}" is not YAML), and takes it back
		// when it grows again.
		{"delete-all-line-comment", "anchors", [][]string{{"delete", "lab"}, {"delete", "lab-2"}}},
		{"delete-all-line-comment-create", "anchors", [][]string{{"delete", "lab"}, {"delete", "lab-2"}, {"create", "new", "--api-url", "http://new/api"}}},
		// A create rewrites nothing it did not change: old's empty
		// "key:" stays as written.
		{"create", "hand", [][]string{{"create", "new", "--api-url", "http://new/api"}}},
		// The note of last session: a create removed an empty
		// current-context, and the comment above it with it.
		{"create-unset", "unset", [][]string{{"create", "new", "--api-url", "http://new/api"}}},
		// Issue 28's hostile note: the comment directly above the
		// current-context: "" a delete leaves survives the next write,
		// whichever command it is.
		{"delete-current-use", "hand", [][]string{{"delete", "lab"}, {"use", "old"}}},
		{"delete-current-create", "hand", [][]string{{"delete", "lab"}, {"create", "new", "--api-url", "http://new/api", "--use"}}},
		{"delete-current-delete", "hand", [][]string{{"delete", "lab"}, {"delete", "prod"}}},
		// A comment between "contexts:" and its null value hangs on the
		// value node in yaml.v3's tree; the mapping that replaces it on
		// the first create keeps it.
		{"create-null", "null", [][]string{{"create", "new", "--api-url", "http://new/api"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "comments", c.in+".in.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(file, in, 0o600); err != nil {
				t.Fatal(err)
			}
			r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}}
			for _, args := range c.cmds {
				if res := r.Run(t, append([]string{"context"}, args...)...); res.Code != 0 {
					t.Fatalf("%v: %+v", args, res)
				}
			}
			got, _ := os.ReadFile(file)
			checkGolden(t, filepath.Join("comments", c.name+".yaml"), string(got))
		})
	}
}

// checkGolden compares got with testdata/name; UPDATE_GOLDEN=1 rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if got != string(want) {
		t.Errorf("config file differs from %s:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}
