package output

import (
	"bytes"
	"encoding/json"
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
