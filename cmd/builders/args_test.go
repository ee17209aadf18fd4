package builders_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// declared builds "shakectl noun NAME" with its arguments declared by
// Args, under a root so that its messages name the command's path.
func declared(t *testing.T, name, usage string, complete ...cobra.CompletionFunc) *cobra.Command {
	t.Helper()
	c := builders.Args(&cobra.Command{Use: name}, usage, complete...)
	root, noun := &cobra.Command{Use: "shakectl"}, &cobra.Command{Use: "noun"}
	root.AddCommand(noun)
	noun.AddCommand(c)
	return c
}

// The usage is the help's and the check's: the words are added to Use,
// and a wrong count or a blank required argument is a usage error (exit
// 2) naming the words.
func TestArgsCheckWhatTheUsageSays(t *testing.T) {
	for _, tc := range []struct {
		usage, use string
		args       []string
		want       string // "" accepts
	}{
		{"INSTANCE", "show INSTANCE", []string{"web1"}, ""},
		{"INSTANCE", "show INSTANCE", nil, "shakectl noun show needs INSTANCE (got 0 arguments)"},
		{"INSTANCE", "show INSTANCE", []string{"a", "b"}, "shakectl noun show needs INSTANCE (got 2 arguments)"},
		{"INSTANCE", "show INSTANCE", []string{" "}, "shakectl noun show: INSTANCE is empty"},
		{"NETWORK ADDRESS", "show NETWORK ADDRESS", []string{"net1"}, "shakectl noun show needs NETWORK ADDRESS (got 1 argument)"},
		{"NETWORK ADDRESS", "show NETWORK ADDRESS", []string{"net1", ""}, "shakectl noun show: ADDRESS is empty"},
		{"INSTANCE [LENGTH]", "show INSTANCE [LENGTH]", []string{"web1"}, ""},
		{"INSTANCE [LENGTH]", "show INSTANCE [LENGTH]", []string{"web1", "10"}, ""},
		// An optional argument is the command's to judge, blank or not.
		{"INSTANCE [LENGTH]", "show INSTANCE [LENGTH]", []string{"web1", ""}, ""},
		{"INSTANCE [LENGTH]", "show INSTANCE [LENGTH]", []string{"web1", "1", "2"}, "shakectl noun show needs INSTANCE [LENGTH] (got 3 arguments)"},
		{"[NODE]", "show [NODE]", nil, ""},
		{"[NODE]", "show [NODE]", []string{"a", "b"}, "shakectl noun show takes [NODE] (got 2 arguments)"},
		{"REPORT...", "show REPORT...", []string{"a", "b", "c"}, ""},
		{"REPORT...", "show REPORT...", nil, "shakectl noun show needs REPORT... (got 0 arguments)"},
		{"[FILE...]", "show [FILE...]", nil, ""},
		// "--" is shown, not counted: Cobra takes it out of the arguments.
		{"INSTANCE -- COMMAND [ARG...]", "show INSTANCE -- COMMAND [ARG...]", []string{"web1", "ls", "-l", "/"}, ""},
		{"INSTANCE -- COMMAND [ARG...]", "show INSTANCE -- COMMAND [ARG...]", []string{"web1"}, "shakectl noun show needs INSTANCE -- COMMAND [ARG...] (got 1 argument)"},
		{"INSTANCE -- COMMAND [ARG...]", "show INSTANCE -- COMMAND [ARG...]", []string{"web1", " "}, "shakectl noun show: COMMAND is empty"},
		// Flags in the usage are shown only; the message names the
		// arguments.
		{"NAME --api-url URL --namespace NS [--key-stdin]", "show NAME --api-url URL --namespace NS [--key-stdin]", []string{"prod"}, ""},
		{"NAME --api-url URL --namespace NS [--key-stdin]", "show NAME --api-url URL --namespace NS [--key-stdin]", nil, "shakectl noun show needs NAME (got 0 arguments)"},
		{"--shards N [--image IMAGE] [flags] -- FLAGS...", "show --shards N [--image IMAGE] [flags] -- FLAGS...", []string{"--target"}, ""},
		{"--shards N [--image IMAGE] [flags] -- FLAGS...", "show --shards N [--image IMAGE] [flags] -- FLAGS...", nil, "shakectl noun show needs -- FLAGS... (got 0 arguments)"},
		// None: Cobra's own refusal, as every command without arguments
		// has always said it.
		{"", "show", nil, ""},
		{"", "show", []string{"x"}, `unknown command "x" for "shakectl noun show"`},
	} {
		c := declared(t, "show", tc.usage)
		if c.Use != tc.use {
			t.Errorf("%q: Use %q, want %q", tc.usage, c.Use, tc.use)
		}
		err := c.Args(c, tc.args)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q %q: refused: %v", tc.usage, tc.args, err)
		case tc.want == "":
		case err == nil:
			t.Errorf("%q %q: accepted, want %q", tc.usage, tc.args, tc.want)
		case err.Error() != tc.want:
			t.Errorf("%q %q: %q, want %q", tc.usage, tc.args, err, tc.want)
		case tc.usage != "" && cmdutil.ExitCode(err) != cmdutil.ExitUsage:
			t.Errorf("%q %q: exit %d, want %d", tc.usage, tc.args, cmdutil.ExitCode(err), cmdutil.ExitUsage)
		}
		if got := c.Annotations[cmdutil.ArgsAnnotation]; got != tc.usage {
			t.Errorf("%q: annotation %q", tc.usage, got)
		}
	}
}

