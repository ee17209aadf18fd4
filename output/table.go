package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
	"golang.org/x/term"
)

// TableOptions are the choices about tables and JSON filtering that the
// global flags make once per run (-o table explicitly, --no-headers,
// -o columns=…, --jq). They live on IOStreams so every printer in the run
// follows them without each command passing them on.
type TableOptions struct {
	// Header prints the header even when stdout is not a terminal: the user
	// asked for -o table (or columns=) explicitly, as kubectl and hcloud do.
	Header bool
	// NoHeaders leaves the header out everywhere (--no-headers).
	NoHeaders bool
	// Columns chooses and orders the columns by header, case-insensitive
	// (-o columns=NAME,STATE); nil means all.
	Columns []string
	// JQ filters JSON output (--jq); nil means none.
	JQ *gojq.Code
}

// SetTableOptions records the run's table choices.
func (s *IOStreams) SetTableOptions(o TableOptions) { s.table = o }

// SetWidth pretends (in tests) that the terminal is w columns wide.
func (s *IOStreams) SetWidth(w int) { s.width = w }

// TerminalWidth is stdout's width when it is a terminal, else 0 (no limit):
// only people's tables are fitted to the screen, never piped output.
func (s *IOStreams) TerminalWidth() int {
	if !s.stdoutTTY {
		return 0
	}
	if s.width > 0 {
		return s.width
	}
	if f, ok := s.Out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
		return 80
	}
	// A test's buffer: no limit unless SetWidth says otherwise.
	return 0
}

// ColumnError is -o columns= naming a column the list does not have; the
// command reports it as a usage error.
type ColumnError struct {
	Name  string
	Valid []string
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("unknown column %q for -o columns=: valid columns are %s", e.Name, strings.Join(e.Valid, ","))
}

// ParseJQ compiles a --jq expression; its error is the user's to fix.
func ParseJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid --jq expression %q: %s", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("invalid --jq expression %q: %s", expr, err)
	}
	return code, nil
}

// writeJQ runs the --jq filter over a JSON document and prints each result
// on its own line: strings bare (as gh --jq does, ready for a shell loop),
// anything else as compact JSON.
func writeJQ(w io.Writer, code *gojq.Code, raw json.RawMessage) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the API answered with invalid JSON: %w", err)
	}
	v = normaliseNumbers(v)
	var b bytes.Buffer
	iter := code.Run(v)
	for {
		x, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := x.(error); isErr {
			if h, halt := err.(*gojq.HaltError); halt && h.Value() == nil {
				break
			}
			return fmt.Errorf("--jq: %w", err)
		}
		if s, isStr := x.(string); isStr {
			b.WriteString(s)
		} else {
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(x); err != nil {
				return fmt.Errorf("--jq: %w", err)
			}
			b.Truncate(b.Len() - 1)
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// normaliseNumbers turns json.Number into the int or float64 gojq works
// with, so large integers (sizes, timestamps) keep their digits.
func normaliseNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return int(i)
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = normaliseNumbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = normaliseNumbers(x)
		}
	}
	return v
}

// selectColumns keeps and orders the chosen columns of a list.
func selectColumns(cols []Column, rows [][]string, names []string) ([]Column, [][]string, error) {
	if len(names) == 0 {
		return cols, rows, nil
	}
	valid := make([]string, len(cols))
	for i, c := range cols {
		valid[i] = strings.ToUpper(c.Header)
	}
	idx := make([]int, len(names))
	for i, n := range names {
		idx[i] = slices.Index(valid, strings.ToUpper(strings.TrimSpace(n)))
		if idx[i] < 0 {
			return nil, nil, &ColumnError{Name: n, Valid: valid}
		}
	}
	outCols := make([]Column, len(idx))
	for i, j := range idx {
		outCols[i] = cols[j]
	}
	outRows := make([][]string, len(rows))
	for r, row := range rows {
		outRows[r] = make([]string, len(idx))
		for i, j := range idx {
			if j < len(row) {
				outRows[r][i] = row[j]
			}
		}
	}
	return outCols, outRows, nil
}

// fitWidths shrinks the widest columns until a row fits in limit (0 = no
// limit), never below a few characters, so one long name cannot push every
// other column off an 80-column screen. The first column (the UUID or name
// people copy into the next command) is cut only when the others cannot
// give way enough.
func fitWidths(widths []int, limit int) []int {
	if limit <= 0 || len(widths) == 0 {
		return widths
	}
	out := slices.Clone(widths)
	total := func() int {
		t := 0
		for _, w := range out {
			t += w
		}
		return t + 2*(len(out)-1)
	}
	const minWidth = 8
	// The other columns give way first; the first only when they cannot.
	for _, from := range []int{min(1, len(out)-1), 0} {
		for total() > limit {
			widest := from
			for i := from; i < len(out); i++ {
				if out[i] > out[widest] {
					widest = i
				}
			}
			if out[widest] <= minWidth {
				break
			}
			out[widest] = max(minWidth, out[widest]-(total()-limit))
		}
	}
	return out
}

// truncate cuts s to n runes, ending with an ellipsis when it was longer.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}
