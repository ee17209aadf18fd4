package client

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The one check of an answer against what the command asked for, so
// that a command never reports success on an answer it cannot use: a 2xx
// is success only when its body is the document asked for. JSON answers are
// checked where they are decoded (checkJSON: not JSON, JSON of another
// kind, null where an object was asked for; checkIdentity: an object
// without the identity every one of its kind has), and the two answers
// that are not JSON, a console log and a console file, by
// checkConsoleData and checkConsoleFile. Each refusal is a
// *ResponseError (exit 1) that says what the server sent.

// identified is a kind of object every one of which has an identity (its
// UUID; a namespace's name): an answer of that kind without one, "{}" for
// instance, is not the object asked for.
type identified interface {
	identity() string
	kindName() string
}

func (i *Instance) identity() string         { return i.UUID }
func (i *Instance) kindName() string         { return "instance" }
func (n *Network) identity() string          { return n.UUID }
func (n *Network) kindName() string          { return "network" }
func (a *Artifact) identity() string         { return a.UUID }
func (a *Artifact) kindName() string         { return "artifact" }
func (b *Blob) identity() string             { return b.UUID }
func (b *Blob) kindName() string             { return "blob" }
func (i *Interface) identity() string        { return i.UUID }
func (i *Interface) kindName() string        { return "interface" }
func (o *AgentOperation) identity() string   { return o.UUID }
func (o *AgentOperation) kindName() string   { return "agent operation" }
func (u *Upload) identity() string           { return u.UUID }
func (u *Upload) kindName() string           { return "upload" }
func (c *Claim) identity() string            { return c.UUID }
func (c *Claim) kindName() string            { return "claim" }
func (o *ClusterOperation) identity() string { return o.UUID }
func (o *ClusterOperation) kindName() string { return "cluster operation" }
func (n *Namespace) identity() string        { return n.Name }
func (n *Namespace) kindName() string        { return "namespace" }

// checkIdentity refuses a decoded object of an identified kind that has
// no identity: the answer was an object, but not the one asked for.
func checkIdentity(v any, raw []byte, resp *Response, method, u string) error {
	id, ok := v.(identified)
	if !ok || id.identity() != "" {
		return nil
	}
	field := "a uuid"
	if _, ns := v.(*Namespace); ns {
		field = "a name"
	}
	problem := fmt.Sprintf("an object without %s (%s), not the %s asked for", field, excerpt(raw), id.kindName())
	return &ResponseError{Method: method, URL: u, StatusCode: resp.StatusCode, RequestID: resp.RequestID, Problem: problem}
}

// isJSONNull says the answer is the JSON literal null, as the 2024
// server's handlers send when they return nothing, and its
// redirect_instance_request does for an instance with no node (shakenfist
// da448b1a external_api/base.py: "if not placement.get('node'): return").
func isJSONNull(resp *Response) bool {
	return string(bytes.TrimSpace(resp.Body)) == "null" && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
}

// notPlacedAdvice is what to do about a console route's null.
func notPlacedAdvice(ref string) string {
	return fmt.Sprintf("an instance the scheduler never placed on a node (state initial-error, \"scheduling failed\") has no console; \"shakectl instance show %s\" shows its state and node", ref)
}

// checkConsoleData judges GET /instances/{ref}/consoledata's answer. The
// log comes as raw bytes ("applicaton/octet-stream", sic), or, proxied
// from another hypervisor, as the same text labelled application/json
// (base.py redirect_instance_request); an instance never placed answers
// 200 null instead (recorded from da448b1a: testdata/sf2024/recorded/
// console-noplace.http). A JSON null is therefore a log only if the
// instance has a node, whose console may really end in "null"; the
// instance is looked at to tell.
func (c *Client) checkConsoleData(ctx context.Context, resp *Response, u, ref string) error {
	if !isJSONNull(resp) {
		return nil
	}
	if inst, err := c.GetInstance(ctx, ref); err == nil && inst.Node != "" {
		return nil
	}
	return &ResponseError{Method: http.MethodGet, URL: u, StatusCode: resp.StatusCode, RequestID: resp.RequestID,
		Problem: fmt.Sprintf("null, not a console log: instance %s has no console", ref), Advice: notPlacedAdvice(ref)}
}

// checkConsoleFile judges a virt-viewer connection file (.vv) before it
// is written or handed to a viewer: it must be the [virt-viewer] document
// and name a port (port or tls-port, a number) to connect to. The 2024
// server answers 200 null for an instance never placed on a node
// (recorded: testdata/sf2024/recorded/vdi-helper-noplace.http) and
// "port=None" for one not running (vdi-helper.http). nullAdvice is what a
// null means where the file came from ("" where nothing is known of it:
// Kerbside).
func checkConsoleFile(resp *Response, method, u, ref, nullAdvice string) error {
	fail := func(problem, advice string) error {
		return &ResponseError{Method: method, URL: u, StatusCode: resp.StatusCode, RequestID: resp.RequestID, Problem: problem, Advice: advice}
	}
	body := bytes.TrimSpace(resp.Body)
	switch {
	case string(body) == "null":
		return fail(fmt.Sprintf("null, not a console file: instance %s has no console", ref), nullAdvice)
	case len(body) == 0:
		return fail("an empty body, not a console file", "")
	}
	var section bool
	var ports []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), len(body)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "[virt-viewer]" {
			section = true
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && (k == "port" || k == "tls-port") {
			ports = append(ports, v)
		}
	}
	if !section {
		return fail(fmt.Sprintf("a body that is not a virt-viewer console file (it begins %s)", excerpt(body)), "")
	}
	for _, p := range ports {
		if n, err := strconv.Atoi(strings.TrimSpace(p)); err == nil && n > 0 && n < 65536 {
			return nil
		}
	}
	if len(ports) > 0 {
		return fail(fmt.Sprintf("a console file without a port (port=%s)", oneLine(ports[0])),
			fmt.Sprintf("instance %s has no console port (the server's file says port=%s): is it running? \"shakectl instance show %s\" shows its state and power state", ref, oneLine(ports[0]), ref))
	}
	return fail("a console file without a port", "")
}
