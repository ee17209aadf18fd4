package retry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/output/termtext"
)

// Notice describes one wait before a retry, for the line on stderr.
type Notice struct {
	Stage   string        // the refusal's stage
	Wait    time.Duration // what will actually be slept: min(clamped Retry-After, Left)
	Attempt int           // the attempt about to be sent, 2..MaxAttempts
	Max     int           // MaxAttempts
	Left    time.Duration // budget left before this wait
	// Method and Path name the request being retried when the line is
	// about someone else's request (the proxy); empty for shakectl's own
	// calls, whose command already says what it sent.
	Method string
	Path   string
	// UnreadableRetryAfter is the refusal's Retry-After when it could not
	// be read (an empty one too), so DefaultWait was used; nil when it was
	// read or absent.
	UnreadableRetryAfter *string
}

// String is the line the command prints, e.g. "capacity refused at stage
// sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 44s left)".
func (n Notice) String() string {
	prefix := ""
	if n.Method != "" || n.Path != "" {
		prefix = strings.TrimSpace(n.Method+" "+n.Path) + ": "
	}
	line := prefix + fmt.Sprintf("%s (transient); retrying in %s (attempt %d/%d, %s left",
		RefusedAt(n.Stage), roundDown(n.Wait), n.Attempt, n.Max, roundDown(n.Left))
	if n.UnreadableRetryAfter != nil {
		// The server's text, quoted: the writer sanitises the line.
		what := "empty"
		if *n.UnreadableRetryAfter != "" {
			what = "unreadable"
		}
		line += fmt.Sprintf("; Retry-After %q %s, the %s default used", *n.UnreadableRetryAfter, what, roundDown(DefaultWait))
	}
	return line + ")"
}

// RefusedAt is how a line names a refusal: "capacity refused at stage
// sufficient_idle_cpu", or "capacity refused" for a transient refusal whose
// body has no stage (a 2026 server that says the stage only in its text).
func RefusedAt(stage string) string {
	if stage == "" {
		return "capacity refused"
	}
	return "capacity refused at stage " + stage
}

// roundDown renders a wait or the budget left rounded down to the second,
// so the line never promises more time than there is (59.99s left reads
// "59s", not "1m0s"), and a wait cut to the budget reads the same as the
// budget ("retrying in 2s (attempt 2/5, 2s left)").
func roundDown(d time.Duration) string {
	if d >= time.Second {
		return d.Truncate(time.Second).String()
	}
	return HumanDuration(d)
}

// HumanDuration renders a wait the way a person reads it: whole seconds
// ("15s", "1m30s"), milliseconds below a second ("300ms").
func HumanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// JSON is the notice as one line of JSON (Fields), for stderr under -o
// json, where a script parses every line. HTML escaping is off so ">"
// stays ">"; the stage is the server's text, so C1 controls are escaped
// (termtext.JSON). shakectl's commands print Fields through their
// notifier, which encodes it the same way.
func (n Notice) JSON() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(n.Fields())
	return string(bytes.TrimRight(termtext.JSON(b.Bytes()), "\n"))
}

// NoticeFields is a notice's JSON object: {"event":"retry","stage":…,
// "wait_seconds":…,"attempt":2,"max_attempts":5,"left_seconds":…,
// "message":…}, with "method" and "path" after "event" when the notice
// names a request (the proxy's).
type NoticeFields struct {
	Event       string  `json:"event"`
	Method      string  `json:"method,omitempty"`
	Path        string  `json:"path,omitempty"`
	Stage       string  `json:"stage"`
	WaitSeconds float64 `json:"wait_seconds"`
	Attempt     int     `json:"attempt"`
	MaxAttempts int     `json:"max_attempts"`
	LeftSeconds float64 `json:"left_seconds"`
	// The header that could not be read, when the default was used.
	UnreadableRetryAfter *string `json:"unreadable_retry_after,omitempty"`
	Message              string  `json:"message"`
}

// Fields is the notice for programs: the object JSON encodes, and what a
// notifier's Event prints under -o json.
func (n Notice) Fields() NoticeFields {
	return NoticeFields{"retry", n.Method, n.Path, n.Stage, n.Wait.Seconds(), n.Attempt, n.Max, n.Left.Seconds(), n.UnreadableRetryAfter, n.String()}
}
