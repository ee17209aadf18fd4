// Package fielderr is how a library says what is wrong with a value its
// caller gave it, without knowing how the caller got the value: the message
// names the value as a {Field} placeholder, the path of the library's
// option field ({Rate}, {Checks.Budget}, {Shard.Count}), never as a
// command-line flag. Error spells the placeholders as field paths; a
// command renders them with its own names (Render), from the table that
// defines its flags (internal/flagtable), so the user reads the flag they
// typed. It imports the standard library alone, so a leaf (probe/report)
// can name its options this way too.
package fielderr

import (
	"errors"
	"fmt"
	"strings"
)

// Error is an invalid option: the caller's mistake, not the world's.
type Error struct {
	format string
	args   []any
}

// Errorf is an Error whose format names fields as {Field}. Placeholders
// are replaced before the arguments go in, so a value quoted in the
// message (a user's template, "{actor}") is never read as one. A %w verb
// wraps its error, as fmt.Errorf's does.
func Errorf(format string, a ...any) *Error {
	return &Error{format: format, args: a}
}

// Error is the message with every placeholder written as its field path.
func (e *Error) Error() string { return e.Render(nil) }

// Render is the message with each {Field} placeholder written as
// name(Field), or as the field path where name is nil or returns "".
func (e *Error) Render(name func(field string) string) string {
	return fmt.Errorf(Placeholders(e.format, name), e.args...).Error()
}

// Unwrap is the error a %w verb wrapped, if any.
func (e *Error) Unwrap() error { return errors.Unwrap(fmt.Errorf(e.format, e.args...)) }

// Fields lists the placeholders of the message, in order.
func (e *Error) Fields() []string {
	var fields []string
	Placeholders(e.format, func(f string) string { fields = append(fields, f); return "" })
	return fields
}

// Renderer is an error whose message names fields and can be rendered, as
// Error's: a library's own error type that carries a placeholder.
type Renderer interface {
	error
	Render(name func(field string) string) string
}

// Render is err's message with the placeholders of every Renderer in it
// written by name: err itself, each error errors.Join put together (one a
// line, as Join writes them), or a Renderer that err wraps (fmt.Errorf's
// %w), whose own message is rendered where err's quotes it. An error
// Rendered already, and any other error, is its own message.
func Render(err error, name func(field string) string) string {
	if err == nil {
		return ""
	}
	if r, ok := err.(Renderer); ok {
		return r.Render(name)
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		lines := make([]string, 0, len(j.Unwrap()))
		for _, e := range j.Unwrap() {
			lines = append(lines, Render(e, name))
		}
		return strings.Join(lines, "\n")
	}
	msg := err.Error()
	for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
		switch e := e.(type) {
		case *rendered:
			return msg
		case Renderer:
			return strings.Replace(msg, e.Error(), e.Render(name), 1)
		}
	}
	return msg
}

// Sprintf is fmt.Sprintf whose format names fields as {Field}, written by
// name (Placeholders) before the arguments go in: a library's advice (a
// hint, a check's reason) that names its caller's options, where an
// argument (a server's text) is never read as a placeholder.
func Sprintf(name func(field string) string, format string, a ...any) string {
	return fmt.Sprintf(Placeholders(format, name), a...)
}

// Rendered is err with its message rendered by name (Render), still
// wrapping err for errors.Is and errors.As.
func Rendered(err error, name func(field string) string) error {
	if err == nil {
		return nil
	}
	return &rendered{msg: Render(err, name), err: err}
}

type rendered struct {
	msg string
	err error
}

func (r *rendered) Error() string { return r.msg }
func (r *rendered) Unwrap() error { return r.err }

// Placeholders replaces each {Field} in s, where Field is an upper-case Go
// identifier path ({Requests}, {Checks.Budget}), by name(Field), or the
// path where name is nil or returns ""; lower-case braces ({actor}, a
// template's own placeholders) are left alone. A library's free text (a
// warning) uses it as Error does.
func Placeholders(s string, name func(field string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return b.String() + s
		}
		j := strings.IndexByte(s[i:], '}')
		field := ""
		if j > 1 {
			field = s[i+1 : i+j]
		}
		if !isFieldPath(field) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		n := ""
		if name != nil {
			n = name(field)
		}
		if n == "" {
			n = field
		}
		b.WriteString(n)
		s = s[i+j+1:]
	}
}

func isFieldPath(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
