package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/retry"
)

// MaxErrorBody bounds how much of an error answer is read and kept: a hostile
// or broken server must not make the client buffer megabytes to say "no".
const MaxErrorBody = 64 << 10

// ReadErrorBody reads an error answer's body for NewAPIError: up to
// MaxErrorBody bytes and one more, so that NewAPIError can tell a body it
// cut from one that ended there.
func ReadErrorBody(r io.Reader) []byte {
	b, _ := io.ReadAll(io.LimitReader(r, MaxErrorBody+1))
	return b
}

// APIError is every non-2xx answer of the Shakenfist API.
type APIError struct {
	StatusCode int
	Method     string
	URL        string
	// Message is the body's "error" field: a string, or (the server
	// sometimes sends one) an object rendered as compact JSON. When the body
	// has no such field it is a short, printable excerpt of the body.
	Message string
	Body    []byte // raw body, at most MaxErrorBody bytes
	// Cut says the body was longer than MaxErrorBody and Body is its
	// first MaxErrorBody bytes: shakectl's own limit, not the server's.
	Cut       bool
	Header    http.Header
	RequestID string // X-Request-ID of the answer, when sent
	// Route is the API path asked for ("/artifacts/debian:11/share"),
	// without the API URL's own path; "" when the error was made from a
	// URL alone (then the URL's path is read). Hints read it: what a
	// message means depends on where it came from.
	Route string
	// KeyAccepted says the answer (a 401) came right after a login that
	// succeeded, to the request repeated with the fresh token: the
	// namespace and key are good, and it is this request the server
	// refuses (an admin route with another namespace's key).
	KeyAccepted bool

	// Attempts and Elapsed say how many requests this call sent and how
	// long it took in all; with --retry-transient-capacity a refusal may be
	// the last of several.
	Attempts int
	Elapsed  time.Duration

	capacity *CapacityRefusal
}

// CapacityRefusal is the typed view of a 507 answer with a JSON body (seed
// 004, "The response body"). It is reached from an *APIError with errors.As.
type CapacityRefusal struct {
	// Stage is the scheduler stage that refused, "" when the body has none
	// (address-pool exhaustion, CongestedNetwork).
	Stage string
	// Transient is the body's "transient" == true (the JSON boolean).
	// The field is the gate (shakenfist capacity_refusals.md at
	// 0c24a714, external_api/base.py at 565e36e6e: "Read this field rather than
	// inferring retry-worthiness from the status code or the stage
	// name"): a transient refusal without a stage is still transient, as
	// client-python 74d6e129 _request_url retries it. Nothing else makes
	// a refusal transient: not the status, the stage name or the message.
	Transient bool
	// MalformedTransient says the body has a "transient" field that is
	// not a JSON boolean (1, "true", null, an object): the contract says
	// it is a boolean, so such a refusal is not retried, and the hint can
	// say the field was malformed instead of calling the refusal
	// permanent.
	MalformedTransient bool
	// TextStage is the scheduler stage the message names ("No nodes
	// remaining at scheduling stage <stage>", shakenfist 2026
	// scheduler.py _log_and_raise_on_error) when the body has no stage
	// field: a 2026 server older than the stage/transient contract (e.g.
	// develop 59fde751) says the stage only in its text. It is for hints
	// and exit codes, never for retrying: only Transient retries.
	TextStage string
	// RetryAfter is the server's Retry-After hint, parsed and clamped to
	// [1s, 60s] by retry.ParseRetryAfter; 0 when the answer has none.
	RetryAfter time.Duration
	Message    string
	// NotReplayable, on a transient refusal, says why the request it
	// answers is not replayed (retry.NotReplayable): it is not on
	// retry.ReplayableRoutes. "" when it is.
	NotReplayable string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, pathOf(e.URL), e.StatusCode, statusText(e.StatusCode))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap exposes the capacity view of a 507 to errors.As.
func (e *APIError) Unwrap() error {
	if e.capacity == nil {
		return nil
	}
	return e.capacity
}

// IsHTML says the answer was an HTML page (Flask's 404 page for a route the
// API does not have, an Apache or proxy page): the URL does not point at a
// Shakenfist API.
func (e *APIError) IsHTML() bool {
	return bytes.HasPrefix(bytes.TrimSpace(e.Body), []byte("<"))
}

// AtLogin says the answer is to POST /auth: there a 404 means the
// namespace is unknown (shakenfist da448b1a auth.py), which is an
// authentication failure, not a missing resource.
func (e *APIError) AtLogin() bool {
	return e.Method == http.MethodPost && strings.HasSuffix(pathOf(e.URL), "/auth")
}

