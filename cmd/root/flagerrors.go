package root

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// plainFlagError is the one rewording of the flag parser's errors, for every
// command (issue 34, item 13): a number flag's value says what the flag
// wants rather than quoting strconv ("strconv.ParseInt: parsing "1e9":
// invalid syntax"), and a negative number typed as an argument is not
// called an "unknown shorthand flag '1'". Errors a flag's own Value gave
// (a duration, a size) are already in words and are kept; so is every
// other error.
func plainFlagError(c *cobra.Command, err error) string {
	var invalid *pflag.InvalidValueError
	var notExist *pflag.NotExistError
	switch {
	case errors.As(err, &invalid):
		var num *strconv.NumError
		if !errors.As(err, &num) {
			break
		}
		f := invalid.GetFlag()
		return fmt.Sprintf("invalid argument %q for \"--%s\" flag: %s", invalid.GetValue(), f.Name, wantNumber(f.Value.Type(), invalid.GetValue(), num))
	case errors.As(err, &notExist):
		if s := notExist.GetSpecifiedShortnames(); s != "" && negativeNumber.MatchString("-"+s) {
			return fmt.Sprintf("-%s is not a flag of %q: an argument that starts with \"-\" is read as a flag, and no argument here takes a negative number (see the arguments in '%s --help')", s, c.CommandPath(), c.CommandPath())
		}
	}
	return err.Error()
}

// negativeNumber is what a negative number typed as an argument looks like.
var negativeNumber = regexp.MustCompile(`^-[0-9][0-9.eE+-]*$`)

// wantNumber says what a number flag of pflag type typ takes, for the value
// v that strconv refused.
func wantNumber(typ, v string, num *strconv.NumError) string {
	unsigned := strings.HasPrefix(typ, "uint")
	float := strings.HasPrefix(typ, "float")
	var want string
	switch {
	case float:
		want = "a number, such as 0.5 or 2"
	case unsigned:
		want = "a whole number, 0 or more, in digits"
	default:
		want = "a whole number in digits"
	}
	switch {
	case errors.Is(num.Err, strconv.ErrRange):
		return fmt.Sprintf("it is out of range: want %s", want)
	case unsigned && strings.HasPrefix(strings.TrimSpace(v), "-"):
		return fmt.Sprintf("it is negative: want %s", want)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !float && f == float64(int64(f)) {
		return fmt.Sprintf("want %s, such as %d for %s", want, int64(f), v)
	}
	return fmt.Sprintf("want %s", want)
}
