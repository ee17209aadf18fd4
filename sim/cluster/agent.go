package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
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
// "echo ARGS", "cat PATH" (of a file put into the guest, its first 64 KiB;
// any other fails), "sleep SECONDS", "exit N", "true", "false", and
// "sh -c 'LINE'" of any of those; anything else is "not found" (127).
// agent/put keeps a blob under a path, agent/get gives it back as
// content_blob; there is no other file. It cannot run real programs. A
// transfer completes at once unless Config.AgentTransferStall makes put
// and get stall: then a 2026 one expires after progress_timeout_seconds
// (default 30) with expiry_reason "progress" (screenshots: console.go).
// The
// agent is ready once the instance is created (the instance view still
// reads agent_state null). A command takes no time but its sleep; the
// operation's state is worked out when it is read.

type agentOp struct {
	uuid, namespace, instance, commandLine string
	started                                time.Time
	runs                                   time.Duration
	deadline                               int64 // seconds, 0: none (2026)
	// progressTimeout is a put or get's progress_timeout_seconds (2026;
	// -1 for execute, which has none); stalled, a transfer that makes no
	// progress (Config.AgentTransferStall).
	progressTimeout int64
	stalled         bool
	rc              int
	stdout, stderr  string
	// commands and results, when set, are a put or get's (not execute's).
	commands []any
	results  map[string]any
	// preflight is the first state a put answers with.
	preflight bool
	// failed ends a put or get in state error (a get of a file the guest
	// does not have: sidechannel.py _handle_get_file).
	failed bool
}

// agentUnique is the "unique" the server gives step n of op
// (sidechannel.py: agentop:<uuid>:<n>), which the agent echoes.
func agentUnique(op *agentOp, n int) string { return fmt.Sprintf("agentop:%s:%d", op.uuid, n) }

// maxAgentOps bounds the operations a client can make the simulator hold.
const maxAgentOps = 4096

// defaultAgentDeadline is AGENT_OPERATION_DEFAULT_DEADLINE (2026).
const defaultAgentDeadline = 600

