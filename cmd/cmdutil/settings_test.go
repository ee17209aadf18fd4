package cmdutil_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/output"
)

// TestEverySettingIsDeclaredOnce: each row of the settings table is a flag
// on every command, is documented with its environment variables in `help
// configuration`, and, where a file may hold it, is listed by config view
// with the environment variable that set it. A new row needs nothing else.
func TestEverySettingIsDeclaredOnce(t *testing.T) {
	ios, _, _, _ := output.Test()
	tree := root.NewCmdRoot(&cmdutil.Factory{IOStreams: ios})
	help := clitest.CmdRun{}.Run(t, "help", "configuration").Stdout
	for _, setting := range cmdutil.Settings() {
		s := setting.Declared()
		fl := tree.PersistentFlags().Lookup(s.Name)
		usage := s.Usage
		if rv, ok := fl.Value.(numflag.RangedValue); ok {
			usage = numflag.WithRange(usage, rv.Range())
		}
		if fl == nil || fl.Usage != usage || fl.Shorthand != s.Shorthand {
			t.Errorf("--%s: flag %+v does not follow the table", s.Name, fl)
		}
		if !strings.Contains(help, "--"+s.Name) {
			t.Errorf("help configuration does not list --%s", s.Name)
		}
		for _, env := range s.EnvNames() {
			if !strings.Contains(help, env) {
				t.Errorf("help configuration does not name %s for --%s", env, s.Name)
			}
		}
		if fl == nil || fl.Value.Type() != "bool" || !s.InFile() {
			continue
		}
		env := s.EnvNames()[len(s.EnvNames())-1]
		res := clitest.CmdRun{Env: map[string]string{env: "true"}}.Run(t, "config", "view", "-o", "json")
		var view map[string]struct{ Value, Source string }
		if err := json.Unmarshal([]byte(res.Stdout), &view); err != nil {
			t.Fatalf("config view -o json: %v\n%s", err, res)
		}
		if got := view[s.Name]; got.Value != "true" || got.Source != "environment variable "+env {
			t.Errorf("%s=true: config view says %+v", env, got)
		}
	}
}
