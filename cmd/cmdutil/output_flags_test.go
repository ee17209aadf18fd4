package cmdutil_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// -o table asked for explicitly keeps its header when piped; the default
// table piped does not (it equals -o simple, for cut and while read).
func TestExplicitTableKeepsItsHeaderWhenPiped(t *testing.T) {
	r := clitest.AgainstStubs(clitest.NewFixtureStubs(t))
	if res := r.Run(t, "instance", "list", "-o", "table"); res.Code != 0 || !strings.HasPrefix(res.Stdout, "UUID ") {
		t.Errorf("explicit -o table, piped:\n%s", res)
	}
	r.Env = map[string]string{"SHAKECTL_OUTPUT": "table"}
	if res := r.Run(t, "instance", "list"); !strings.HasPrefix(res.Stdout, "UUID ") {
		t.Errorf("SHAKECTL_OUTPUT=table, piped:\n%s", res)
	}
	r.Env = nil
	if res := r.Run(t, "instance", "list"); strings.Contains(res.Stdout, "UUID") {
		t.Errorf("default table, piped, has a header:\n%s", res)
	}
}

func TestNoHeaders(t *testing.T) {
	r := clitest.AgainstStubs(clitest.NewFixtureStubs(t))
	r.Tty = true
	for _, args := range [][]string{{"instance", "list"}, {"network", "list"}, {"node", "list"}, {"namespace", "list"}} {
		res := r.Run(t, append(args, "--no-headers")...)
		if res.Code != 0 || strings.Contains(res.Stdout, "NAME") {
			t.Errorf("%v --no-headers:\n%s", args, res)
		}
	}
}

func TestOutputColumns(t *testing.T) {
	r := clitest.AgainstStubs(clitest.NewFixtureStubs(t))
	res := r.Run(t, "instance", "list", "-o", "columns=name,state")
	want := "NAME                 STATE\nweb1                 created\ndb-with-a-long-name  created-error\nbatch                preflight\n"
	if res.Code != 0 || res.Stdout != want {
		t.Errorf("got\n%s\nwant\n%s", res, want)
	}
	res = r.Run(t, "instance", "list", "-o", "columns=NAME,Colour")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, `unknown column "Colour"`) || !strings.Contains(res.Stderr, "UUID,NAME,NAMESPACE") {
		t.Errorf("unknown column:\n%s", res)
	}
}

func TestJQFiltersJSON(t *testing.T) {
	r := clitest.AgainstStubs(clitest.NewFixtureStubs(t))
	res := r.Run(t, "instance", "list", "--jq", `.[] | select(.cpus > 1) | .name`)
	if res.Code != 0 || res.Stdout != "web1\ndb-with-a-long-name\n" {
		t.Errorf("--jq:\n%s", res)
	}
	res = r.Run(t, "instance", "show", "web1", "--jq", `{name, cpus}`)
	var obj map[string]any
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &obj) != nil || obj["cpus"] != 2.0 {
		t.Errorf("--jq object:\n%s", res)
	}
	res = r.Run(t, "api", "GET", "/instances", "--jq", `length`)
	if res.Code != 0 || res.Stdout != "3\n" {
		t.Errorf("api --jq:\n%s", res)
	}
	res = r.Run(t, "instance", "list", "--jq", `.[] | `)
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "invalid --jq expression") {
		t.Errorf("bad --jq:\n%s", res)
	}
}

// A long name must not wreck an 80-column table on a terminal, and the
// table must not lie to fit: the other columns give way, every UUID stays
// whole (one cut short names nothing to copy into the next command), and a
// row that still does not fit is left for the terminal to wrap. Piped and
// simple output are never cut.
func TestLongCellsFitTheTerminal(t *testing.T) {
	long := strings.Repeat("very-long-name-", 8)
	r := clitest.AgainstStubs(clitest.NewFixtureStubs(t, append(slices.Clone(clitest.FixtureInstances), json.RawMessage(`{"uuid":"c3d2e1f0-aaaa-4bbb-8ccc-ddddeeee0009","name":"`+long+`","namespace":"ns1","cpus":1,"memory":1024,"node":"node1","state":"created","power_state":"on"}`))...))
	r.Tty, r.Width = true, 80
	res := r.Run(t, "instance", "list")
	clitest.Golden(t, "instance_list_80_columns", res.Stdout)
	for _, raw := range clitest.FixtureInstances {
		var inst struct{ UUID string }
		if err := json.Unmarshal(raw, &inst); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Stdout, inst.UUID+"  ") {
			t.Errorf("UUID %s is not whole on an 80-column terminal:\n%s", inst.UUID, res.Stdout)
		}
	}
	if !strings.Contains(res.Stdout, "very-lo…") {
		t.Errorf("want the long name cut with an ellipsis:\n%s", res.Stdout)
	}
	r.Tty = false
	if res := r.Run(t, "instance", "list", "-o", "simple"); !strings.Contains(res.Stdout, long) {
		t.Errorf("simple output was cut:\n%s", res.Stdout)
	}
}

// A bad value names its source: the variable, or the file and key.
func TestBadValueNamesItsSource(t *testing.T) {
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_OUTPUT": "xml"}}
	res := r.Run(t, "instance", "list")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "SHAKECTL_OUTPUT") {
		t.Errorf("SHAKECTL_OUTPUT=xml:\n%s", res)
	}
	w := newConfigWorld(t)
	w.write(w.configFile(), "timeout: forever\n", 0o600)
	_, _, err := w.load()
	if err == nil || !strings.Contains(err.Error(), w.configFile()) || !strings.Contains(err.Error(), "key timeout") {
		t.Errorf("timeout: forever: %v", err)
	}
}
