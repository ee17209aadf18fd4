package root_test

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/numflag"
)

// Issue 40: every number a flag takes has a declared range, in the flag's
// declaration. NaN, ±Inf and out-of-range values are usage errors (exit
// 2) naming the flag and the range, refused while the command line is
// parsed, so before any work starts.

// numericType is a flag type pflag gives a number: int, int64, uint8,
// float64, duration, count and their slices.
var numericType = regexp.MustCompile(`^(u?int(8|16|32|64)?|float(32|64)?|duration|count)(Slice)?$`)

// unrangedNumbers lists the numeric flags of the tree under c that are not
// a numflag.RangedValue: a flag whose pflag type is a number, or whose
// value is a number underneath (a custom type such as a size).
func unrangedNumbers(c *cobra.Command) []string {
	var bad []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if _, ok := fl.Value.(numflag.RangedValue); ok {
				return
			}
			v := reflect.ValueOf(fl.Value)
			for v.Kind() == reflect.Pointer {
				v = v.Elem()
			}
			switch v.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			default:
				if !numericType.MatchString(fl.Value.Type()) {
					return
				}
			}
			bad = append(bad, fmt.Sprintf("%s --%s (%s)", c.CommandPath(), fl.Name, fl.Value.Type()))
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(c)
	return bad
}

// TestEveryNumericFlagDeclaresItsRange walks every command's flags: a
// number declared with pflag's IntVar, DurationVar, Float64Var … (or a
// type of its own) rather than numflag.Var has no range.
func TestEveryNumericFlagDeclaresItsRange(t *testing.T) {
	for _, b := range unrangedNumbers(newTree(t)) {
		t.Errorf("%s is a number without a range: declare it with numflag.Var (internal/numflag), or give the setting a Range", b)
	}
}

// The walk above would notice each kind of unranged number.
func TestTheRangeWalkSeesAnUnrangedNumber(t *testing.T) {
	type size int64
	c := &cobra.Command{Use: "probe"}
	var (
		i int
		u uint64
		d time.Duration
		x float64
		s size
	)
	c.Flags().IntVar(&i, "an-int", 0, "")
	c.Flags().Uint64Var(&u, "a-uint", 0, "")
	c.Flags().DurationVar(&d, "a-duration", 0, "")
	c.Flags().Float64Var(&x, "a-float", 0, "")
	c.Flags().Var((*sizeFlag)(&s), "a-size", "")
	c.Flags().IntSlice("ints", nil, "")
	c.Flags().String("text", "", "")
	c.Flags().Bool("yes", false, "")
	numflag.Var(c.Flags(), &i, "ranged", 1, numflag.Between(1, 9), "")
	got := unrangedNumbers(c)
	want := []string{"probe --a-duration (duration)", "probe --a-float (float64)", "probe --a-size (size)", "probe --a-uint (uint64)", "probe --an-int (int)", "probe --ints (intSlice)"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("unranged:\n%q\nwant\n%q", got, want)
	}
}

type sizeFlag int64

func (s *sizeFlag) String() string { return strconv.FormatInt(int64(*s), 10) }
func (s *sizeFlag) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	*s = sizeFlag(n)
	return err
}
func (s *sizeFlag) Type() string { return "size" }

// declaredRange reads a flag's range back from its words ("from 1 to
// 100", "more than 0 and at most 24h"), as a user reads it in --help:
// the test's oracle is what the flag says, not the code that checks it.
type declaredRange struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

var rangeWords = regexp.MustCompile(`^(from|more than) (\S+) (to|and at most|to less than|and less than) (\S+)$`)

func parseDeclaredRange(t *testing.T, typ, text string) declaredRange {
	t.Helper()
	m := rangeWords.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("range %q is not in words this test reads", text)
	}
	lo, ok1 := numberOf(typ, m[2], false)
	hi, ok2 := numberOf(typ, m[4], false)
	if !ok1 || !ok2 {
		t.Fatalf("range %q: ends are not %s values", text, typ)
	}
	return declaredRange{lo: lo, hi: hi, loOpen: m[1] == "more than", hiOpen: strings.Contains(m[3], "less than")}
}

func (r declaredRange) contains(v float64) bool {
	return (v > r.lo || !r.loOpen && v == r.lo) && (v < r.hi || !r.hiOpen && v == r.hi)
}

