package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// -o table asked for explicitly keeps its header when piped; the default
// table piped does not (it equals -o simple, for cut and while read).
func TestExplicitTableKeepsItsHeaderWhenPiped(t *testing.T) {
	r := against(newFakeAPI(t))
	if res := r.run(t, "instance", "list", "-o", "table"); res.code != 0 || !strings.HasPrefix(res.stdout, "UUID ") {
		t.Errorf("explicit -o table, piped:\n%s", res)
	}
	r.env = map[string]string{"SHAKECTL_OUTPUT": "table"}
	if res := r.run(t, "instance", "list"); !strings.HasPrefix(res.stdout, "UUID ") {
		t.Errorf("SHAKECTL_OUTPUT=table, piped:\n%s", res)
	}
	r.env = nil
	if res := r.run(t, "instance", "list"); strings.Contains(res.stdout, "UUID") {
		t.Errorf("default table, piped, has a header:\n%s", res)
	}
}

func TestNoHeaders(t *testing.T) {
	r := against(newFakeAPI(t))
	r.tty = true
	for _, args := range [][]string{{"instance", "list"}, {"network", "list"}, {"node", "list"}, {"namespace", "list"}} {
		res := r.run(t, append(args, "--no-headers")...)
		if res.code != 0 || strings.Contains(res.stdout, "NAME") {
			t.Errorf("%v --no-headers:\n%s", args, res)
		}
	}
}

func TestOutputColumns(t *testing.T) {
	r := against(newFakeAPI(t))
	res := r.run(t, "instance", "list", "-o", "columns=name,state")
	want := "NAME                 STATE\nweb1                 created\ndb-with-a-long-name  created-error\nbatch                preflight\n"
	if res.code != 0 || res.stdout != want {
		t.Errorf("got\n%s\nwant\n%s", res, want)
	}
	res = r.run(t, "instance", "list", "-o", "columns=NAME,Colour")
	if res.code != ExitUsage || !strings.Contains(res.stderr, `unknown column "Colour"`) || !strings.Contains(res.stderr, "UUID,NAME,NAMESPACE") {
		t.Errorf("unknown column:\n%s", res)
	}
}

func TestJQFiltersJSON(t *testing.T) {
	r := against(newFakeAPI(t))
	res := r.run(t, "instance", "list", "--jq", `.[] | select(.cpus > 1) | .name`)
	if res.code != 0 || res.stdout != "web1\ndb-with-a-long-name\n" {
		t.Errorf("--jq:\n%s", res)
	}
	res = r.run(t, "instance", "show", "web1", "--jq", `{name, cpus}`)
	var obj map[string]any
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &obj) != nil || obj["cpus"] != 2.0 {
		t.Errorf("--jq object:\n%s", res)
	}
	res = r.run(t, "api", "GET", "/instances", "--jq", `length`)
	if res.code != 0 || res.stdout != "3\n" {
		t.Errorf("api --jq:\n%s", res)
	}
	res = r.run(t, "instance", "list", "--jq", `.[] | `)
	if res.code != ExitUsage || !strings.Contains(res.stderr, "invalid --jq expression") {
		t.Errorf("bad --jq:\n%s", res)
	}
}

// A long name must not wreck an 80-column table on a terminal; piped and
// simple output are never cut.
func TestLongCellsFitTheTerminal(t *testing.T) {
	fa := newFakeAPI(t)
	long := strings.Repeat("very-long-name-", 8)
	fa.instances = append(fa.instances, json.RawMessage(`{"uuid":"c3d2e1f0-aaaa-4bbb-8ccc-ddddeeee0009","name":"`+long+`","namespace":"ns1","cpus":1,"memory":1024,"node":"node1","state":"created","power_state":"on"}`))
	r := against(fa)
	r.tty, r.width = true, 80
	res := r.run(t, "instance", "list")
	for _, l := range strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("a %d-column line on an 80-column terminal: %q", n, l)
		}
	}
	if !strings.Contains(res.stdout, "very-lo…") {
		t.Errorf("want the long name cut with an ellipsis:\n%s", res.stdout)
	}
	r.tty = false
	if res := r.run(t, "instance", "list", "-o", "simple"); !strings.Contains(res.stdout, long) {
		t.Errorf("simple output was cut:\n%s", res.stdout)
	}
}

// A bad value names its source: the variable, or the file and key.
func TestBadValueNamesItsSource(t *testing.T) {
	r := cmdRun{env: map[string]string{"SHAKECTL_OUTPUT": "xml"}}
	res := r.run(t, "instance", "list")
	if res.code != ExitUsage || !strings.Contains(res.stderr, "SHAKECTL_OUTPUT") {
		t.Errorf("SHAKECTL_OUTPUT=xml:\n%s", res)
	}
	w := newConfigWorld(t)
	w.write(w.configFile(), "timeout: forever\n", 0o600)
	_, _, err := w.load()
	if err == nil || !strings.Contains(err.Error(), w.configFile()) || !strings.Contains(err.Error(), "key timeout") {
		t.Errorf("timeout: forever: %v", err)
	}
}
