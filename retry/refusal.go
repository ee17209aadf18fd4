package retry

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// refusalBody is the wire shape of a scheduling 507 (shakenfist/shakenfist
// docs/operator_guide/capacity_refusals.md at 0c24a714, "The response body"): {"error", "status", "stage", "transient"}. Raw messages
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
// An answer is transient exactly when the status is 507, the body is one
// JSON object and its "transient" is the JSON literal true (not the string
// "true", not 1). The field is the gate (capacity_refusals.md: "Read this field rather
// than inferring retry-worthiness from the status code or the stage
// name"), so a transient refusal without a stage is still transient, as
// client-python 74d6e129 _request_url retries it, and nothing else counts:
// not the status alone, the stage, the message, nor the Retry-After header.
// client-python accepts any truthy value there; the contract says the
// field is a boolean, so this reader takes only true. The stage is the
// body's "stage" string, "" when it has none.
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
	return stage, string(bytes.TrimSpace(rb.Transient)) == "true"
}