// numberOf reads text as a value of a flag type, independently of
// numflag: ok is false when it is not one. A duration is in nanoseconds;
// bareSeconds also reads a plain number as seconds (--timeout's form).
func numberOf(typ, text string, bareSeconds bool) (float64, bool) {
	switch typ {
	case "int", "uint":
		if typ == "uint" && strings.HasPrefix(text, "-") {
			return 0, false
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(text, 10, 64)
			return float64(u), uerr == nil && typ == "uint"
		}
		return float64(n), true
	case "float":
		f, err := strconv.ParseFloat(text, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case "duration":
		if d, err := time.ParseDuration(text); err == nil {
			return float64(d), true
		}
		if f, err := strconv.ParseFloat(text, 64); err == nil && bareSeconds && math.Abs(f) < 1e9 {
			return f * float64(time.Second), true
		}
		return 0, false
	case "size":
		if strings.HasPrefix(text, "-") {
			return 0, false
		}
		n, err := humanize.ParseBytes(text)
		return float64(n), err == nil && n <= math.MaxInt64
	}
	return 0, false
}

// tries are the values each kind of flag is given: NaN, the infinities,
// -1, 0, 1 and huge ones, each as that kind writes it.
var tries = map[string][]string{
	"int":      {"NaN", "Inf", "-1", "0", "1", "100000", "9223372036854775807", "1e300", "1.5"},
	"uint":     {"NaN", "Inf", "-1", "0", "1", "100000", "18446744073709551615", "1e300"},
	"float":    {"NaN", "Inf", "+Inf", "-Inf", "-1", "0", "0.5", "1", "100000", "1e300"},
	"duration": {"NaN", "Inf", "-1", "-1s", "0", "0s", "1ms", "1s", "100000", "100000h", "9223372036854775807ns", "1e300s"},
	"size":     {"NaN", "Inf", "-1", "0", "1", "64Mi", "100000", "9223372036854775807", "1e300"},
}

// TestEveryNumericFlagRefusesWhatIsOutsideItsRange gives every numeric
// flag of every command NaN, ±Inf, -1, 0 and huge values through the flag
// parser (the path every run takes before its work): each value in the
// range the flag declares is accepted, each other one is a usage error
// (exit 2) that names the flag and its range.
func TestEveryNumericFlagRefusesWhatIsOutsideItsRange(t *testing.T) {
	tree := newTree(t)
	// A setting's flag (on the root, and its copies on the command
	// groups) reads a bare number as seconds, as sf-client's users
	// write a timeout; a command's own flag of that name does not.
	settings := map[string]reflect.Type{}
	for _, s := range cmdutil.Settings() {
		if fl := tree.PersistentFlags().Lookup(s.Declared().Name); fl != nil {
			settings[fl.Name] = reflect.TypeOf(fl.Value)
		}
	}
	flags := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			rv, ok := fl.Value.(numflag.RangedValue)
			if !ok {
				return
			}
			flags++
			typ := rv.Type()
			r := parseDeclaredRange(t, typ, rv.Range())
			bare := settings[fl.Name] == reflect.TypeOf(fl.Value)
			for _, v := range tries[typ] {
				n, isNumber := numberOf(typ, v, bare)
				want := isNumber && r.contains(n)
				err := c.ParseFlags([]string{"--" + fl.Name + "=" + v})
				if err != nil {
					err = c.FlagErrorFunc()(c, err)
				}
				switch {
				case tries[typ] == nil:
					t.Fatalf("%s --%s: no values to try for type %s", c.CommandPath(), fl.Name, typ)
				case want && err != nil:
					t.Errorf("%s --%s=%s: refused, but it is %s: %v", c.CommandPath(), fl.Name, v, rv.Range(), err)
				case !want && err == nil:
					t.Errorf("%s --%s=%s: accepted, but it is not %s (now %s)", c.CommandPath(), fl.Name, v, rv.Range(), fl.Value)
				case err != nil:
					msg := cmdutil.DescribeError(err).Message
					if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage || !strings.Contains(msg, "--"+fl.Name) || !strings.Contains(msg, rv.Range()) {
						t.Errorf("%s --%s=%s: exit %d, %q; want exit 2 naming --%s and %q", c.CommandPath(), fl.Name, v, code, msg, fl.Name, rv.Range())
					}
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(tree)
	if flags < 80 {
		t.Errorf("tried %d numeric flags: the walk missed commands", flags)
	}
}

// Issue 40, items 4 and 8, and flag errors in words: the first line of
// stderr for a value outside the range, before anything is started or
// sent.
func TestNumbersOutsideTheirRangeAreUsageErrors(t *testing.T) {
	fa := clitest.NewStubs(t) // no answers: a request fails the test
	for _, c := range []struct {
		args []string
		want string
	}{
		// 100000 CPUs ended in "fatal error: thread exhaustion" and 1.2
		// million lines of stack.
		{[]string{"parking-probe", "--procs", "100000", "--requests", "1", "--target", "http://127.0.0.1:1"},
			`error: invalid argument "100000" for "--procs" flag: it is out of range: want a whole number from 0 to 1024`},
		// NaN compares false with every share: it listed nothing and
		// exited 0.
		{[]string{"node", "cpuhogs", "--threshold", "NaN"},
			`error: invalid argument "NaN" for "-t, --threshold" flag: NaN is not a number: want a number from 0 to 1024`},
		{[]string{"node", "cpuhogs", "-t", "-Inf"},
			`error: invalid argument "-Inf" for "-t, --threshold" flag: it is out of range: want a number from 0 to 1024`},
		{[]string{"wrap", "--retry-wait", "-5s", "--", "true"},
			`error: invalid argument "-5s" for "--retry-wait" flag: it is out of range: want a duration from 0 to 1m`},
		{[]string{"proxy", "--replay-memory", "0"},
			`error: invalid argument "0" for "--replay-memory" flag: it is out of range: want a size from 1 to 64Gi`},
		{[]string{"instance", "consoledata", "web1", "--length", "-1"},
			`error: invalid argument "-1" for "--length" flag: it is out of range: want a whole number from 1 to 33554432`},
		{[]string{"instance", "list", "--timeout", "NaN"},
			`error: invalid timeout "NaN": NaN is not a number: want a duration from 0 to 168h (from flag --timeout)`},
		{[]string{"instance", "list", "--request-timeout", "-1"},
			`error: invalid request-timeout "-1": it is out of range: want a duration from 0 to 168h (from flag --request-timeout)`},
		{[]string{"sim", "router", "--parked-request-retry-jitter", "1"},
			`error: invalid argument "1" for "--parked-request-retry-jitter" flag: it is out of range: want a number from 0 to less than 1`},
		{[]string{"sim", "cluster", "--cpu-overcommit", "0"},
			`error: invalid argument "0" for "--cpu-overcommit" flag: it is out of range: want a number more than 0 and at most 1000`},
		{[]string{"sim", "cluster", "--token-ttl", "15"},
			`error: invalid argument "15" for "--token-ttl" flag: want a duration more than 0 and at most 8784h, with a unit, such as 15s for 15 seconds`},
	} {
		res := clitest.AgainstStubs(fa).Run(t, c.args...)
		first, _, _ := strings.Cut(res.Stderr, "\n")
		if res.Code != cmdutil.ExitUsage || res.Stdout != "" || first != c.want {
			t.Errorf("shakectl %s: want exit 2 and the line\n%s\ngot %s", strings.Join(c.args, " "), c.want, res)
		}
	}
}

// The settings' ranges hold wherever the value comes from: the
// environment and the config file too, naming where.
func TestSettingRangesHoldForTheEnvironmentAndTheFile(t *testing.T) {
	res := clitest.CmdRun{Env: map[string]string{"SHAKECTL_TIMEOUT": "9999h"}}.Run(t, "instance", "list")
	want := "error: invalid timeout \"9999h\": it is out of range: want a duration from 0 to 168h (from environment variable SHAKECTL_TIMEOUT)\n"
	if res.Code != cmdutil.ExitUsage || !strings.HasPrefix(res.Stderr, want) {
		t.Errorf("want exit 2 and\n%s\ngot %s", want, res)
	}
	dir := t.TempDir()
	clitest.WriteFile(t, dir+"/config.yaml", "request-timeout: NaN\n")
	res = clitest.CmdRun{}.Run(t, "instance", "list", "--config", dir+"/config.yaml")
	want = "error: invalid request-timeout \"NaN\": NaN is not a number: want a duration from 0 to 168h (from config file " + dir + "/config.yaml, key request-timeout)\n"
	if res.Code != cmdutil.ExitUsage || !strings.HasPrefix(res.Stderr, want) {
		t.Errorf("want exit 2 and\n%s\ngot %s", want, res)
	}
}

// --help says each number's range after its usage.
func TestHelpShowsEachNumbersRange(t *testing.T) {
	for _, c := range []struct {
		args []string
		line *regexp.Regexp
	}{
		{[]string{"parking-probe", "--help"}, regexp.MustCompile(`(?m)^\s+--procs int\s+CPUs to run the load on .*\(from 0 to 1024\)$`)},
		{[]string{"node", "cpuhogs", "--help"}, regexp.MustCompile(`(?m)^\s+-t, --threshold float\s+the share of one CPU above which a process is listed \(from 0 to 1024\) \(default 0.25\)$`)},
		{[]string{"instance", "list", "--help"}, regexp.MustCompile(`(?m)^\s+--timeout duration\s+deadline for the whole command, .* \(from 0 to 168h\)$`)},
	} {
		res := clitest.CmdRun{}.Run(t, c.args...)
		if res.Code != 0 || !c.line.MatchString(res.Stdout) {
			t.Errorf("shakectl %s: no line matching %s\n%s", strings.Join(c.args, " "), c.line, res)
		}
	}
}
