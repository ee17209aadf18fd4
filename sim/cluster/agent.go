package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
// agent/put keeps a blob under a path, agent/get gives its bytes back in
// a new blob, content_blob; there is no other file. It cannot run real
// programs. A
// transfer completes at once unless Config.AgentTransferStall makes put
// and get stall: then a 2026 one expires after progress_timeout_seconds
// (default 30) with expiry_reason "progress" (screenshots: console.go).
// The
// agent is ready once the instance is created (the instance view still
// reads agent_state null). A command takes no time but its sleep; the
// operation's state is worked out when it is read.
//
// Pinned to a real node (client/testdata/sf2024/node, SOURCES.md): the
// server stores each agent packet without its "command" and "unique"
// (agentoperation.py add_result), an output over 10 KiB becomes a blob
// (stdout_blob, stderr_blob), the view's keys come in external_view's
// order, and an instance not created is a 406 before the agent's 400;
// the blobs an operation makes (an output's, a fetched file's) are its
// own, each referred to once.

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
	// stdoutBlob and stderrBlob hold an output over 10 KiB, which the
	// server keeps as a blob in place of the text.
	stdoutBlob, stderrBlob string
	// commands and results, when set, are a put or get's (not execute's).
	commands []any
	results  map[string]any
	// preflight is the first state a put answers with.
	preflight bool
	// failed ends a put or get in state error (a get of a file the guest
	// does not have: sidechannel.py _handle_get_file).
	failed bool
}

// maxAgentOps bounds the operations a client can make the simulator hold.
const maxAgentOps = 4096

// defaultAgentDeadline is AGENT_OPERATION_DEFAULT_DEADLINE (2026).
const defaultAgentDeadline = 600

// runAgentCommand is the simulated agent's shell: the agent runs a
// command line with processutils.execute(shell=True), that is /bin/sh -c
// LINE, so a failure names "/bin/sh" (and "sh" in a nested sh -c), as
// the real node's answers show. read, when set, gives the content of a
// file put into the guest.
func runAgentCommand(line string, read func(path string) (string, bool)) (rc int, stdout, stderr string, runs time.Duration) {
	return runShell("/bin/sh", line, read)
}

// runShell runs a line's ;-separated commands in turn, each optionally
// ending in >&2, until one exits.
func runShell(shell, line string, read func(path string) (string, bool)) (rc int, stdout, stderr string, runs time.Duration) {
	stmts, ok := splitStatements(line)
	if !ok {
		return 2, "", shell + ": 1: Syntax error: Unterminated quoted string\n", 0
	}
	var outs, errs strings.Builder
	for _, st := range stmts {
		words, _ := shellWords(st)
		toErr := false
		if n := len(words); n > 0 && words[n-1] == ">&2" {
			words, toErr = words[:n-1], true
		}
		if len(words) > 0 && words[0] == "exit" {
			c, o, e, _ := runWords(shell, words, read)
			errs.WriteString(o + e)
			return c, outs.String(), errs.String(), runs
		}
		c, o, e, d := runWords(shell, words, read)
		if toErr {
			errs.WriteString(o)
		} else {
			outs.WriteString(o)
		}
		errs.WriteString(e)
		rc, runs = c, runs+d
	}
	return rc, outs.String(), errs.String(), runs
}

// splitStatements cuts a line at the semicolons outside quotes.
func splitStatements(line string) ([]string, bool) {
	var out []string
	var quote rune
	escaped, start := false, 0
	for i, r := range line {
		switch {
		case escaped:
			escaped = false
		case quote == 0 && r == '\\':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ';':
			out = append(out, line[start:i])
			start = i + 1
		}
	}
	if quote != 0 || escaped {
		return nil, false
	}
	return append(out, line[start:]), true
}

