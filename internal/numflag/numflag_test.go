package numflag

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// Each kind of number refuses, in words naming the range, text that is
// not one of its kind, NaN, the infinities and what is outside the range,
// and keeps the value it had.
func TestSetRefusesWhatIsOutsideTheRange(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var (
		n    int
		u    uint64
		x    float64
		d    time.Duration
		size bytes
	)
	Var(fs, &n, "n", 5, Between(1, 10), "")
	Var(fs, &u, "u", 0, Between[uint64](0, math.MaxUint64), "")
	Var(fs, &x, "x", 0.5, Below[float64](0, 1), "")
	Var(fs, &d, "d", time.Second, Above(0, 24*time.Hour), "")
	Var(fs, &size, "size", 64, Between[bytes](1, 1024), "")
	for _, c := range []struct{ flag, value, want string }{
		{"n", "NaN", "NaN is not a number: want a whole number from 1 to 10"},
		{"n", "0", "it is out of range: want a whole number from 1 to 10"},
		{"n", "11", "it is out of range: want a whole number from 1 to 10"},
		{"n", "9223372036854775808", "it is out of range: want a whole number from 1 to 10"},
		{"n", "1e300", "it is out of range: want a whole number from 1 to 10"},
		{"n", "5e0", "want a whole number from 1 to 10, in digits, such as 5 for 5e0"},
		{"n", "2.5", "want a whole number from 1 to 10"},
		{"n", "many", "want a whole number from 1 to 10"},
		{"u", "-1", "it is out of range: want a whole number from 0 to 18446744073709551615"},
		{"x", "1", "it is out of range: want a number from 0 to less than 1"},
		{"x", "-Inf", "it is out of range: want a number from 0 to less than 1"},
		{"x", "NaN", "NaN is not a number: want a number from 0 to less than 1"},
		{"x", "half", "want a number from 0 to less than 1, such as 0.5 or 2"},
		{"d", "0s", "it is out of range: want a duration more than 0 and at most 24h"},
		{"d", "25h", "it is out of range: want a duration more than 0 and at most 24h"},
		{"d", "5", "want a duration more than 0 and at most 24h, with a unit, such as 5s for 5 seconds"},
		{"d", "100000", "it is out of range: want a duration more than 0 and at most 24h"},
		{"d", "soon", "want a duration more than 0 and at most 24h, such as 30s, 1m30s or 250ms"},
		{"size", "0", "it is out of range: want a bytes from 1 to 1024"},
		{"size", "2048", "it is out of range: want a bytes from 1 to 1024"},
	} {
		fl := fs.Lookup(c.flag)
		before := fl.Value.String()
		err := fl.Value.Set(c.value)
		if err == nil || err.Error() != c.want {
			t.Errorf("--%s %s: %v, want %q", c.flag, c.value, err, c.want)
		}
		if fl.Value.String() != before {
			t.Errorf("--%s %s: refused, but the value is now %s", c.flag, c.value, fl.Value)
		}
	}
	for flag, value := range map[string]string{"n": "10", "u": "18446744073709551615", "x": "0", "d": "24h", "size": "1024"} {
		if err := fs.Set(flag, value); err != nil || fs.Lookup(flag).Value.String() != value {
			t.Errorf("--%s %s: %v (now %s)", flag, value, err, fs.Lookup(flag).Value)
		}
	}
}

type bytes int64

func (b *bytes) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *bytes) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	*b = bytes(n)
	return err
}
func (b *bytes) Type() string { return "bytes" }

// --help shows the range after the usage, and the type's name.
func TestUsageShowsTheRange(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var d time.Duration
	fl := Var(fs, &d, "wait", 0, Between(0, time.Hour), "how long to wait")
	if fl.Usage != "how long to wait (from 0 to 1h)" || fl.Value.Type() != "duration" || fl.DefValue != "0" {
		t.Errorf("usage %q, type %s, default %q", fl.Usage, fl.Value.Type(), fl.DefValue)
	}
}

// A declaration no value can satisfy, or whose default it refuses, is a
// programming error found when the command tree is built; a zero default
// outside the range is "not given".
func TestBadDeclarationsPanic(t *testing.T) {
	for name, declare := range map[string]func(fs *pflag.FlagSet){
		"NaN end":         func(fs *pflag.FlagSet) { var x float64; Var(fs, &x, "x", 0, Between(0, math.NaN()), "") },
		"infinite end":    func(fs *pflag.FlagSet) { var x float64; Var(fs, &x, "x", 0, Between(0, math.Inf(1)), "") },
		"empty":           func(fs *pflag.FlagSet) { var n int; Var(fs, &n, "n", 0, Between(5, 1), "") },
		"default outside": func(fs *pflag.FlagSet) { var n int; Var(fs, &n, "n", 20, Between(1, 10), "") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: declared without a panic", name)
				}
			}()
			declare(pflag.NewFlagSet("t", pflag.ContinueOnError))
		}()
	}
	var n int
	Var(pflag.NewFlagSet("t", pflag.ContinueOnError), &n, "limit", 0, Between(1, 1000), "")
}
