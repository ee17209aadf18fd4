// Package numflag declares the numeric flags of every command: each with
// its range, in the declaration itself, so that a number cannot be
// declared without one.
package numflag

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
)

// Every number a flag takes is declared with its range, here: Var (and an
// Option's Range for cmd/cmdutil's settings table) is the one way to
// declare a numeric flag. The flag's value refuses, while the command line is
// parsed and so before any work starts, text that is not a number of the
// flag's kind, NaN, ±Inf and every value outside the range, with a usage
// error (exit 2) that names the flag and the range; --help shows the range
// after the flag's usage. cmd/root's tree test fails on a numeric flag
// that is not a RangedValue.

// Number is what a numeric flag holds: a count, a rate, a ratio, a
// duration, or a named type whose pointer is a pflag.Value with its own
// text (a size such as 64Mi), which the range then bounds.
type Number interface {
	~int | ~int64 | ~uint64 | ~float64
}

// Range is the values a numeric flag accepts: from Min to Max, each end
// included unless MinOpen or MaxOpen excludes it.
type Range[T Number] struct {
	Min, Max         T
	MinOpen, MaxOpen bool
}

// Between is the range from lo to hi, both included.
func Between[T Number](lo, hi T) Range[T] { return Range[T]{Min: lo, Max: hi} }

// Above is the range over lo, lo excluded, up to hi included: a
// duration or ratio that must be positive.
func Above[T Number](lo, hi T) Range[T] { return Range[T]{Min: lo, Max: hi, MinOpen: true} }

// Below is the range from lo, included, up to hi, excluded: a fraction
// of a whole.
func Below[T Number](lo, hi T) Range[T] { return Range[T]{Min: lo, Max: hi, MaxOpen: true} }

// Contains says whether v is in the range. NaN compares false with
// everything, so it is in no range; nor is an infinity, as no range may
// end at one (Var checks).
func (r Range[T]) Contains(v T) bool {
	lo := v > r.Min || (!r.MinOpen && v == r.Min)
	hi := v < r.Max || (!r.MaxOpen && v == r.Max)
	return lo && hi
}

// String is the range in words, as --help and the errors say it: "from 1
// to 100000", "more than 0s and at most 24h".
func (r Range[T]) String() string { return r.words("", "", "") }

// words is the range in words between before and after, in one
// concatenation: a flag's usage and its range (WithRange) are written
// for every ranged flag when the command tree is built.
func (r Range[T]) words(before, open, after string) string {
	k := kindOf[T]()
	lo, hi := k.format(r.Min), k.format(r.Max)
	switch {
	case r.MinOpen && r.MaxOpen:
		return before + open + "more than " + lo + " and less than " + hi + after
	case r.MinOpen:
		return before + open + "more than " + lo + " and at most " + hi + after
	case r.MaxOpen:
		return before + open + "from " + lo + " to less than " + hi + after
	}
	return before + open + "from " + lo + " to " + hi + after
}

// Type is the flag type of the range's numbers (pflag's Type).
func (r Range[T]) Type() string { return kindOf[T]().typ }

// Refusal is why text is not a value of the range: what is wrong with
// it, and what the flag wants.
func (r Range[T]) Refusal(text string) error {
	k := kindOf[T]()
	want := "want " + k.noun + " " + r.String()
	text = strings.TrimSpace(text)
	outside := fmt.Errorf("it is out of range: %s", want)
	f, ferr := strconv.ParseFloat(text, 64)
	numeric := ferr == nil || errors.Is(ferr, strconv.ErrRange)
	switch {
	case ferr == nil && math.IsNaN(f):
		return fmt.Errorf("NaN is not a number: %s", want)
	case numeric && (ferr != nil || math.IsInf(f, 0)):
		return outside
	}
	if _, err := k.parse(text); err == nil {
		return outside // it parsed, so the range refused it
	}
	// A bare number, as the flag's own unit (seconds for a duration).
	unit := f
	if k.typ == "duration" {
		unit *= float64(time.Second)
	}
	switch {
	case !numeric:
	case unit < float64(r.Min) || unit > float64(r.Max):
		return outside
	case k.typ == "int" || k.typ == "uint":
		// 1e3 or 2.0: a number, not written as a whole one in digits.
		if f != math.Trunc(f) {
			return fmt.Errorf("%s", want)
		}
		return fmt.Errorf("%s, in digits, such as %d for %s", want, int64(f), text)
	case k.typ == "duration":
		// A bare number: which unit was meant is not ours to guess.
		return fmt.Errorf("%s, with a unit, such as %ss for %s seconds", want, text, text)
	}
	if k.example != "" {
		want += ", such as " + k.example
	}
	return fmt.Errorf("%s", want)
}

// check panics on a declaration whose range no value can satisfy, or
// whose default is outside it: a programming error, found by any test
// that builds the command tree. A zero default may be outside: it is the
// flag not given (events' --limit, the server's default), which the
// command tells by the flag's Changed, never a value a user can type.
func (r Range[T]) check(name string, def T) {
	for _, end := range []T{r.Min, r.Max} {
		if f := float64(end); math.IsNaN(f) || math.IsInf(f, 0) {
			panic(fmt.Sprintf("flag --%s: a range ends at a number: %v", name, end))
		}
	}
	if r.Min > r.Max {
		panic(fmt.Sprintf("flag --%s: empty range %s", name, r))
	}
	if var0 := *new(T); def != var0 && !r.Contains(def) {
		panic(fmt.Sprintf("flag --%s: default %s is not %s", name, kindOf[T]().format(def), r))
	}
}

// parse reads text as a value of the range, or says why it cannot.
func (r Range[T]) parse(text string) (T, error) {
	v, err := kindOf[T]().parse(strings.TrimSpace(text))
	if err != nil || !r.Contains(v) {
		var zero T
		return zero, r.Refusal(text)
	}
	return v, nil
}