// Each position completes with its word's function, a repeated word's at
// every position from its own; a position without one, or past the
// words, is offered nothing, not even file names.
func TestArgsCompleteEachPosition(t *testing.T) {
	offer := func(what string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return []cobra.Completion{what}, cobra.ShellCompDirectiveDefault
		}
	}
	for _, tc := range []struct {
		usage    string
		complete []cobra.CompletionFunc
		want     []string // by position 0..3; "" is nothing and no files
	}{
		{"INSTANCE", []cobra.CompletionFunc{offer("names")}, []string{"names", "", "", ""}},
		{"NETWORK ADDRESS", []cobra.CompletionFunc{offer("names")}, []string{"names", "", "", ""}},
		{"NAME FILE", []cobra.CompletionFunc{nil, offer("files")}, []string{"", "files", "", ""}},
		{"INSTANCE [DEST]", []cobra.CompletionFunc{offer("names"), offer("files")}, []string{"names", "files", "", ""}},
		{"REPORT...", []cobra.CompletionFunc{offer("json")}, []string{"json", "json", "json", "json"}},
		{"INSTANCE -- COMMAND [ARG...]", []cobra.CompletionFunc{offer("names"), nil, offer("files")}, []string{"names", "", "files", "files"}},
		{"", nil, []string{"", "", "", ""}},
	} {
		c := declared(t, "show", tc.usage, tc.complete...)
		for i, want := range tc.want {
			comps, directive := c.ValidArgsFunction(c, make([]string, i), "")
			got := strings.Join(comps, " ")
			if got != want || want == "" && directive != cobra.ShellCompDirectiveNoFileComp {
				t.Errorf("%q position %d: %q (%v), want %q", tc.usage, i, got, directive, want)
			}
		}
	}
}

// ArgsCheckedBy shows and completes its usage, and its own check judges.
func TestArgsCheckedByTheCommand(t *testing.T) {
	mine := errors.New("want OP_TYPE/OP_UUID or OP_TYPE OP_UUID")
	c := builders.ArgsCheckedBy(&cobra.Command{Use: "show"}, "OP_TYPE/OP_UUID | OP_TYPE OP_UUID", func(_ *cobra.Command, args []string) error {
		if len(args) == 0 || len(args) > 2 {
			return mine
		}
		return nil
	})
	if c.Use != "show OP_TYPE/OP_UUID | OP_TYPE OP_UUID" || c.Annotations[cmdutil.ArgsAnnotation] != "OP_TYPE/OP_UUID | OP_TYPE OP_UUID" {
		t.Errorf("Use %q, annotations %v", c.Use, c.Annotations)
	}
	if err := c.Args(c, []string{"a", "b"}); err != nil {
		t.Errorf("two arguments: %v", err)
	}
	if err := c.Args(c, nil); err != mine {
		t.Errorf("none: %v", err)
	}
}

// A usage the check cannot follow, or completions for words it does not
// have, is a mistake in the command's declaration: the tree does not
// build (every test that builds it fails).
func TestArgsRefuseADeclarationTheyCannotKeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"optional before required", func() { builders.Args(&cobra.Command{Use: "x"}, "[A] B") }},
		{"a word after a repeated one", func() { builders.Args(&cobra.Command{Use: "x"}, "A... B") }},
		{"several forms", func() { builders.Args(&cobra.Command{Use: "x"}, "A | A B") }},
		{"more completions than words", func() { builders.Args(&cobra.Command{Use: "x"}, "A", nil, nil) }},
		{"declared twice", func() { builders.Args(builders.Args(&cobra.Command{Use: "x"}, "A"), "B") }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: accepted", tc.name)
				}
			}()
			tc.f()
		}()
	}
}

// A command built by the kernel without declaring arguments takes none,
// and is offered nothing to complete.
func TestVerbWithoutArgsTakesNone(t *testing.T) {
	c := cmdutil.Verb(&cmdutil.Factory{}, &cobra.Command{Use: "list"}, func(*cmdutil.Session, []string) error { return nil })
	if v, ok := c.Annotations[cmdutil.ArgsAnnotation]; !ok || v != "" {
		t.Errorf("annotation %q, %v", v, ok)
	}
	if err := c.Args(c, []string{"x"}); err == nil {
		t.Error("an argument is accepted")
	}
	if _, directive := c.ValidArgsFunction(c, nil, ""); directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("directive %v", directive)
	}
	// Declared after the kernel built it, the arguments are the command's.
	builders.Args(c, "INSTANCE")
	if c.Use != "list INSTANCE" || c.Args(c, []string{"x"}) != nil {
		t.Errorf("Use %q", c.Use)
	}
}
