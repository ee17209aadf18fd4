package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The in-guest agent, as far as POST /instances/{ref}/agent/execute and
// GET /agentoperations/{uuid} show it: shakenfist da448b1a
// external_api/instance.py InstanceAgentExecuteEndpoint and
// agentoperation.py (agentoperation_get_example); in 2026 the deadline
// fields of PLAN-agent-operation-deadlines (shared/reference/
// shakenfist-2026.md 2.4: deadline_seconds, default 600, 0 none, at most
// 86400; terminal state expired with expiry_reason).
//
// What the simulated agent can do: run one command line of a fixed set,
// "echo ARGS", "cat PATH" (no file exists in the guest: cat fails),
// "sleep SECONDS", "exit N", "true", "false", and "sh -c 'LINE'" of any of
// those; anything else is "not found" (127). It cannot run real programs,
// hold files (agent put and get are not simulated), or screenshot. The
// agent is ready once the instance is created (the instance view still
// reads agent_state null). A command takes no time but its sleep; the
// operation's state is worked out when it is read.

type agentOp struct {
	uuid, namespace, instance, commandLine string
	started                                time.Time
	runs                                   time.Duration
	deadline                               int64 // seconds, 0: none (2026)
	rc                                     int
	stdout, stderr                         string
}

// maxAgentOps bounds the operations a client can make the simulator hold.
const maxAgentOps = 4096

// defaultAgentDeadline is AGENT_OPERATION_DEFAULT_DEADLINE (2026).
const defaultAgentDeadline = 600

// runAgentCommand is the simulated agent's shell.
func runAgentCommand(line string) (rc int, stdout, stderr string, runs time.Duration) {
	words, ok := shellWords(line)
	if !ok {
		return 2, "", "sh: syntax error: unterminated quoted string\n", 0
	}
	if len(words) == 0 {
		return 0, "", "", 0
	}
	switch words[0] {
	case "sh", "bash":
		if len(words) >= 3 && words[1] == "-c" {
			return runAgentCommand(words[2])
		}
	case "echo":
		return 0, strings.Join(words[1:], " ") + "\n", "", 0
	case "true":
		return 0, "", "", 0
	case "false":
		return 1, "", "", 0
	case "exit":
		n := 0
		if len(words) > 1 {
			v, err := strconv.Atoi(words[1])
			if err != nil {
				return 2, "", "sh: exit: Illegal number: " + words[1] + "\n", 0
			}
			n = v & 0xff
		}
		return n, "", "", 0
	case "sleep":
		if len(words) == 2 {
			if f, err := strconv.ParseFloat(words[1], 64); err == nil && f >= 0 && f <= 86400 {
				return 0, "", "", time.Duration(f * float64(time.Second))
			}
		}
		return 1, "", "sleep: invalid time interval\n", 0
	case "cat":
		var errs strings.Builder
		for _, p := range words[1:] {
			fmt.Fprintf(&errs, "cat: %s: No such file or directory\n", p)
		}
		if len(words) == 1 {
			return 0, "", "", 0
		}
		return 1, "", errs.String(), 0
	}
	return 127, "", "sh: 1: " + words[0] + ": not found\n", 0
}

// shellWords splits a line as sh does for words, single and double
// quotes and backslashes; no expansions.
func shellWords(line string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	in, escaped := false, false
	var quote rune
	for _, r := range line {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == 0 && r == '\\':
			escaped, in = true, true
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || escaped {
		return nil, false
	}
	if in {
		out = append(out, cur.String())
	}
	return out, true
}

// handleAgentExecute is InstanceAgentExecuteEndpoint.post.
func (s *Server) handleAgentExecute(w http.ResponseWriter, r *http.Request, caller string) {
	accepted := []string{"command_line"}
	if s.is2026() {
		accepted = append(accepted, "deadline_seconds", "progress_timeout_seconds")
	}
	s.withInstance(w, r, caller, "InstanceAgentExecuteEndpoint.post", accepted, func(i *instance, p map[string]any) (any, *apiError) {
		if i.state != stateCreated {
			if i.state == stateDeleted || strings.HasSuffix(i.state, "-error") {
				return nil, notFound("instance not found")
			}
			return nil, badRequest("instance agent not ready")
		}
		line, _ := p["command_line"].(string)
		deadline := int64(0)
		if s.is2026() {
			if _, ok := p["progress_timeout_seconds"]; ok {
				return nil, badRequest("progress_timeout_seconds: Unknown field.")
			}
			deadline = defaultAgentDeadline
			if v, ok := p["deadline_seconds"]; ok {
				num, isNum := v.(json.Number)
				n, err := num.Int64()
				if !isNum || err != nil {
					return nil, badRequest("deadline_seconds: Not a valid integer.")
				}
				if n < 0 || n > 86400 {
					return nil, badRequest("deadline_seconds: Must be greater than or equal to 0 and less than or equal to 86400.")
				}
				deadline = n
			}
		}
		if len(s.agentOps) >= maxAgentOps {
			return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("agent operation quota exceeded: the simulator holds at most %d", maxAgentOps)}
		}
		rc, out, errOut, runs := runAgentCommand(line)
		op := &agentOp{uuid: newUUID(), namespace: i.namespace, instance: i.uuid, commandLine: line,
			started: time.Now(), runs: runs, deadline: deadline, rc: rc, stdout: out, stderr: errOut}
		if s.agentOps == nil {
			s.agentOps = map[string]*agentOp{}
		}
		s.agentOps[op.uuid] = op
		s.addEvent(i, apiFQDN, "agent operation execute request from REST API", nil)
		return s.agentOpView(op, true), nil
	})
}

// agentOpView is AgentOperation.external_view: queued when just made,
// then executing until the command's time is up, then complete (or, in
// 2026, expired past its deadline).
func (s *Server) agentOpView(op *agentOp, justQueued bool) map[string]any {
	commands := []any{map[string]any{"command": "execute", "commandline": op.commandLine, "block-for-result": true}}
	out := map[string]any{
		"uuid": op.uuid, "namespace": op.namespace, "instance_uuid": op.instance, "metadata": map[string]any{},
		"version": 1, "commands": commands, "results": map[string]any{},
	}
	el := time.Since(op.started)
	deadline := time.Duration(op.deadline) * time.Second
	switch {
	case justQueued:
		out["state"] = "queued"
	case op.deadline > 0 && op.runs > deadline && el >= deadline:
		out["state"], out["expiry_reason"] = "expired", "deadline"
	case el < op.runs:
		out["state"] = "executing"
	default:
		out["state"] = "complete"
		out["results"] = map[string]any{"0": map[string]any{
			"command-line": op.commandLine, "result": true, "return-code": op.rc, "stdout": op.stdout, "stderr": op.stderr,
		}}
	}
	if s.is2026() {
		out["deadline"] = op.deadline
		out["progress_timeout"] = nil
		out["attempts"] = 1
		out["last_progress"] = epoch(op.started)
		if _, ok := out["expiry_reason"]; !ok {
			out["expiry_reason"] = nil
		}
	}
	return out
}

// handleShowAgentOp is AgentOperationEndpoint.get: the caller's own (or,
// for system, any) operation.
func (s *Server) handleShowAgentOp(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "AgentOperationEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	op := s.agentOps[r.PathValue("operation_uuid")]
	var out map[string]any
	if op != nil && visible(caller, op.namespace) {
		out = s.agentOpView(op, false)
	}
	s.mu.Unlock()
	if out == nil {
		writeError(w, notFound("agent operation not found"))
		return
	}
	writeJSON(w, http.StatusOK, out)
}
