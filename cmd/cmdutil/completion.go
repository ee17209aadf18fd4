package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// FixedWithDesc completes a fixed set of values, each with its description
// if any, and never file names. Values are filtered by what is typed so
// far, so the answer is right even for a shell that does not filter.
func FixedWithDesc(values []string, desc map[string]string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var comps []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				comps = append(comps, strings.TrimSuffix(cobra.CompletionWithDesc(v, desc[v]), "\t"))
			}
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	}
}

// Must panics on a programming error in the command tree's wiring (a flag
// name that does not exist); tests catch it long before a user could.
func Must(err error) {
	if err != nil {
		panic(fmt.Sprintf("completion wiring: %v", err))
	}
}
