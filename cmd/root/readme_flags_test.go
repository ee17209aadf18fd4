package root_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The manual's configuration page (docs/configuration.md, once README's
// Configuration section) lists which commands take the client's flags,
// and the list went stale as commands were added. Every list in it is
// compared here with what the settings table and the commands'
// declarations (cmdutil.OptionsOf) say: the flags every command takes, the
// client's flags, the commands that take them all, the ones that take
// some (and which), and the ones that refuse them.
func TestManualClientFlagListsMatchTheDeclarations(t *testing.T) {
	_, item, ok := strings.Cut(manualPage(t, "configuration.md"), "\n1. flags: ")
	if ok {
		item, _, ok = strings.Cut(item, "\n2. environment")
	}
	if !ok {
		t.Fatal("docs/configuration.md has no item \"1. flags: … 2. environment\"")
	}
	item = strings.Join(strings.Fields(item), " ")
	ticks := func(s string) []string {
		var out []string
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return out
	}
	part := func(re string) string {
		m := regexp.MustCompile(re).FindStringSubmatch(item)
		if m == nil {
			t.Fatalf("docs/configuration.md's item 1 no longer matches %s:\n%s", re, item)
		}
		return m[1]
	}
	flagNames := func(words []string) []string {
		var names []string
		for _, w := range words {
			name := strings.TrimLeft(w, "-")
			for _, setting := range cmdutil.Settings() {
				if s := setting.Declared(); s.Shorthand != "" && w == "-"+s.Shorthand {
					name = s.Name
				}
			}
			names = append(names, name)
		}
		slices.Sort(names)
		return names
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

	every := flagNames(ticks(part(`^(.*?) on every command;`)))
	filters := flagNames(ticks(part(`command; (.*?) on every command that prints`)))
	noFilters := sorted(ticks(part(`which all but (.*?) do:`)))
	client := flagNames(ticks(part(`the client's flags (.*?), which only`)))
	apiCmds := sorted(ticks(part(`which only the API commands accept \((.*?)\);`)))
	someCmds := sorted(ticks(part(`\); (.*?) take `)))
	someFlags := flagNames(ticks(part(` take (.*?) of them`)))
	noneCmds := sorted(ticks(part(`the others \((.*?)\) refuse them`)))

	var wantEvery, wantClient, wantFilters []string
	for _, setting := range cmdutil.Settings() {
		switch s := setting.Declared(); s.Scope {
		case cmdutil.EveryCommand:
			wantEvery = append(wantEvery, s.Name)
		case cmdutil.ClientCommands:
			wantClient = append(wantClient, s.Name)
		case cmdutil.ObjectCommands:
			wantFilters = append(wantFilters, s.Name)
		}
	}
	// The commands that do not list the output filters in their help,
	// and so refuse them: the tree as built says which.
	var wantNoFilters []string
	for _, c := range newTree(t).Commands() {
		if c.Hidden {
			continue
		}
		var listed bool
		walk(c, func(d *cobra.Command) {
			if fl := d.Flags().Lookup(wantFilters[0]); fl != nil && !fl.Hidden {
				listed = true
			}
			if fl := d.InheritedFlags().Lookup(wantFilters[0]); fl != nil && !fl.Hidden {
				listed = true
			}
			if fl := d.PersistentFlags().Lookup(wantFilters[0]); fl != nil && !fl.Hidden {
				listed = true
			}
		})
		if !listed && c.Name() != "help" {
			wantNoFilters = append(wantNoFilters, c.Name())
		}
	}
	// What each command under the root takes, from its declarations: the
	// options any command beneath it takes.
	takes := map[string][]string{}
	for _, c := range newTree(t).Commands() {
		if c.Hidden {
			continue
		}
		var all []string
		walk(c, func(d *cobra.Command) {
			for _, o := range cmdutil.OptionsOf(d) {
				if !slices.Contains(all, o) {
					all = append(all, o)
				}
			}
		})
		takes[c.Name()] = sorted(all)
	}
	var wantAPI, wantSome, wantNone []string
	var wantSomeFlags []string
	for name, opts := range takes {
		switch {
		case len(opts) == 0:
			wantNone = append(wantNone, name)
		case len(opts) == len(wantClient):
			wantAPI = append(wantAPI, name)
		default:
			wantSome = append(wantSome, name)
			if wantSomeFlags != nil && !slices.Equal(wantSomeFlags, opts) {
				t.Errorf("%s takes %v of the client's flags, another command %v: the manual's one sentence cannot say both", name, opts, wantSomeFlags)
			}
			wantSomeFlags = opts
		}
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"the flags every command takes", every, sorted(wantEvery)},
		{"the output filters", filters, sorted(wantFilters)},
		{"the commands that refuse the output filters", noFilters, sorted(wantNoFilters)},
		{"the client's flags", client, sorted(wantClient)},
		{"the commands that take every client flag", apiCmds, sorted(wantAPI)},
		{"the commands that take some", someCmds, sorted(wantSome)},
		{"the client flags those take", someFlags, wantSomeFlags},
		{"the commands that refuse them", noneCmds, sorted(wantNone)},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("docs/configuration.md, item 1: %s are %q; the declarations say %q", c.what, c.got, c.want)
		}
	}
}