// numberKind is how the numbers of one type are read and written.
type numberKind[T Number] struct {
	typ     string // the flag's type in --help: int, uint, float, duration, size …
	noun    string // "a whole number", "a duration" …
	example string // an example of the text, for a refusal
	parse   func(string) (T, error)
	format  func(T) string
}

// kinds holds each number type's kind (reflect.Type -> *numberKind[T]),
// made once: every ranged flag reads its kind for its type, its default
// and its range's text when the command tree is built, at every start-up,
// and making one allocates.
var kinds sync.Map

func kindOf[T Number]() *numberKind[T] {
	t := reflect.TypeFor[T]()
	if k, ok := kinds.Load(t); ok {
		return k.(*numberKind[T])
	}
	k, _ := kinds.LoadOrStore(t, newKind[T]())
	return k.(*numberKind[T])
}

func newKind[T Number]() *numberKind[T] {
	var zero T
	if _, ok := any(&zero).(pflag.Value); ok {
		// A type with its own text (a size): its Set reads it, its String
		// writes it.
		typ := any(&zero).(pflag.Value).Type()
		return &numberKind[T]{typ: typ, noun: "a " + typ,
			parse: func(s string) (T, error) {
				var v T
				err := any(&v).(pflag.Value).Set(s)
				return v, err
			},
			format: func(v T) string { return any(&v).(pflag.Value).String() }}
	}
	if _, ok := any(zero).(time.Duration); ok {
		return &numberKind[T]{typ: "duration", noun: "a duration", example: "30s, 1m30s or 250ms",
			parse: func(s string) (T, error) {
				d, err := time.ParseDuration(s)
				return T(d), err
			},
			format: func(v T) string { return DurationText(time.Duration(v)) }}
	}
	t := reflect.TypeFor[T]()
	switch t.Kind() {
	case reflect.Float64:
		return &numberKind[T]{typ: "float", noun: "a number", example: "0.5 or 2",
			parse: func(s string) (T, error) {
				f, err := strconv.ParseFloat(s, 64)
				return T(f), err
			},
			format: func(v T) string { return strconv.FormatFloat(float64(v), 'f', -1, 64) }}
	case reflect.Uint64:
		return &numberKind[T]{typ: "uint", noun: "a whole number",
			parse: func(s string) (T, error) {
				n, err := strconv.ParseUint(s, 10, 64)
				return T(n), err
			},
			format: func(v T) string { return strconv.FormatUint(uint64(v), 10) }}
	}
	return &numberKind[T]{typ: "int", noun: "a whole number",
		parse: func(s string) (T, error) {
			n, err := strconv.ParseInt(s, 10, t.Bits())
			return T(n), err
		},
		format: func(v T) string { return strconv.FormatInt(int64(v), 10) }}
}

// DurationText writes d as Go does, without the zero units Go adds
// ("24h", not "24h0m0s"), and 0 for zero.
func DurationText(d time.Duration) string {
	if d == 0 {
		return "0" // as --help leaves out a zero default
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// RangedValue is the value of every numeric flag: it refuses what is
// outside its range when the command line is parsed. cmd/root's tree test
// holds every numeric flag of every command to it.
type RangedValue interface {
	pflag.Value
	// Range is the values the flag accepts, in words ("from 1 to 100").
	Range() string
}

// numberFlag is a numeric flag's value.
type numberFlag[T Number] struct {
	p *T
	r Range[T]
}

func (f *numberFlag[T]) String() string { return kindOf[T]().format(*f.p) }
func (f *numberFlag[T]) Type() string   { return f.r.Type() }
func (f *numberFlag[T]) Range() string  { return f.r.String() }
func (f *numberFlag[T]) Set(s string) error {
	v, err := f.r.parse(s)
	if err != nil {
		return err
	}
	*f.p = v
	return nil
}

// Var defines the numeric flag name on fs, into p, with its default and
// its range: the one way to declare a flag that takes a number.
func Var[T Number](fs *pflag.FlagSet, p *T, name string, value T, r Range[T], usage string) *pflag.Flag {
	return VarP(fs, p, name, "", value, r, usage)
}

// VarP is Var with a shorthand letter.
func VarP[T Number](fs *pflag.FlagSet, p *T, name, shorthand string, value T, r Range[T], usage string) *pflag.Flag {
	r.check(name, value)
	*p = value
	fs.VarP(&numberFlag[T]{p: p, r: r}, name, shorthand, r.words(usage, " (", ")"))
	return fs.Lookup(name)
}

// WithRange is a flag's usage followed by its range, as --help shows it
// (VarP's flags write it with Range.words, the same).
func WithRange(usage, r string) string { return usage + " (" + r + ")" }

// Bounds is a range of any number type: what a setting's Option, which is
// generic over every type, holds of a Range.
type Bounds[T any] interface {
	Contains(T) bool
	String() string
	Type() string
	Refusal(text string) error
}

// Text is the flag of a numeric value read by its own parser (a setting's,
// which the environment and the config file share, and which also
// reads a bare number of seconds): it holds the text, once check, the
// parser and the range, has accepted it.
func Text[T any](def string, r Bounds[T], check func(string) error) RangedValue {
	return &textFlag[T]{text: def, r: r, check: check}
}

type textFlag[T any] struct {
	text  string
	r     Bounds[T]
	check func(string) error
}

func (f *textFlag[T]) String() string { return f.text }
func (f *textFlag[T]) Type() string   { return f.r.Type() }
func (f *textFlag[T]) Range() string  { return f.r.String() }
func (f *textFlag[T]) Set(s string) error {
	if err := f.check(s); err != nil {
		return err
	}
	f.text = s
	return nil
}
