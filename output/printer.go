package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/shakenfist/shakectl/output/termtext"
)

// Format is an output format of -o.
type Format string

// The output formats of -o.
const (
	FormatTable  Format = "table"
	FormatSimple Format = "simple"
	FormatJSON   Format = "json"
	FormatYAML   Format = "yaml"
)

// Formats lists the values -o accepts, in the order help texts show them.
var Formats = []Format{FormatTable, FormatSimple, FormatJSON, FormatYAML}

// Data reports whether f prints the API's objects as data (json, yaml)
// rather than text for people (table, simple).
func (f Format) Data() bool { return f == FormatJSON || f == FormatYAML }

// Painter colours one cell's text; it is only called when colour is on.
type Painter func(c ColourScheme, s string) string

// Column is one column of a list: its header and, optionally, how to colour
// its cells on a colour terminal.
type Column struct {
	Header string
	Paint  Painter
}

// List is what a list command prints: cells for people, and the server's own
// objects (in the same order) for programs.
type List struct {
	Columns []Column
	Rows    [][]string
	// Raw holds the objects exactly as the API sent them; json and yaml print
	// these, so machine output keeps the API's schema and unknown fields.
	Raw []json.RawMessage
}

// Field is one line of a show command: a name and its value.
type Field struct {
	Name  string
	Value string
	Paint Painter
}

// Detail is what a show command prints.
type Detail struct {
	Fields []Field
	Raw    json.RawMessage
}

// PrintList renders a list in the given format:
//   - table on a terminal: aligned columns under a header (bold when colour
//     is on);
//   - table piped, and simple: one tab-separated line per row and no header,
//     so `cut -f2` and `while read` see only data (as gh does);
//   - json: the server's objects as an indented JSON array;
//   - yaml: the same array as YAML.
//
// The run's TableOptions add to this: a table asked for explicitly keeps its
// header when piped, --no-headers drops it everywhere, -o columns= chooses
// columns, --jq filters the JSON. A terminal table is fitted to the screen
// width, long cells cut with "…" but never a UUID in them; piped and simple
// output are never cut.
func PrintList(s *IOStreams, format Format, l List) error {
	opts := s.table
	if opts.JQ != nil {
		return writeJQ(opts.Context, s.Out, s.IsStdoutTTY(), opts.JQ, joinArray(l.Raw), opts.JQLimits)
	}
	cols, rows, err := selectColumns(l.Columns, l.Rows, opts.Columns)
	if err != nil {
		return err
	}
	switch format {
	case FormatJSON:
		return writeJSON(s.Out, joinArray(l.Raw))
	case FormatYAML:
		return writeYAML(s.Out, joinArray(l.Raw))
	case FormatTable:
		if s.IsStdoutTTY() {
			return writeAlignedFit(s.Out, NewColourScheme(s.ColourEnabled()), cols, rows, !opts.NoHeaders, s.TerminalWidth())
		}
		if opts.Header && !opts.NoHeaders {
			return writeAlignedFit(s.Out, NewColourScheme(false), cols, rows, true, 0)
		}
	case FormatSimple:
	default:
		return fmt.Errorf("unknown output format %q", format)
	}
	return writeTSV(s.Out, rows)
}

// PrintDetail renders one object: on a terminal as aligned "name  value"
// lines, piped or simple as "name<TAB>value" lines, json and yaml as the
// server's object.
func PrintDetail(s *IOStreams, format Format, d Detail) error {
	if s.table.JQ != nil {
		return writeJQ(s.table.Context, s.Out, s.IsStdoutTTY(), s.table.JQ, d.Raw, s.table.JQLimits)
	}
	switch format {
	case FormatJSON:
		return writeJSON(s.Out, d.Raw)
	case FormatYAML:
		return writeYAML(s.Out, d.Raw)
	}
	rows := make([][]string, len(d.Fields))
	for i, f := range d.Fields {
		rows[i] = []string{f.Name, f.Value}
	}
	switch format {
	case FormatTable:
		if s.IsStdoutTTY() {
			cols := []Column{{Paint: func(c ColourScheme, s string) string { return c.Bold(s) }}, {}}
			// Each row may colour its value differently (a state, an error).
			c := NewColourScheme(s.ColourEnabled())
			return writeAlignedRows(s.Out, c, cols, rows, func(row, col int) Painter {
				if col == 1 {
					return d.Fields[row].Paint
				}
				return cols[col].Paint
			}, false)
		}
	case FormatSimple:
	default:
		return fmt.Errorf("unknown output format %q", format)
	}
	return writeTSV(s.Out, rows)
}