// runAgentCommand is the simulated agent's shell.
// read, when set, gives the content of a file put into the guest.
func runAgentCommand(line string, read func(path string) (string, bool)) (rc int, stdout, stderr string, runs time.Duration) {
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
			return runAgentCommand(words[2], read)
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
		var outs, errs strings.Builder
		rc := 0
		for _, p := range words[1:] {
			if read != nil {
				if content, ok := read(p); ok {
					outs.WriteString(content)
					continue
				}
			}
			fmt.Fprintf(&errs, "cat: %s: No such file or directory\n", p)
			rc = 1
		}
		return rc, outs.String(), errs.String(), 0
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
		if err := s.agentReady(i); err != nil {
			return nil, err
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
		rc, out, errOut, runs := runAgentCommand(line, func(path string) (string, bool) { return s.readGuestFile(i.uuid, path) })
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
	commands := op.commands
	if commands == nil {
		commands = []any{map[string]any{"command": "execute", "commandline": op.commandLine, "block-for-result": true}}
	}
	out := map[string]any{
		"uuid": op.uuid, "namespace": op.namespace, "instance_uuid": op.instance, "metadata": map[string]any{},
		"version": 1, "commands": commands, "results": map[string]any{},
	}
	el := time.Since(op.started)
	deadline := time.Duration(op.deadline) * time.Second
	switch {
	case justQueued && op.preflight:
		out["state"] = "preflight"
	case justQueued:
		out["state"] = "queued"
	case op.stalled && op.progressTimeout > 0 && (op.deadline == 0 || op.progressTimeout <= op.deadline) && el >= time.Duration(op.progressTimeout)*time.Second:
		out["state"], out["expiry_reason"] = "expired", "progress"
	case op.stalled && op.deadline > 0 && el >= deadline:
		out["state"], out["expiry_reason"] = "expired", "deadline"
	case op.stalled:
		out["state"] = "executing"
	case op.deadline > 0 && op.runs > deadline && el >= deadline:
		out["state"], out["expiry_reason"] = "expired", "deadline"
	case el < op.runs:
		out["state"] = "executing"
	case op.results != nil && op.failed:
		out["state"], out["results"] = "error", op.results
	case op.results != nil:
		out["state"], out["results"] = "complete", op.results
	default:
		// The agent's execute-response as the server stores it
		// (agent-python daemon.py execute; sidechannel.py add_result):
		// result false when the command exited nonzero.
		out["state"] = "complete"
		out["results"] = map[string]any{"0": map[string]any{
			"command": "execute-response", "command-line": op.commandLine, "result": op.rc == 0, "return-code": op.rc,
			"stdout": op.stdout, "stderr": op.stderr, "unique": agentUnique(op, 0),
		}}
	}
	if s.is2026() {
		out["deadline"] = op.deadline
		out["progress_timeout"] = nil
		if op.commands != nil { // put and get
			out["progress_timeout"] = op.progressTimeout
		}
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

// guestFile is a file put into a guest: a blob and a mode.
type guestFile struct{ blob, mode string }

// maxGuestFileRead bounds what cat prints of a put file.
const maxGuestFileRead = 64 << 10

func (s *Server) readGuestFile(instance, path string) (string, bool) {
	g, ok := s.guestFiles[instance][path]
	if !ok {
		return "", false
	}
	b := s.blobTable()[g.blob]
	if b == nil {
		return "", false
	}
	var r interface{ Read([]byte) (int, error) }
	if b.path != "" {
		f, err := os.Open(b.path)
		if err != nil {
			return "", false
		}
		defer f.Close()
		r = f
	} else {
		r = &syntheticReader{end: b.size}
	}
	buf := make([]byte, min(b.size, maxGuestFileRead))
	n, _ := io.ReadFull(r.(io.Reader), buf)
	return string(buf[:n]), true
}

// agentParams reads the 2026 deadline fields of a put, get or execute
// (PLAN-agent-operation-deadlines): deadline_seconds 0-86400 (default
// 600), progress_timeout_seconds for put and get.
func agentDeadline(p map[string]any) (deadline, progress int64, e *apiError) {
	deadline, progress = defaultAgentDeadline, defaultProgressTimeout
	for _, k := range []string{"deadline_seconds", "progress_timeout_seconds"} {
		v, ok := p[k]
		if !ok {
			continue
		}
		num, isNum := v.(json.Number)
		n, err := num.Int64()
		if !isNum || err != nil {
			return 0, 0, badRequest("%s: Not a valid integer.", k)
		}
		if n < 0 || n > 86400 {
			return 0, 0, badRequest("%s: Must be greater than or equal to 0 and less than or equal to 86400.", k)
		}
		if k == "deadline_seconds" {
			deadline = n
		} else {
			progress = n
		}
	}
	return deadline, progress, nil
}

// defaultProgressTimeout is progress_timeout_seconds' default (2026).
const defaultProgressTimeout = 30

func (s *Server) newAgentOp(i *instance, commands []any, results map[string]any, deadline int64) (*agentOp, *apiError) {
	if len(s.agentOps) >= maxAgentOps {
		return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("agent operation quota exceeded: the simulator holds at most %d", maxAgentOps)}
	}
	op := &agentOp{uuid: newUUID(), namespace: i.namespace, instance: i.uuid, started: time.Now(),
		deadline: deadline, commands: commands, results: results}
	if s.agentOps == nil {
		s.agentOps = map[string]*agentOp{}
	}
	s.agentOps[op.uuid] = op
	return op, nil
}

// agentReady is what the three agent endpoints check before anything
// else (da448b1a instance.py InstanceAgent{Execute,Put,Get}Endpoint; the
// same in 2026, code index id 59117373307): @requires_instance_active's
// 406 for an instance not created, then the handler's own 400 "instance
// agent not ready" until the agent reports ready.
func (s *Server) agentReady(i *instance) *apiError {
	if err := requireInstanceActive(i); err != nil {
		return err
	}
	if st, _ := s.agentState(i).(string); !strings.HasPrefix(st, "ready") {
		return badRequest("instance agent not ready")
	}
	return nil
}

// agentState is the view's agent_state (shakenfist da448b1a constants.py
// AGENT_*): null before the instance is created and for one without the
// sf-agent side channel; "not ready (no contact)" for Config.AgentBoot
// after it was created, then "ready"; "not ready (instance powered off)"
// and "not ready (instance paused)" while so.
func (s *Server) agentState(i *instance) any {
	hasAgent := false
	if chans, ok := i.spec.sideChannels.([]any); ok {
		for _, c := range chans {
			hasAgent = hasAgent || c == "sf-agent"
		}
	}
	switch {
	case i.state != stateCreated || !hasAgent:
		return nil
	case i.powerState == "off":
		return "not ready (instance powered off)"
	case i.powerState == "paused":
		return "not ready (instance paused)"
	case time.Since(i.stateUpdated) < s.cfg.AgentBoot:
		return "not ready (no contact)"
	}
	return "ready"
}

// handleAgentPut is InstanceAgentPutEndpoint.post: int(mode) or a
// symbolic mode, else 406; the blob must exist (404). It answers in
// preflight; the file is in the guest once the operation is read.
func (s *Server) handleAgentPut(w http.ResponseWriter, r *http.Request, caller string) {
	accepted := []string{"blob_uuid", "path", "mode"}
	if s.is2026() {
		accepted = append(accepted, "deadline_seconds", "progress_timeout_seconds")
	}
	s.withInstance(w, r, caller, "InstanceAgentPutEndpoint.post", accepted, func(i *instance, p map[string]any) (any, *apiError) {
		if e := s.agentReady(i); e != nil {
			return nil, e
		}
		mode := fmt.Sprint(p["mode"])
		if _, err := strconv.Atoi(strings.TrimSpace(mode)); err != nil && strings.Trim(mode, "ugoa+-=rwxXst,") != "" {
			return nil, &apiError{status: http.StatusNotAcceptable, msg: "invalid mode: " + mode}
		}
		blobUUID, _ := p["blob_uuid"].(string)
		path, _ := p["path"].(string)
		if s.blobTable()[blobUUID] == nil {
			return nil, notFound("blob not found")
		}
		deadline, progress := int64(0), int64(0)
		if s.is2026() {
			var e *apiError
			if deadline, progress, e = agentDeadline(p); e != nil {
				return nil, e
			}
		}
		commands := []any{
			map[string]any{"command": "put-blob", "blob_uuid": blobUUID, "path": path},
			map[string]any{"command": "chmod", "path": path, "mode": mode},
		}
		op, e := s.newAgentOp(i, commands, map[string]any{}, deadline)
		if e != nil {
			return nil, e
		}
		// The agent's put-file-response and chmod-response carry no
		// "result" (agent-python daemon.py put_file, chmod).
		op.results["0"] = map[string]any{"command": "put-file-response", "path": path, "unique": agentUnique(op, 0)}
		op.results["1"] = map[string]any{"command": "chmod-response", "path": path, "unique": agentUnique(op, 1)}
		op.preflight = true
		s.stallTransfer(op, progress)
		if s.guestFiles == nil {
			s.guestFiles = map[string]map[string]guestFile{}
		}
		if s.guestFiles[i.uuid] == nil {
			s.guestFiles[i.uuid] = map[string]guestFile{}
		}
		if !s.cfg.AgentTransferStall { // a stalled put never lands
			s.guestFiles[i.uuid][path] = guestFile{blob: blobUUID, mode: mode}
		}
		s.addEvent(i, apiFQDN, "agent operation put-blob request from REST API", nil)
		return s.agentOpView(op, true), nil
	})
}

// handleAgentGet is InstanceAgentGetEndpoint.post: the file's content
// comes back as a blob, results["0"]["content_blob"]; a file the guest
// does not have is a failed result.
func (s *Server) handleAgentGet(w http.ResponseWriter, r *http.Request, caller string) {
	accepted := []string{"path"}
	if s.is2026() {
		accepted = append(accepted, "deadline_seconds", "progress_timeout_seconds")
	}
	s.withInstance(w, r, caller, "InstanceAgentGetEndpoint.post", accepted, func(i *instance, p map[string]any) (any, *apiError) {
		if e := s.agentReady(i); e != nil {
			return nil, e
		}
		path, _ := p["path"].(string)
		deadline, progress := int64(0), int64(0)
		if s.is2026() {
			var e *apiError
			if deadline, progress, e = agentDeadline(p); e != nil {
				return nil, e
			}
		}
		op, e := s.newAgentOp(i, []any{map[string]any{"command": "get-file", "path": path}}, map[string]any{}, deadline)
		if e != nil {
			return nil, e
		}
		// The agent's get-file-response (agent-python protocol.py
		// _path_is_a_file, _send_file) as sidechannel.py
		// _handle_get_file stores it: a missing file ends the operation
		// in error; a file's last packet gains stat_result and
		// content_blob.
		result := map[string]any{"command": "get-file-response", "result": false, "path": path,
			"message": "path does not exist", "unique": agentUnique(op, 0)}
		op.failed = true
		if g, ok := s.guestFiles[i.uuid][path]; ok && s.blobTable()[g.blob] != nil {
			result = map[string]any{"command": "get-file-response", "result": true, "path": path, "unique": agentUnique(op, 0),
				"stat_result":  map[string]any{"size": s.blobTable()[g.blob].size},
				"content_blob": g.blob}
			op.failed = false
		}
		op.results["0"] = result
		s.stallTransfer(op, progress)
		s.addEvent(i, apiFQDN, "agent operation get-file request from REST API", nil)
		return s.agentOpView(op, true), nil
	})
}

// stallTransfer records a put or get's progress timeout and, with
// Config.AgentTransferStall, makes it stall.
func (s *Server) stallTransfer(op *agentOp, progress int64) {
	op.progressTimeout = progress
	op.stalled = s.cfg.AgentTransferStall
}