// runWords runs one simple command.
func runWords(shell string, words []string, read func(path string) (string, bool)) (rc int, stdout, stderr string, runs time.Duration) {
	if len(words) == 0 {
		return 0, "", "", 0
	}
	switch words[0] {
	case "sh", "bash":
		if len(words) >= 3 && words[1] == "-c" {
			return runShell(words[0], words[2], read)
		}
	case "seq":
		// seq LAST or seq FIRST LAST, bounded so a client cannot make the
		// simulator hold much.
		first, last, err := int64(1), int64(0), error(nil)
		switch len(words) {
		case 2:
			last, err = strconv.ParseInt(words[1], 10, 64)
		case 3:
			if first, err = strconv.ParseInt(words[1], 10, 64); err == nil {
				last, err = strconv.ParseInt(words[2], 10, 64)
			}
		default:
			return 1, "", "seq: missing operand\n", 0
		}
		if err != nil || last-first > 100000 {
			return 1, "", "seq: invalid argument\n", 0
		}
		var b strings.Builder
		for n := first; n <= last; n++ {
			b.WriteString(strconv.FormatInt(n, 10))
			b.WriteByte('\n')
		}
		return 0, b.String(), "", 0
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
	return 127, "", shell + ": 1: " + words[0] + ": not found\n", 0
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
	s.withAgentInstance(w, r, caller, "InstanceAgentExecuteEndpoint.post", accepted, func(i *instance, p map[string]any) (any, *apiError) {
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
		var e *apiError
		if op.stdoutBlob, e = s.longOutputBlob(op.uuid, out); e != nil {
			return nil, e
		}
		if op.stderrBlob, e = s.longOutputBlob(op.uuid, errOut); e != nil {
			return nil, e
		}
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
func (s *Server) agentOpView(op *agentOp, justQueued bool) pyObject {
	commands := op.commands
	if commands == nil {
		commands = []any{map[string]any{"command": "execute", "commandline": op.commandLine, "block-for-result": true}}
	}
	out := map[string]any{"results": map[string]any{}}
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
		result := map[string]any{
			"command-line": op.commandLine, "result": op.rc == 0, "return-code": op.rc,
			"stdout": op.stdout, "stderr": op.stderr,
		}
		for _, o := range []struct{ key, blob string }{{"stdout", op.stdoutBlob}, {"stderr", op.stderrBlob}} {
			if o.blob != "" {
				delete(result, o.key)
				result[o.key+"_blob"] = o.blob
			}
		}
		out["results"] = map[string]any{"0": result}
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
	// AgentOperation.external_view's order (baseobject._external_view's
	// uuid, state, metadata, version, then its own), as recorded; the
	// 2026 fields after it.
	view := pyObject{{"uuid", op.uuid}, {"state", out["state"]}, {"metadata", map[string]any{}}, {"version", 1},
		{"namespace", op.namespace}, {"instance_uuid", op.instance}, {"commands", commands}, {"results", out["results"]}}
	for _, k := range []string{"deadline", "progress_timeout", "attempts", "last_progress", "expiry_reason"} {
		if v, ok := out[k]; ok {
			view = append(view, pyField{k, v})
		}
	}
	return view
}

// agentBlobThreshold is the output length past which the server keeps an
// output as a blob (sidechannel.py@da448b1a: len(stdout) > 10 * KiB, in
// characters).
const agentBlobThreshold = 10 << 10

// longOutputBlob keeps an output over the threshold as a blob the
// operation refers to (blob.from_memory, ref_count_inc(agentop)) and
// names it; a shorter one stays text ("").
func (s *Server) longOutputBlob(opUUID, text string) (string, *apiError) {
	if utf8.RuneCountInString(text) <= agentBlobThreshold {
		return "", nil
	}
	b, err := s.newBlobOf("agent-output", []byte(text))
	if err != nil {
		return "", &apiError{status: http.StatusInternalServerError, msg: "agent output blob: " + err.Error()}
	}
	b.refInc(agentOpObjectType, opUUID)
	return b.uuid, nil
}

// agentOpObjectType is AgentOperation.object_type, the key a blob's
// reference event names an operation under.
const agentOpObjectType = "agentoperation"

// pyField is one key of a pyObject.
type pyField struct {
	key   string
	value any
}

// pyObject is a JSON object whose keys keep the order a Python dict
// literal gave them (Go's maps are written sorted).
type pyObject []pyField

// MarshalJSON writes the fields in order, without HTML escapes (pyJSON
// adds Python's separators).
func (o pyObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for n, f := range o {
		if n > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(f.key); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1)
		buf.WriteByte(':')
		if err := enc.Encode(f.value); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
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
	var out pyObject
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

// guestFile is a file put into a guest: a blob, a mode and when.
type guestFile struct {
	blob, mode string
	at         time.Time
}

// statMode is the file's st_mode as os.stat gives it: a regular file
// with the put's octal mode (a symbolic one is taken as 644).
func (g guestFile) statMode() int64 {
	m, err := strconv.ParseInt(strings.TrimSpace(g.mode), 8, 64)
	if err != nil || m < 0 || m > 0o7777 {
		m = 0o644
	}
	return 0o100000 | m
}

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

// agentDeadline reads the 2026 deadline fields of a put, get or execute
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

// withAgentInstance runs an agent handler (execute, put, get) on its
// instance once agentReady allows it. On 2024 the checks come in the real
// server's order: its decorators (the instance, @requires_instance_active)
// run before Python calls post() with the body's keys, so an unexpected
// key is a 400 only for an instance that passed them (recorded:
// recorded/agent-exec-406.http sent "command-line" and got the 406).
func (s *Server) withAgentInstance(w http.ResponseWriter, r *http.Request, caller, handler string, accepted []string, fn func(i *instance, p map[string]any) (any, *apiError)) {
	if s.is2026() {
		s.withInstance(w, r, caller, handler, accepted, func(i *instance, p map[string]any) (any, *apiError) {
			if e := s.agentReady(i); e != nil {
				return nil, e
			}
			return fn(i, p)
		})
		return
	}
	data, rerr := readBody(r)
	if rerr != nil {
		writeError(w, rerr)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	var unknown []string
	for k := range body {
		if !oneOf(k, accepted) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	s.withInstance(w, r, caller, handler, append(accepted[:len(accepted):len(accepted)], unknown...), func(i *instance, p map[string]any) (any, *apiError) {
		if e := s.agentReady(i); e != nil {
			return nil, e
		}
		if len(unknown) > 0 {
			return nil, badRequest("%s() got an unexpected keyword argument '%s'", handler, truncate(unknown[0]))
		}
		return fn(i, p)
	})
}

// agentReady is what execute, put and get check first:
// @requires_instance_active's 406 for an instance not created (recorded:
// recorded/agent-exec-406.http), then the handler's 400 while the agent
// is not ready (recorded/node-exec-agent-not-ready.http, and
// node-exec-poweredoff.http for one powered off).
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
	switch {
	case i.state != stateCreated || !hasAgentChannel(i):
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

// hasAgentChannel says whether the instance has the sf-agent side
// channel, the one its agent talks on.
func hasAgentChannel(i *instance) bool {
	if chans, ok := i.spec.sideChannels.([]any); ok {
		for _, c := range chans {
			if c == "sf-agent" {
				return true
			}
		}
	}
	return false
}

// handleAgentPut is InstanceAgentPutEndpoint.post: int(mode) or a
// symbolic mode, else 406; the blob must exist (404). It answers in
// preflight; the file is in the guest once the operation is read.
func (s *Server) handleAgentPut(w http.ResponseWriter, r *http.Request, caller string) {
	accepted := []string{"blob_uuid", "path", "mode"}
	if s.is2026() {
		accepted = append(accepted, "deadline_seconds", "progress_timeout_seconds")
	}
	s.withAgentInstance(w, r, caller, "InstanceAgentPutEndpoint.post", accepted, func(i *instance, p map[string]any) (any, *apiError) {
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
		// "result" (agent-python daemon.py put_file, chmod); stored
		// without "command" and "unique", each is its path alone
		// (recorded/node-agent-put-ok-op.http).
		op.results["0"] = map[string]any{"path": path}
		op.results["1"] = map[string]any{"path": path}
		op.preflight = true
		s.stallTransfer(op, progress)
		if s.guestFiles == nil {
			s.guestFiles = map[string]map[string]guestFile{}
		}
		if s.guestFiles[i.uuid] == nil {
			s.guestFiles[i.uuid] = map[string]guestFile{}
		}
		if !s.cfg.AgentTransferStall { // a stalled put never lands
			s.guestFiles[i.uuid][path] = guestFile{blob: blobUUID, mode: mode, at: time.Now()}
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
	s.withAgentInstance(w, r, caller, "InstanceAgentGetEndpoint.post", accepted, func(i *instance, p map[string]any) (any, *apiError) {
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
		// _handle_get_file stores it, without "command" and "unique": a
		// missing file ends the operation in error; a file's last packet
		// gains stat_result (os.stat's mode, size, uid, gid and times)
		// and content_blob (recorded/node-agent-get-*-op.http): a new
		// blob of the bytes received, which the operation refers to (the
		// real node's n10-download answered a blob other than the one
		// n09-upload put). The guest's file is the put blob's bytes, which
		// never change, so the new blob reads them from the same place.
		result := map[string]any{"result": false, "path": path, "message": "path does not exist"}
		op.failed = true
		if g, ok := s.guestFiles[i.uuid][path]; ok && s.blobTable()[g.blob] != nil {
			src := s.blobTable()[g.blob]
			b := s.newBlob(src.size, nil)
			b.path = src.path
			b.refInc(agentOpObjectType, op.uuid)
			at := epoch(g.at)
			result = map[string]any{"result": true, "path": path,
				"stat_result": map[string]any{"mode": g.statMode(), "size": src.size, "uid": 0, "gid": 0,
					"atime": at, "mtime": at, "ctime": at},
				"content_blob": b.uuid}
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
