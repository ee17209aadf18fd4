package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/client/poll"
)

// Agent operations: shakenfist da448b1a external_api/instance.py
// InstanceAgentExecuteEndpoint (POST /instances/{ref}/agent/execute
// {command_line}) and agentoperation.py (GET /agentoperations/{uuid});
// the 2026 deadline fields of PLAN-agent-operation-deadlines
// (capability agentoperation-deadlines: deadline_seconds, terminal state
// expired with expiry_reason deadline|progress).

// AgentOperation is AgentOperation.external_view.
type AgentOperation struct {
	UUID         string                        `json:"uuid"`
	State        string                        `json:"state"`
	Namespace    string                        `json:"namespace"`
	InstanceUUID string                        `json:"instance_uuid"`
	Results      map[string]AgentCommandResult `json:"results"`
	ExpiryReason *string                       `json:"expiry_reason"`
	Raw          json.RawMessage               `json:"-"`
}

func (o *AgentOperation) keepRaw(r json.RawMessage) { o.Raw = r }

// AgentCommandResult is one command's result: the agent's answer packet
// as the server stores it (agentoperation_get_example; shakenfist
// da448b1a daemons/sidechannel.py add_result). Not every packet says
// "result": put-file-response and chmod-response have none, so a step
// failed only when Result is there and false (Failed).
type AgentCommandResult struct {
	CommandLine string `json:"command-line"`
	Result      *bool  `json:"result"`
	// ReturnCode is the command's exit code as the agent sent it, kept
	// raw: a missing, null or non-integer code must not read as 0
	// (ExitStatus says what it means).
	ReturnCode json.RawMessage `json:"return-code"`
	Stdout     string          `json:"stdout"`
	Stderr     string          `json:"stderr"`
	// StdoutBlob and StderrBlob hold an output over 10 KiB, which the
	// server moves into a blob in place of stdout or stderr (da448b1a
	// daemons/sidechannel.py).
	StdoutBlob string `json:"stdout_blob"`
	StderrBlob string `json:"stderr_blob"`
	// ContentBlob is a get's file, as a blob (sf-client 6c25293
	// instance download reads results["0"]["content_blob"]).
	ContentBlob string `json:"content_blob"`
	Message     string `json:"message"`
}

// Failed reports whether the agent said the step failed ("result":
// false); a step whose answer has no result did not fail.
func (r AgentCommandResult) Failed() bool { return r.Result != nil && !*r.Result }

// ErrNoExitCode is a result without an integer exit code: the command's
// end is unknown.
var ErrNoExitCode = errors.New("the agent reported no exit code")

// ErrAgentFailed is a result whose exit code says success while the
// agent says the step failed ("result": false): not a success.
var ErrAgentFailed = errors.New(`the agent reported the command failed ("result": false) although its exit code is 0`)

// ExitStatus is the status a shell would give for the guest command's end, so
// that a script reads it as it reads any command's: its exit code 0..255; -N,
// which the agent's Python reports for a command that signal N ended, is
// 128+N; a code above 255 is what `exit N` leaves in a shell, N mod 256,
// except that a nonzero code never becomes success (256 is 1). A missing,
// null or non-integer code (a string, 7.5) is ErrNoExitCode, never 0; a code
// of 0 with "result": false is ErrAgentFailed, with the agent's message where
// it sent one.
func (r AgentCommandResult) ExitStatus() (int, error) {
	code, err := r.exitCode()
	if err == nil && code == 0 && r.Failed() {
		if r.Message != "" {
			return 0, fmt.Errorf("%w: %s", ErrAgentFailed, oneLine(r.Message))
		}
		return 0, ErrAgentFailed
	}
	return code, err
}

// exitCode reads return-code as ExitStatus describes it.
func (r AgentCommandResult) exitCode() (int, error) {
	raw := strings.TrimSpace(string(r.ReturnCode))
	if raw == "" || raw == "null" {
		return 0, ErrNoExitCode
	}
	var n json.Number
	// A JSON string decodes into a json.Number too ("7"): only a number
	// is a code.
	if raw[0] == '"' {
		return 0, fmt.Errorf("%w (return-code %s)", ErrNoExitCode, raw)
	}
	if err := json.Unmarshal([]byte(raw), &n); err != nil {
		return 0, fmt.Errorf("%w (return-code %s)", ErrNoExitCode, raw)
	}
	code, err := n.Int64()
	if err != nil {
		return 0, fmt.Errorf("%w (return-code %s)", ErrNoExitCode, raw)
	}
	switch {
	case code < 0 && code >= -127:
		return 128 - int(code), nil
	case code < 0:
		return 0, fmt.Errorf("%w (return-code %s)", ErrNoExitCode, raw)
	case code > 255:
		if code%256 == 0 {
			return 1, nil
		}
		return int(code % 256), nil
	}
	return int(code), nil
}

// Agent operation states that end it.
const (
	AgentOpComplete = "complete"
	AgentOpExpired  = "expired"
	AgentOpError    = "error"
	AgentOpDeleted  = "deleted"
)

// Terminal reports whether the operation has ended.
func (o *AgentOperation) Terminal() bool {
	switch o.State {
	case AgentOpComplete, AgentOpExpired, AgentOpError, AgentOpDeleted:
		return true
	}
	return false
}

// ExecuteRequest is what InstanceExecute sends. Deadline, when set, is
// deadline_seconds (2026 only: the client refuses it before sending to a
// server without agentoperation-deadlines); 0 means no deadline.
type ExecuteRequest struct {
	CommandLine string
	Deadline    *time.Duration
}

