package builders

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Args declares c's positional arguments, the one way a command does, in
// one place for the three things Cobra keeps apart: usage names them as
// the help shows them and is added to c's Use; Cobra's check of them
// (c.Args) is made from usage's words; and complete completes them, one
// function a position (c.ValidArgsFunction).
//
// The words of usage:
//
//   - NAME is required and may not be blank;
//   - [NAME] may be left out (after the required words);
//   - NAME... or [NAME...], the last word, repeats: one or more, or any;
//   - "--" is shown and not counted (Cobra takes it out of the arguments);
//   - a flag ("--flag VALUE", "[--flag …]", "[flags]") is shown only.
//
// A position whose function is nil, or has none, is offered nothing, not
// even file names (complete.Files offers them); a repeated word's function
// completes every position from its own. A command that calls neither Args
// nor ArgsCheckedBy takes none (the kernel declares so).
func Args(c *cobra.Command, usage string, complete ...cobra.CompletionFunc) *cobra.Command {
	u := parseArgsUsage(usage)
	if u.forms > 1 {
		panic(fmt.Sprintf("builders.Args: %q has several forms; judge them with ArgsCheckedBy", usage))
	}
	check := u.check
	if len(u.words) == 0 {
		check = cobra.NoArgs
	}
	return declareArgs(c, usage, u, check, complete)
}

// ArgsCheckedBy is Args for arguments whose rule their words cannot say:
// several forms ("OP_TYPE/OP_UUID | OP_TYPE OP_UUID"), a count a flag
// changes, a message of the command's own. check judges them instead of
// usage's words, which are shown and completed as Args does (the first
// form's, for several).
func ArgsCheckedBy(c *cobra.Command, usage string, check cobra.PositionalArgs, complete ...cobra.CompletionFunc) *cobra.Command {
	return declareArgs(c, usage, parseArgsUsage(usage), check, complete)
}

func declareArgs(c *cobra.Command, usage string, u argsUsage, check cobra.PositionalArgs, complete []cobra.CompletionFunc) *cobra.Command {
	if len(complete) > len(u.words) {
		panic(fmt.Sprintf("builders.Args: %d completions for the %d words of %q", len(complete), len(u.words), usage))
	}
	if prev := c.Annotations[cmdutil.ArgsAnnotation]; prev != "" {
		panic(fmt.Sprintf("builders.Args: %s declares its arguments twice (%q, %q)", c.Name(), prev, usage))
	}
	if usage != "" {
		c.Use += " " + usage
	}
	c.Args = check
	c.ValidArgsFunction = u.completion(complete)
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[cmdutil.ArgsAnnotation] = usage
	return c
}

// argsUsage is what the words of a usage say of the arguments.
type argsUsage struct {
	// words are the first form's arguments, in order.
	words []argWord
	// usage is the usage itself, from which a message names the words
	// (text).
	usage string
	// forms counts the forms ("|" separates them).
	forms int
}

type argWord struct {
	name               string
	optional, repeated bool
}

// parseArgsUsage reads the arguments' words of usage. Every command's
// usage is read as the tree is built, at every start-up, so it reads them
// in place, into one slice.
func parseArgsUsage(usage string) argsUsage {
	u := argsUsage{usage: usage}
	var buf [8]argWord
	words := buf[:0]
	u.forms = scanArgsUsage(usage, func(t string) {
		if t == "--" {
			return
		}
		w := argWord{name: t}
		if inner, ok := strings.CutPrefix(t, "["); ok {
			w.name, w.optional = strings.TrimSuffix(inner, "]"), true
		}
		w.name, w.repeated = strings.CutSuffix(w.name, "...")
		if n := len(words); n > 0 && (words[n-1].repeated || words[n-1].optional && !w.optional) {
			panic(fmt.Sprintf("builders.Args: in %q, %s follows a word that may be left out or repeats", usage, t))
		}
		words = append(words, w)
	})
	u.words = slices.Clone(words)
	return u
}

// text is the words as a message names them (flags left out).
func (u argsUsage) text() string {
	var text []string
	scanArgsUsage(u.usage, func(t string) { text = append(text, t) })
	return strings.Join(text, " ")
}

// scanArgsUsage calls word with each word of usage's first form that a
// message names (an argument's, or "--"), in order, and counts the forms.
func scanArgsUsage(usage string, word func(t string)) (forms int) {
	var buf [16]string
	tokens := buf[:0]
	for t := range strings.FieldsSeq(usage) {
		tokens = append(tokens, t)
	}
	forms = 1
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		switch {
		case t == "|":
			forms++
		case forms > 1:
			// The later forms are shown only.
		case t == "[flags]":
		case strings.HasPrefix(t, "[-"):
			for i < len(tokens) && !strings.HasSuffix(tokens[i], "]") {
				i++
			}
		case strings.HasPrefix(t, "-") && t != "--":
			if i+1 < len(tokens) && isValueWord(tokens[i+1]) {
				i++ // the flag's value
			}
		default:
			word(t)
		}
	}
	return forms
}

// isValueWord is a flag's value in a usage, "URL" of "--api-url URL".
func isValueWord(t string) bool {
	return t != "" && t != "|" && t != "--" && !strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "-") && strings.ToUpper(t) == t
}

// check is Cobra's check of the arguments: how many the words take, and
// no blank one where a required word stands.
func (u argsUsage) check(c *cobra.Command, args []string) error {
	least, most := 0, len(u.words)
	for _, w := range u.words {
		if !w.optional {
			least++
		}
		if w.repeated {
			most = -1
		}
	}
	if len(args) < least || most >= 0 && len(args) > most {
		want := "needs " + u.text()
		if least == 0 {
			want = "takes " + u.text()
		}
		return cmdutil.ArgsCountError(c, want, len(args))
	}
	for i, w := range u.words {
		if i < len(args) && !w.optional && !w.repeated && strings.TrimSpace(args[i]) == "" {
			return cmdutil.UsageErrorf("%s: %s is empty", c.CommandPath(), w.name)
		}
	}
	return nil
}

// completion completes each position with its word's function.
func (u argsUsage) completion(fns []cobra.CompletionFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		i := len(args)
		if n := len(u.words); n > 0 && i >= n && u.words[n-1].repeated {
			i = n - 1
		}
		if i >= len(fns) || fns[i] == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fns[i](c, args, toComplete)
	}
}