// PrintJSONBody writes a JSON document (an API answer) in the given format:
// yaml converts it, anything else prints it indented (C1 controls escaped,
// as every JSON printer does). A body that is not JSON is written
// unchanged. Not pretty (`api` piped, whose help promises "the body as
// sent"), the server's bytes are written as they came.
func PrintJSONBody(s *IOStreams, format Format, body []byte, pretty bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !json.Valid(body) {
		// An HTML error page or plain text: the server's bytes, kept
		// for a pipe, made harmless for a terminal.
		if s.IsStdoutTTY() {
			body = []byte(termtext.Block(string(body)))
		}
		_, err := s.Out.Write(body)
		return err
	}
	if s.table.JQ != nil {
		return writeJQ(s.table.Context, s.Out, s.IsStdoutTTY(), s.table.JQ, body, s.table.JQLimits)
	}
	if format == FormatYAML {
		return writeYAML(s.Out, body)
	}
	if !pretty {
		_, err := s.Out.Write(body)
		if err == nil && !bytes.HasSuffix(body, []byte("\n")) {
			_, err = io.WriteString(s.Out, "\n")
		}
		return err
	}
	return writeJSON(s.Out, body)
}

func joinArray(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if len(bytes.TrimSpace(it)) == 0 {
			b.WriteString("null")
			continue
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

func writeJSON(w io.Writer, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return fmt.Errorf("the API answered with invalid JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(termtext.JSON(buf.Bytes()))
	return err
}

func writeYAML(w io.Writer, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	y, err := JSONToYAML(raw)
	if err != nil {
		return fmt.Errorf("the API answered with %w", err)
	}
	_, err = w.Write(y)
	return err
}

// writeTSV prints rows as tab-separated lines. Tabs and line breaks inside a
// cell become spaces so that one row stays one line.
func writeTSV(w io.Writer, rows [][]string) error {
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(flatten(cell))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAlignedFit is writeAlignedRows with each column in its own paint
// and the rows fitted to limit columns (0: no limit).
func writeAlignedFit(w io.Writer, c ColourScheme, cols []Column, rows [][]string, header bool, limit int) error {
	if limit > 0 {
		widths := make([]int, len(cols))
		keep := make([]int, len(cols))
		for i, col := range cols {
			if header {
				widths[i] = width(col.Header)
			}
		}
		for _, r := range rows {
			for i, cell := range r {
				if i < len(widths) {
					widths[i] = max(widths[i], width(flatten(cell)))
					keep[i] = max(keep[i], wholeFloor(flatten(cell)))
				}
			}
		}
		fit := fitWidths(widths, keep, limit)
		cut := make([][]string, len(rows))
		for ri, r := range rows {
			cut[ri] = make([]string, len(r))
			for i, cell := range r {
				if i < len(fit) {
					cell = truncate(flatten(cell), fit[i])
				}
				cut[ri][i] = cell
			}
		}
		rows = cut
		hdr := make([]Column, len(cols))
		for i, col := range cols {
			hdr[i] = col
			hdr[i].Header = truncate(col.Header, fit[i])
		}
		cols = hdr
	}
	return writeAlignedRows(w, c, cols, rows, func(_, col int) Painter {
		if col < len(cols) {
			return cols[col].Paint
		}
		return nil
	}, header)
}

// writeAlignedRows pads cells to their column's width, measured on the plain
// text, and only then colours them: escape sequences would otherwise count
// as width and break the alignment (text/tabwriter's weakness).
func writeAlignedRows(w io.Writer, c ColourScheme, cols []Column, rows [][]string, paint func(row, col int) Painter, header bool) error {
	n := len(cols)
	for _, r := range rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	if header {
		for i, col := range cols {
			widths[i] = max(widths[i], width(col.Header))
		}
	}
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], width(flatten(cell)))
		}
	}
	var b strings.Builder
	line := func(cells []string, style func(i int, s string) string) {
		// Trailing empty cells would only add trailing spaces.
		last := len(cells) - 1
		for last >= 0 && cells[last] == "" {
			last--
		}
		for i := 0; i <= last; i++ {
			cell := flatten(cells[i])
			b.WriteString(style(i, cell))
			if i < last {
				b.WriteString(strings.Repeat(" ", widths[i]-width(cell)+2))
			}
		}
		b.WriteByte('\n')
	}
	if header {
		hs := make([]string, len(cols))
		for i, col := range cols {
			hs[i] = strings.ToUpper(col.Header)
		}
		line(hs, func(_ int, s string) string { return c.Bold(s) })
	}
	for ri, r := range rows {
		line(r, func(i int, s string) string {
			if p := paint(ri, i); p != nil && c.enabled && s != "" {
				return p(c, s)
			}
			return s
		})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func width(s string) int { return utf8.RuneCountInString(s) }

// flatten keeps a cell on one line and strips control characters a hostile
// server could use to rewrite the terminal.
func flatten(s string) string { return termtext.Line(s) }

// StatePainter colours resource states the way people scan them: green for
// working, red for broken, yellow for in progress, grey for gone.
func StatePainter(c ColourScheme, s string) string {
	switch {
	case s == "created" || s == "on" || s == "up" || s == "active":
		return c.Green(s)
	case s == "error" || strings.HasSuffix(s, "-error") || s == "crashed" || s == "missing":
		return c.Red(s)
	case s == "deleted" || s == "off":
		return c.Gray(s)
	case s == "initial" || s == "preflight" || s == "delete-wait" || s == "paused" || strings.HasSuffix(s, "ing"):
		return c.Yellow(s)
	}
	return s
}
