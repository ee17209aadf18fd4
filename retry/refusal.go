package retry

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// refusalBody is the wire shape of a scheduling 507 (seed 004, "The
// response body"): {"error", "status", "stage", "transient"}. Raw messages
// keep a missing field, false, and a value of the wrong type apart.
type refusalBody struct {
	Error     json.RawMessage `json:"error"`
	Status    json.RawMessage `json:"status"`
	Stage     json.RawMessage `json:"stage"`
	Transient json.RawMessage `json:"transient"`
}

// ClassifyRefusal is the one reader of a capacity refusal's body, used by
// shakectl's own calls (client.classify) and by the proxy in front of other
// clients, so the two can never disagree on which answers are replayed. It
// is a Classifier.
//
// An answer is transient only when all of these hold: the status is 507,
// the body is one JSON object, its "transient" is the JSON literal true
// (not the string "true", not 1), and its "stage" is a non-empty string
// other than "unknown" (the contract's defensive stage, "never marked
// transient"; a body that says transient but names no stage contradicts
// itself). Nothing else counts: not the status alone, the stage name, the
// message, nor the Retry-After header, which the contract sends only with
// transient refusals but which a client must not infer them from.
//
// client-python 74d6e129 gates on body.get('transient') being truthy; this
// is deliberately stricter (the seed says "transient must be a JSON
// boolean"), so a proxy can never replay what the server did not mark.
func ClassifyRefusal(status int, _ http.Header, body []byte) (stage string, transient bool) {
	if status != http.StatusInsufficientStorage {
		return "", false
	}
	trimmed := bytes.TrimSpace(body)
	if !bytes.HasPrefix(trimmed, []byte("{")) {
		// An HTML page from a proxy, plain text, a truncated body.
		return "", false
	}
	var rb refusalBody
	if json.Unmarshal(trimmed, &rb) != nil {
		return "", false
	}
	if json.Unmarshal(rb.Stage, &stage) != nil {
		stage = ""
	}
	transient = string(bytes.TrimSpace(rb.Transient)) == "true" && stage != "" && stage != "unknown"
	return stage, transient
}
