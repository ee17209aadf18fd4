package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ScriptedAnswer is one canned answer for POST /instances. Exactly one of
// Schedule, Refuse or Status says what to do, e.g. this script file:
//
//	# two transient refusals, a canned 503, then normal scheduling
//	- refuse: sufficient_idle_cpu  # refuse as the scheduler would at this stage
//	  repeat: 2                    # ...twice
//	- status: 503                  # answer exactly this, before reading the request
//	  body: {error: "etcd is sulking"}
//	  headers: {Retry-After: "3"}
//	- schedule: true               # place normally (the default once the script runs out)
//
// A refusal goes through the same path as a real one: the request is
// validated, its addresses are allocated and an error-state instance record
// is left behind; transient stages carry Retry-After. A raw status answer
// has no side effects at all.
type ScriptedAnswer struct {
	Schedule bool              `yaml:"schedule,omitempty"`
	Refuse   string            `yaml:"refuse,omitempty"`
	Status   int               `yaml:"status,omitempty"`
	Body     map[string]any    `yaml:"body,omitempty"`
	Headers  map[string]string `yaml:"headers,omitempty"`
	// Repeat answers this way Repeat times (default once).
	Repeat int `yaml:"repeat,omitempty"`
}

// maxRepeat bounds one entry's repeat count.
const maxRepeat = 1_000_000

// stageCongestedNetwork is the script's name for address-pool exhaustion,
// which carries no stage on the wire.
const stageCongestedNetwork = "congested_network"

func (a ScriptedAnswer) validate() error {
	kinds := 0
	if a.Schedule {
		kinds++
	}
	if a.Refuse != "" {
		kinds++
	}
	if a.Status != 0 {
		kinds++
	}
	if kinds != 1 {
		return errors.New("give exactly one of schedule: true, refuse: STAGE or status: CODE")
	}
	if a.Repeat < 0 || a.Repeat > maxRepeat {
		return fmt.Errorf("repeat %d: want 0 to %d", a.Repeat, maxRepeat)
	}
	if a.Refuse != "" {
		if _, ok := stageTransient[a.Refuse]; !ok && a.Refuse != stageCongestedNetwork {
			return fmt.Errorf("unknown refusal stage %q: want one of %s", a.Refuse, strings.Join(scriptStages(), ", "))
		}
	}
	if a.Status != 0 && (a.Status < 400 || a.Status > 599) {
		return fmt.Errorf("status %d: canned answers are errors (400-599); use schedule: true for a success", a.Status)
	}
	if (a.Body != nil || a.Headers != nil) && a.Status == 0 {
		return errors.New("body and headers go with status: CODE")
	}
	if a.Status != 0 {
		if _, err := json.Marshal(a.cannedBody()); err != nil {
			return fmt.Errorf("body cannot be sent as JSON: %s", err)
		}
	}
	for k, v := range a.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n") || strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("invalid header %q", k)
		}
	}
	return nil
}

func scriptStages() []string {
	out := sortedKeys(stageTransient)
	return append(out, stageCongestedNetwork)
}

// ParseScript reads a YAML list of canned answers; unknown keys are errors
// so a typo does not silently schedule normally.
func ParseScript(data []byte) ([]ScriptedAnswer, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var out []ScriptedAnswer
	if err := dec.Decode(&out); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the script is empty: want a YAML list of answers")
		}
		return nil, fmt.Errorf("not a YAML list of answers: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for i, a := range out {
		if err := a.validate(); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
	}
	return out, nil
}

// LoadScript reads a script file.
func LoadScript(path string) ([]ScriptedAnswer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return s, nil
}

// cannedBody completes a raw answer's body: the status is always there, and
// an error text when the script gave none.
func (a ScriptedAnswer) cannedBody() map[string]any {
	body := map[string]any{}
	for k, v := range a.Body {
		body[k] = v
	}
	if _, ok := body["error"]; !ok {
		body["error"] = strings.ToLower(http.StatusText(a.Status))
	}
	if _, ok := body["status"]; !ok {
		body["status"] = a.Status
	}
	return body
}