// CapabilityAgentDeadlines is the 2026 capability of deadline_seconds.
const CapabilityAgentDeadlines = "agentoperation-deadlines"

// InstanceExecute queues a command line for the instance's agent.
func (c *Client) InstanceExecute(ctx context.Context, ref string, req ExecuteRequest) (*AgentOperation, error) {
	p, err := instancePath(ref, "agent", "execute")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.CommandLine) == "" {
		return nil, &UsageError{Field: "command_line", Problem: "no command"}
	}
	body := map[string]any{"command_line": req.CommandLine}
	if req.Deadline != nil {
		if err := c.require(ctx, CapabilityAgentDeadlines, "agent operation deadlines"); err != nil {
			return nil, err
		}
		body["deadline_seconds"] = int64((*req.Deadline + time.Second - 1) / time.Second)
	}
	o, _, err := getOne[AgentOperation](c, ctx, http.MethodPost, p, body)
	return o, err
}

// GetAgentOperation is GET /agentoperations/{uuid}.
func (c *Client) GetAgentOperation(ctx context.Context, id string) (*AgentOperation, error) {
	if strings.TrimSpace(id) == "" {
		return nil, &UsageError{Field: "agent operation", Problem: "empty uuid"}
	}
	o, _, err := getOne[AgentOperation](c, ctx, http.MethodGet, "/agentoperations/"+url.PathEscape(id), nil)
	return o, err
}

// AgentOperationPoll is how to wait for an agent operation: read it every
// poll (a second when 0), as sf-client's _await_agentop does, until it
// ends (Terminal). How it ended is the caller's to judge. The caller sets
// the deadline and runs it, from the operation the request that started
// it answered (poll.Poll.WaitFrom).
func (c *Client) AgentOperationPoll(id string, every time.Duration) poll.Poll[*AgentOperation] {
	if every <= 0 {
		every = time.Second
	}
	return poll.Poll[*AgentOperation]{
		Every: poll.Constant(every),
		Get:   func(ctx context.Context) (*AgentOperation, error) { return c.GetAgentOperation(ctx, id) },
		Done:  func(o *AgentOperation) (bool, error) { return o.Terminal(), nil },
	}
}

// TransferRequest is what InstancePut and InstanceGet send beyond their
// own fields: the 2026 deadline_seconds and progress_timeout_seconds
// (refused before sending to a server without agentoperation-deadlines).
type TransferRequest struct {
	Deadline        *time.Duration
	ProgressTimeout *time.Duration
}

func (c *Client) deadlineFields(ctx context.Context, body map[string]any, t TransferRequest) error {
	if t.Deadline == nil && t.ProgressTimeout == nil {
		return nil
	}
	if err := c.require(ctx, CapabilityAgentDeadlines, "agent operation deadlines"); err != nil {
		return err
	}
	secs := func(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }
	if t.Deadline != nil {
		body["deadline_seconds"] = secs(*t.Deadline)
	}
	if t.ProgressTimeout != nil {
		body["progress_timeout_seconds"] = secs(*t.ProgressTimeout)
	}
	return nil
}

// InstancePut is POST /instances/{ref}/agent/put {blob_uuid, path, mode}:
// the agent writes the blob at path and chmods it.
func (c *Client) InstancePut(ctx context.Context, ref, blobUUID, path, mode string, t TransferRequest) (*AgentOperation, error) {
	p, err := instancePath(ref, "agent", "put")
	if err != nil {
		return nil, err
	}
	body := map[string]any{"blob_uuid": blobUUID, "path": path, "mode": mode}
	if err := c.deadlineFields(ctx, body, t); err != nil {
		return nil, err
	}
	o, _, err := getOne[AgentOperation](c, ctx, http.MethodPost, p, body)
	return o, err
}

// InstanceGet is POST /instances/{ref}/agent/get {path}: the agent sends
// the file back as a blob (the result's content_blob).
func (c *Client) InstanceGet(ctx context.Context, ref, path string, t TransferRequest) (*AgentOperation, error) {
	p, err := instancePath(ref, "agent", "get")
	if err != nil {
		return nil, err
	}
	body := map[string]any{"path": path}
	if err := c.deadlineFields(ctx, body, t); err != nil {
		return nil, err
	}
	o, _, err := getOne[AgentOperation](c, ctx, http.MethodPost, p, body)
	return o, err
}

// CapabilityInstanceScreenshot is the capability sf-client checks before
// asking for a screenshot (apiclient.py get_screenshot).
const CapabilityInstanceScreenshot = "instance-screenshot"

// InstanceScreenshot is GET /instances/{ref}/screenshot: the server
// captures the instance's console into a new blob and answers that blob's
// UUID as a JSON string (shakenfist da448b1a InstanceScreenshotEndpoint.get
// and Instance.get_screenshot; the same in the 2026 tree at 00c15b80). A
// server without the capability is refused before anything is sent.
func (c *Client) InstanceScreenshot(ctx context.Context, ref string) (string, error) {
	p, err := instancePath(ref, "screenshot")
	if err != nil {
		return "", err
	}
	if !c.HasCapability(ctx, CapabilityInstanceScreenshot) {
		return "", &NotSupportedError{Feature: "instance screenshots", Capability: CapabilityInstanceScreenshot}
	}
	resp, u, err := c.call(ctx, http.MethodGet, p, nil)
	if err != nil {
		return "", err
	}
	var blob string
	if err := json.Unmarshal(resp.Body, &blob); err != nil || blob == "" {
		if err == nil {
			err = errors.New("empty blob UUID")
		}
		return "", decodeError(resp, http.MethodGet, u, err)
	}
	return blob, nil
}
