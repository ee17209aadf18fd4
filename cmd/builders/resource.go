package builders

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// Column is one column of a list, or one field of a detail: a function of
// the typed object, as hcloud's resource descriptions have them.
type Column[T any] struct {
	Name  string // the header (upper-cased for lists) and the field name
	Value func(*T) string
	Paint output.Painter
	// OmitEmpty leaves the field out of a detail when it is "".
	OmitEmpty bool
}

// Resource describes one kind of API object for the generic commands:
// what its list shows, what its show shows, and how to reach the server's
// own object (printed as is by -o json|yaml).
type Resource[T any] struct {
	Singular, Plural string
	Columns          []Column[T] // list columns, headers as given
	Fields           []Column[T] // show fields
	Raw              func(*T) json.RawMessage
}

func (r Resource[T]) List(items []T) output.List {
	l := output.List{Rows: [][]string{}, Raw: []json.RawMessage{}}
	for _, c := range r.Columns {
		l.Columns = append(l.Columns, output.Column{Header: c.Name, Paint: c.Paint})
	}
	for i := range items {
		row := make([]string, len(r.Columns))
		for j, c := range r.Columns {
			row[j] = c.Value(&items[i])
		}
		l.Rows = append(l.Rows, row)
		l.Raw = append(l.Raw, r.Raw(&items[i]))
	}
	return l
}

func (r Resource[T]) Detail(v *T) output.Detail {
	d := output.Detail{Raw: r.Raw(v)}
	for _, f := range r.Fields {
		if f.OmitEmpty && f.Value(v) == "" {
			continue
		}
		d.Fields = append(d.Fields, output.Field{Name: f.Name, Value: f.Value(v), Paint: f.Paint})
	}
	return d
}

// ListSpec is what a generic list command needs beyond the resource.
type ListSpec[T any] struct {
	Short, Long, Example string
	// WithAll adds --all (include deleted objects), passed to Fetch.
	WithAll bool
	Fetch   func(c *client.Client, ctx context.Context, all bool) ([]T, error)
}

// NewListCmd builds "<resource> list".
func NewListCmd[T any](f *cmdutil.Factory, r Resource[T], spec ListSpec[T]) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   spec.Short,
		Long:    spec.Long,
		Example: spec.Example,
	}
	cmdutil.Verb(f, c, func(s *cmdutil.Session, _ []string) error {
		items, err := spec.Fetch(s.Client, s.Ctx, all)
		if err != nil {
			return err
		}
		return s.PrintList(r.List(items))
	})
	if spec.WithAll {
		c.Flags().BoolVarP(&all, "all", "a", false, "include deleted "+r.Plural)
	}
	return c
}

// ShowSpec is what a generic show command needs beyond the resource.
type ShowSpec[T any] struct {
	Arg, Short, Long, Example string
	Complete                  cobra.CompletionFunc
	Get                       func(c *client.Client, ctx context.Context, ref string) (*T, error)
}

// NewShowCmd builds "<resource> show REF".
func NewShowCmd[T any](f *cmdutil.Factory, r Resource[T], spec ShowSpec[T]) *cobra.Command {
	return NewRefDetailCmd(f, r, RefDetailSpec[T]{
		Use: "show", Arg: spec.Arg, Short: spec.Short, Long: spec.Long, Example: spec.Example,
		Complete: spec.Complete, Call: spec.Get,
	})
}

// Field is a column of a plain string.
func Field[T any](name string, value func(*T) string) Column[T] {
	return Column[T]{Name: name, Value: value}
}

// StateField is a column painted as a state.
func StateField[T any](name string, value func(*T) string) Column[T] {
	return Column[T]{Name: name, Value: value, Paint: output.StatePainter}
}

// PrintResult prints what a command that waited ended with (v may be nil
// when nothing is known) and returns the wait's error, or the print's.
func PrintResult[T any](s *cmdutil.Session, detail func(*T) output.Detail, v *T, err error) error {
	if v != nil {
		if perr := s.PrintDetail(detail(v)); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}
