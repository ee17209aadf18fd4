package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shakenfist/shakectl/output/termtext"
)

// ErrorReport is what a failed command tells its user: one line of message,
// an optional hint, and, for programs, the facts behind it. With -o json it
// is printed to stderr as one JSON object with these field names.
type ErrorReport struct {
	Message        string   `json:"error"`
	Hint           string   `json:"hint,omitempty"`
	Status         int      `json:"status,omitempty"`
	Stage          string   `json:"stage,omitempty"`
	Transient      *bool    `json:"transient,omitempty"`
	Attempts       int      `json:"attempts,omitempty"`
	ElapsedSeconds *float64 `json:"elapsed_seconds,omitempty"`
	RequestID      string   `json:"request_id,omitempty"`
	ExitCode       int      `json:"exit_code"`
}

// WriteError prints the report to stderr: as a JSON object when asJSON, else
// as "error: …" with a "hint: …" line when there is a hint.
func WriteError(s *IOStreams, asJSON bool, r ErrorReport) {
	if asJSON {
		// One line, with ">" left as ">" (json.Marshal would write \u003e,
		// which reads badly in a log and in jq's raw output).
		if line := JSONLine(r); line != "" {
			fmt.Fprintln(s.ErrOut, line)
			return
		}
	}
	c := NewColourScheme(s.ColourEnabled())
	// A message or hint may quote the server (a 507's stage, a body).
	fmt.Fprintf(s.ErrOut, "%s %s\n", c.Red("error:"), termtext.Line(r.Message))
	if r.Hint != "" {
		fmt.Fprintf(s.ErrOut, "%s %s\n", c.Yellow("hint:"), termtext.Line(r.Hint))
	}
}

// JSONLine encodes v as one line of JSON without HTML escaping ("" if it
// cannot be encoded), for stderr lines under -o json; C1 controls are
// escaped (termtext.JSON), as in every JSON shakectl prints.
func JSONLine(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimRight(string(termtext.JSON(b.Bytes())), "\n")
}
