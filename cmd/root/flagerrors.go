package root

import (
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// plainFlagError is the one rewording of the flag parser's errors, for every
// command, so every command words them alike: a negative number typed as an
// argument is not called an "unknown shorthand flag '1'". A number flag's
// value says what the flag wants in its own words (internal/numflag: the
// flag's kind and range, never strconv's text); so does every other Value;
// every other error is kept.
func plainFlagError(c *cobra.Command, err error) string {
	var notExist *pflag.NotExistError
	if errors.As(err, &notExist) {
		if s := notExist.GetSpecifiedShortnames(); s != "" && negativeNumber().MatchString("-"+s) {
			return fmt.Sprintf("-%s is not a flag of %q: an argument that starts with \"-\" is read as a flag, and no argument here takes a negative number (see the arguments in '%s --help')", s, c.CommandPath(), c.CommandPath())
		}
	}
	return err.Error()
}

// negativeNumber is what a negative number typed as an argument looks like.
// It compiles when a flag error is read, not at every start-up.
var negativeNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[0-9][0-9.eE+-]*$`) })
