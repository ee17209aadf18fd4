package root_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

func newTree(t *testing.T) *cobra.Command {
	t.Helper()
	ios, _, _, _ := output.Test()
	return root.NewCmdRoot(&cmdutil.Factory{IOStreams: ios})
}

// help runs shakectl ARGS --help and returns its stdout.
func help(t *testing.T, args ...string) string {
	t.Helper()
	ios, _, out, errOut := output.Test()
	f := &cmdutil.Factory{IOStreams: ios, HomeDir: t.TempDir()}
	if code := root.Run(f, append(args, "--help")); code != 0 || !strings.Contains(out.String(), "--help") {
		t.Fatalf("shakectl %v --help: exit %d\n%s%s", args, code, out, errOut)
	}
	return out.String()
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// Every command of the tree is built one way: by the kernel (cmdutil.Verb
// for the API's commands, cmdutil.Local for the others), which marks it.
func TestEveryCommandIsBuiltByTheKernel(t *testing.T) {
	var verbs, locals int
	walk(newTree(t), func(c *cobra.Command) {
		switch c.Annotations[cmdutil.KernelAnnotation] {
		case cmdutil.VerbSession:
			verbs++
		case cmdutil.VerbLocal:
			locals++
		default:
			t.Errorf("%s was not built by the kernel (cmdutil.Verb or cmdutil.Local)", c.CommandPath())
		}
	})
	if verbs < 80 {
		t.Errorf("only %d commands talk to the API through the kernel", verbs)
	}
	t.Logf("%d API commands, %d local ones", verbs, locals)
}

// No command gives itself a run or opens a session by hand: the kernel
// (cmd/cmdutil) is the one place that does.
func TestNoCommandOpensASessionByHand(t *testing.T) {
	forbidden := regexp.MustCompile(`(^|[^A-Za-z])(RunE\s*[:=]|Run\s*[:=]\s*func\([^)]*\*cobra\.Command|[Nn]ewSession\()`)
	scanCommands(t, forbidden, "build the command with cmdutil.Verb or cmdutil.Local instead", func(path string) bool {
		return strings.HasPrefix(path, "../cmdutil/") // the kernel itself
	})
}

// scanCommands fails on each line of code under cmd/ (tests and the files
// skip lets be left out) that forbidden matches, with advice.
func scanCommands(t *testing.T, forbidden *regexp.Regexp, advice string, skip func(path string) bool) {
	t.Helper()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if skip(filepath.ToSlash(path)) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if forbidden.MatchString(code) {
				t.Errorf("%s:%d: %s\n\t%s", path, i+1, strings.TrimSpace(line), advice)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The test above would notice a forbidden line.
func TestTheSourceScanSeesAHandMadeRun(t *testing.T) {
	forbidden := regexp.MustCompile(`(^|[^A-Za-z])(RunE\s*[:=]|Run\s*[:=]\s*func\([^)]*\*cobra\.Command|[Nn]ewSession\()`)
	for _, line := range []string{"\t\tRunE: func(c *cobra.Command, args []string) error {", "\tc.RunE = run", "s, err := cmdutil.NewSession(f, nil)", "Run: func(c *cobra.Command, args []string) {"} {
		if !forbidden.MatchString(line) {
			t.Errorf("not caught: %s", line)
		}
	}
	for _, line := range []string{"\t\tPreRunE: func(c *cobra.Command, args []string) error {", "Run: func(s *cmdutil.Session, args []string) error {"} {
		if forbidden.MatchString(line) {
			t.Errorf("caught, but allowed: %s", line)
		}
	}
}

// Every command declares its positional arguments one way: builders.Args
// (or builders.ArgsCheckedBy), which sets Use's words, Cobra's check and
// the completion together, or the kernel's default of none. Each marks
// the command; its usage ends Use, so the help shows what the check
// enforces; and its completion offers nothing where no argument goes.
func TestEveryCommandDeclaresItsArgumentsOneWay(t *testing.T) {
	var declared int
	walk(newTree(t), func(c *cobra.Command) {
		if c.HasSubCommands() || !c.Runnable() {
			return // the root and the groups: their arguments are commands
		}
		usage, ok := c.Annotations[cmdutil.ArgsAnnotation]
		switch {
		case !ok:
			t.Errorf("%s declares its arguments by hand: declare them with builders.Args", c.CommandPath())
		case usage != "" && !strings.HasSuffix(c.Use, " "+usage):
			t.Errorf("%s: Use %q does not end with its arguments' usage %q", c.CommandPath(), c.Use, usage)
		case c.Args == nil || c.ValidArgsFunction == nil || len(c.ValidArgs) > 0:
			t.Errorf("%s: its check or completion is not the one builders.Args made", c.CommandPath())
		case usage != "":
			declared++
		}
	})
	if declared < 70 {
		t.Errorf("only %d commands declare arguments", declared)
	}
}

// argsByHand is a command's arguments, their check or their completion
// set some other way than builders.Args, or the forms it replaced.
var argsByHand = regexp.MustCompile(`(^|[^A-Za-z])(Args|ValidArgs|ValidArgsFunction)\s*:|\.(ValidArgs|ValidArgsFunction)\s*=[^=]|\b(c|cmd|sub|command)\.Args\s*=[^=]|\b(VerbSpec|NewVerbCmd|CompletePositions|RefArgs|ArgsAccepted)\b`)

// No command declares its arguments, their check or their completion by
// hand, and the second verb form (a spec that re-spelt Cobra's fields)
// and its argument helpers stay gone: a verb is cmdutil.Verb or
// cmdutil.Local around a Cobra command, its arguments builders.Args.
func TestNoCommandDeclaresArgumentsByHand(t *testing.T) {
	allowed := map[string]string{
		"../builders/args.go":  "the one declaration of arguments",
		"../cmdutil/kernel.go": "the kernel's default: none",
		"../root/root.go":      "the root and the command groups, whose arguments are commands; each check made a usage error",
	}
	seen := map[string]bool{}
	scanCommands(t, argsByHand, "declare the arguments with builders.Args, and build the verb with cmdutil.Verb around a Cobra command", func(path string) bool {
		_, ok := allowed[path]
		seen[path] = seen[path] || ok
		return ok
	})
	for path := range allowed {
		if !seen[path] {
			t.Errorf("%s is allowed to declare arguments but is not there", path)
		}
	}
}

// The scan above sees each way of declaring arguments by hand, and lets
// what is not one be.
func TestTheArgsScanSeesAHandMadeDeclaration(t *testing.T) {
	for _, line := range []string{
		"\t\tArgs: cobra.ExactArgs(1),",
		"\t\tArgs:              cmdutil.RefArgs(\"INSTANCE\"),",
		"\t\tValidArgsFunction: complete.InstanceNames(f),",
		"\t\tValidArgs: []string{\"bash\"},",
		"\tc.ValidArgsFunction = cobra.NoFileCompletions",
		"\tc.Args = cobra.MinimumNArgs(1)",
		"\treturn builders.NewVerbCmd(f, builders.VerbSpec{",
		"\t\tValidArgsFunction: builders.CompletePositions(complete.InstanceNames(f)),",
	} {
		if !argsByHand.MatchString(line) {
			t.Errorf("not caught: %s", line)
		}
	}
	for _, line := range []string{
		"\treturn builders.Args(c, \"INSTANCE\", complete.InstanceNames(f))",
		"\t\tcfg.Args = o.args",
		"\t\tStartAt: startAt, ProbeArgs: probeArgs,",
		"\tif c.Args == nil {",
	} {
		if argsByHand.MatchString(line) {
			t.Errorf("caught, but allowed: %s", line)
		}
	}
}

// globalFlags is the "Global Flags" section of a --help.
func globalFlags(help string) string {
	_, after, ok := strings.Cut(help, "Global Flags:")
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, "\n\n")
	return before
}

// A command's --help lists the options it takes and no other: the client's
// flags are not among the Global Flags of the commands that refuse them.
func TestHelpListsOnlyTheOptionsACommandTakes(t *testing.T) {
	client := cmdutil.ClientOptionNames()
	none := [][]string{
		{"parking-probe"}, {"parking-probe", "job"}, {"parking-probe", "merge"},
		{"proxy"}, {"wrap"}, {"sim"}, {"sim", "cluster"}, {"sim", "router"},
		{"demo"}, {"version"}, {"completion"}, {"context"}, {"context", "create"}, {"context", "list"},
	}
	for _, args := range none {
		g := globalFlags(help(t, args...))
		for _, name := range client {
			if strings.Contains(g, "--"+name+" ") {
				t.Errorf("shakectl %s --help lists --%s under Global Flags:\n%s", strings.Join(args, " "), name, g)
			}
		}
	}
	// Nor are the output filters, which the commands whose output is not
	// the API's objects refuse; every command that prints them lists them.
	for _, args := range [][]string{
		{"parking-probe"}, {"parking-probe", "job"}, {"parking-probe", "merge"},
		{"proxy"}, {"wrap"}, {"sim"}, {"sim", "cluster"}, {"sim", "router"}, {"demo"}, {"completion"},
	} {
		out := help(t, args...)
		for _, name := range []string{"--jq ", "--no-headers "} {
			if strings.Contains(out, name) {
				t.Errorf("shakectl %s --help lists %s, which it refuses:\n%s", strings.Join(args, " "), name, out)
			}
		}
	}
	for _, args := range [][]string{{"instance", "list"}, {"api"}, {"version"}, {"config", "view"}, {"context", "list"}} {
		out := help(t, args...)
		for _, name := range []string{"--jq string", "--no-headers "} {
			if !strings.Contains(out, name) {
				t.Errorf("shakectl %s --help does not list %s:\n%s", strings.Join(args, " "), name, out)
			}
		}
	}
	// -o lists the formats a command accepts, nothing it refuses; every
	// format of the others.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"parking-probe"}, "output format: table, json, yaml (default \"table\")\n"},
		{[]string{"parking-probe", "merge"}, "output format: table, json, yaml (default \"table\")\n"},
		{[]string{"api"}, "output format: json, yaml\n"},
		{[]string{"proxy"}, "output format: table, json (default \"table\")\n"},
		{[]string{"demo"}, "output format: table (default \"table\")\n"},
		{[]string{"network", "ping"}, "output format: table, simple, json, yaml (default \"table\")\n"},
		{[]string{"instance", "list"}, "output format: table, simple, json, yaml, or columns=NAME,STATE,… (a table of those columns) (default \"table\")\n"},
	} {
		if out := help(t, c.args...); strings.Count(out, "--output string") != 1 || !strings.Contains(out, c.want) {
			t.Errorf("shakectl %s --help: want one -o, %q:\n%s", strings.Join(c.args, " "), c.want, out)
		}
	}
	// And TAB offers them alone.
	ios, _, out, _ := output.Test()
	if code := root.Run(&cmdutil.Factory{IOStreams: ios, HomeDir: t.TempDir()}, []string{"__complete", "api", "-o", ""}); code != 0 ||
		!strings.HasPrefix(out.String(), "json\t") || strings.Contains(out.String(), "table") {
		t.Errorf("shakectl api -o <TAB> offers:\n%s", out)
	}
	// proxy and wrap take the API URL and the context, as their own flags.
	for _, c := range []string{"proxy", "wrap"} {
		out := help(t, c)
		for _, want := range []string{"--api-url string", "--context string"} {
			if !strings.Contains(out, want) {
				t.Errorf("shakectl %s --help does not list %s:\n%s", c, want, out)
			}
		}
		for _, refused := range []string{"--key ", "--namespace ", "--async ", "--retry-transient-capacity"} {
			if strings.Contains(out, refused) {
				t.Errorf("shakectl %s --help lists %s", c, refused)
			}
		}
	}
	// The API's commands list every client option; api, alone under the
	// root, as its own flags.
	if out := help(t, "api"); !strings.Contains(out, "--key string") || !strings.Contains(out, "--retry-transient-capacity") {
		t.Errorf("shakectl api --help does not list the client's flags:\n%s", out)
	}
	for _, args := range [][]string{{"instance", "list"}, {"artifact", "get-metadata"}, {"config", "view"}} {
		g := globalFlags(help(t, args...))
		for _, name := range client {
			if !strings.Contains(g, "--"+name+" ") {
				t.Errorf("shakectl %s --help does not list --%s under Global Flags:\n%s", strings.Join(args, " "), name, g)
			}
		}
	}
}

// The refusal of a client flag names the commands that take it, found in
// their declarations: a group added to the tree appears in it, and every
// group of the API's commands is there.
func TestDoesNotApplyMessageComesFromTheDeclarations(t *testing.T) {
	refuse := func(tree *cobra.Command, args ...string) string {
		t.Helper()
		c, rest, err := tree.Find(args)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ParseFlags(rest); err != nil {
			t.Fatal(err)
		}
		err = cmdutil.CheckClientFlags(c)
		if err == nil {
			t.Fatalf("%v: not refused", args)
		}
		return err.Error()
	}
	tree := newTree(t)
	got := refuse(tree, "parking-probe", "--key", "k")
	prefix := "--key does not apply to shakectl parking-probe: it configures the Shakenfist API client ("
	list, ok := strings.CutPrefix(got, prefix)
	if !ok || !strings.HasSuffix(list, ")") {
		t.Fatalf("got %s", got)
	}
	named := strings.Split(strings.TrimSuffix(list, ")"), ", ")
	for _, want := range []string{"api", "artifact", "blob", "cluster-operation", "config", "instance", "label", "namespace", "network", "node"} {
		if !slices.Contains(named, want) {
			t.Errorf("%s is not named: %s", want, got)
		}
	}
	for _, not := range []string{"parking-probe", "sim", "demo", "version", "context", "completion", "proxy", "wrap"} {
		if slices.Contains(named, not) {
			t.Errorf("%s is named: %s", not, got)
		}
	}
	if got := refuse(tree, "version", "--api-url", "http://x"); !strings.Contains(got, "api, artifact,") || !strings.Contains(got, "proxy") || !strings.Contains(got, "wrap") {
		t.Errorf("--api-url is taken by proxy and wrap too: %s", got)
	}
	if got := refuse(tree, "proxy", "--namespace", "n"); got != "--namespace does not apply to shakectl proxy: of the client's settings it takes only --api-url, --context, --insecure" {
		t.Errorf("proxy: %s", got)
	}

	// A new group of API commands is named without anyone editing a list.
	tree = newTree(t)
	widget := &cobra.Command{Use: "widget"}
	widget.AddCommand(cmdutil.Verb(&cmdutil.Factory{}, &cobra.Command{Use: "list"}, func(*cmdutil.Session, []string) error { return nil }))
	tree.AddCommand(widget)
	if got := refuse(tree, "version", "--key", "k"); !strings.HasSuffix(got, ", widget)") {
		t.Errorf("the new group is not named: %s", got)
	}
	if slices.Contains(cmdutil.OptionsOf(tree), "key") {
		t.Error("the root takes --key although version does not")
	}
}
