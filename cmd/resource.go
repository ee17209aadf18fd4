package cmd

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// column is one column of a list, or one field of a detail: a function of
// the typed object, as hcloud's resource descriptions have them.
type column[T any] struct {
	name  string // the header (upper-cased for lists) and the field name
	value func(*T) string
	paint output.Painter
	// omitEmpty leaves the field out of a detail when it is "".
	omitEmpty bool
}

// resource describes one kind of API object for the generic commands:
// what its list shows, what its show shows, and how to reach the server's
// own object (printed as is by -o json|yaml).
type resource[T any] struct {
	singular, plural string
	columns          []column[T] // list columns, headers as given
	fields           []column[T] // show fields
	raw              func(*T) json.RawMessage
}

func (r resource[T]) list(items []T) output.List {
	l := output.List{Rows: [][]string{}, Raw: []json.RawMessage{}}
	for _, c := range r.columns {
		l.Columns = append(l.Columns, output.Column{Header: c.name, Paint: c.paint})
	}
	for i := range items {
		row := make([]string, len(r.columns))
		for j, c := range r.columns {
			row[j] = c.value(&items[i])
		}
		l.Rows = append(l.Rows, row)
		l.Raw = append(l.Raw, r.raw(&items[i]))
	}
	return l
}

func (r resource[T]) detail(v *T) output.Detail {
	d := output.Detail{Raw: r.raw(v)}
	for _, f := range r.fields {
		if f.omitEmpty && f.value(v) == "" {
			continue
		}
		d.Fields = append(d.Fields, output.Field{Name: f.name, Value: f.value(v), Paint: f.paint})
	}
	return d
}

// listSpec is what a generic list command needs beyond the resource.
type listSpec[T any] struct {
	short, long, example string
	// withAll adds --all (include deleted objects), passed to fetch.
	withAll bool
	fetch   func(c *client.Client, ctx context.Context, all bool) ([]T, error)
}

// newListCmd builds "<resource> list".
func newListCmd[T any](f *Factory, r resource[T], spec listSpec[T]) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   spec.short,
		Long:    spec.long,
		Example: spec.example,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			items, err := spec.fetch(s.client, s.ctx, all)
			if err != nil {
				return err
			}
			return s.printList(r.list(items))
		},
	}
	if spec.withAll {
		f.defineFlags(c, func() {
			c.Flags().BoolVarP(&all, "all", "a", false, "include deleted "+r.plural)
		})
	}
	return c
}

// showSpec is what a generic show command needs beyond the resource.
type showSpec[T any] struct {
	arg, short, long, example string
	complete                  cobra.CompletionFunc
	get                       func(c *client.Client, ctx context.Context, ref string) (*T, error)
}

// newShowCmd builds "<resource> show REF".
func newShowCmd[T any](f *Factory, r resource[T], spec showSpec[T]) *cobra.Command {
	return &cobra.Command{
		Use:               "show " + spec.arg,
		Short:             spec.short,
		Long:              spec.long,
		Example:           spec.example,
		Args:              refArgs(spec.arg),
		ValidArgsFunction: argsAccepted(spec.complete),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			v, err := spec.get(s.client, s.ctx, args[0])
			if err != nil {
				return err
			}
			return s.printDetail(r.detail(v))
		},
	}
}

// field is a column of a plain string.
func field[T any](name string, value func(*T) string) column[T] {
	return column[T]{name: name, value: value}
}

// stateField is a column painted as a state.
func stateField[T any](name string, value func(*T) string) column[T] {
	return column[T]{name: name, value: value, paint: output.StatePainter}
}

// printResult prints what a command that waited ended with (v may be nil
// when nothing is known) and returns the wait's error, or the print's.
func printResult[T any](s *session, detail func(*T) output.Detail, v *T, err error) error {
	if v != nil {
		if perr := s.printDetail(detail(v)); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}