// route is the API path of the request, for the hints.
func (e *APIError) route() string {
	if e.Route != "" {
		return e.Route
	}
	return pathOf(e.URL)
}

// Capacity returns the capacity view of a 507, or nil.
func (e *APIError) Capacity() *CapacityRefusal { return e.capacity }

func (c *CapacityRefusal) Error() string {
	if c.Stage == "" {
		return "capacity refused: " + c.Message
	}
	return fmt.Sprintf("capacity refused at stage %s: %s", c.Stage, c.Message)
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "status"
}

func pathOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[i+3+j:]
		}
		return "/"
	}
	return u
}

// errorBody is the wire shape of an error answer: {"error", "status"} and,
// on a scheduling 507, "transient", read here only to say whether it is
// malformed (retry.ClassifyRefusal reads the stage and the mark). Raw
// messages keep the distinction between a missing field, false, and a
// value of the wrong type.
type errorBody struct {
	Error     json.RawMessage `json:"error"`
	Status    json.RawMessage `json:"status"`
	Transient json.RawMessage `json:"transient"`
}

// NewAPIError builds the typed error for a non-2xx answer from its status,
// headers and (already bounded) body.
func NewAPIError(method, url string, status int, header http.Header, body []byte, now time.Time) *APIError {
	cut := len(body) > MaxErrorBody
	if cut {
		body = body[:MaxErrorBody]
	}
	e := &APIError{
		Cut:        cut,
		StatusCode: status,
		Method:     method,
		URL:        url,
		Body:       body,
		Header:     header,
		RequestID:  header.Get("X-Request-ID"),
		Attempts:   1,
	}
	var eb errorBody
	isJSON := json.Unmarshal(body, &eb) == nil && bytes.HasPrefix(bytes.TrimSpace(body), []byte("{"))
	if isJSON {
		e.Message = messageOf(eb.Error)
	}
	if e.Message == "" {
		e.Message = excerpt(body)
		if cut {
			// What was read ends where shakectl stopped reading: said
			// as that limit, never left to look like truncated JSON.
			e.Message = tooLarge(MaxErrorBody) + ", beginning " + e.Message
		}
	}
	if status == http.StatusInsufficientStorage && isJSON {
		// The one reader of the refusal's stage and transient mark, the
		// one the retry and the proxy decide with: what shakectl reports
		// (and its exit code) is what it retried.
		stage, transient := retry.ClassifyRefusal(status, header, body)
		cr := &CapacityRefusal{Stage: stage, Transient: transient, Message: e.Message}
		if t := string(bytes.TrimSpace(eb.Transient)); t != "" && t != "true" && t != "false" {
			cr.MalformedTransient = true
		}
		if stage == "" {
			cr.TextStage = StageInText(e.Message)
		}
		if vals := header.Values("Retry-After"); len(vals) > 0 {
			cr.RetryAfter = retry.ParseRetryAfter(vals, now)
		}
		e.capacity = cr
	}
	return e
}

// stageInTextPrefix starts every filter stage's refusal text on a 2026
// server; the stage name follows, then optionally ": detail".
const stageInTextPrefix = "No nodes remaining at scheduling stage "

// StageInText reads the stage out of a 2026 scheduler refusal's text, or
// "" when the text is not one (the 2024 texts name no stage). A name is
// the server's identifier form (lower case, digits, "_"); anything else is
// not trusted as one.
func StageInText(msg string) string {
	i := strings.Index(msg, stageInTextPrefix)
	if i < 0 {
		return ""
	}
	rest := msg[i+len(stageInTextPrefix):]
	n := 0
	for n < len(rest) && (rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= '0' && rest[n] <= '9' || rest[n] == '_') {
		n++
	}
	if n == 0 || n > 64 || (n < len(rest) && rest[n] != ':') {
		return ""
	}
	return rest[:n]
}

func stringOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// messageOf renders the "error" field: a string as is, an object or any
// other JSON value compacted to one line.
func messageOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if s := stringOf(raw); s != "" || raw[0] == '"' {
		return oneLine(s)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return ""
	}
	return oneLine(buf.String())
}

// excerpt turns a non-JSON body (an HTML proxy page, plain text) into a short
// single line, so an error stays one line on the terminal.
func excerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	if strings.HasPrefix(s, "<") {
		if t := htmlTitle(s); t != "" {
			return "(HTML page) " + t
		}
		return "(HTML page)"
	}
	s = oneLine(s)
	const limit = 200
	if len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "") + "…"
	}
	return s
}

func htmlTitle(s string) string {
	low := strings.ToLower(s)
	i := strings.Index(low, "<title>")
	j := strings.Index(low, "</title>")
	if i < 0 || j <= i {
		return ""
	}
	return oneLine(s[i+len("<title>") : j])
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
