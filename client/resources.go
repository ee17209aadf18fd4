package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// rawKeeper is a resource that keeps the server's object as sent.
type rawKeeper interface{ keepRaw(json.RawMessage) }

func (i *Instance) keepRaw(r json.RawMessage)  { i.Raw = r }
func (n *Network) keepRaw(r json.RawMessage)   { n.Raw = r }
func (n *Node) keepRaw(r json.RawMessage)      { n.Raw = r }
func (n *Namespace) keepRaw(r json.RawMessage) { n.Raw = r }

// call sends a request whose parameters (if any) go as a JSON body, and
// returns the 2xx answer.
func (c *Client) call(ctx context.Context, method, path string, params any) (*Response, string, error) {
	var body []byte
	if params != nil {
		var err error
		if body, err = json.Marshal(params); err != nil {
			return nil, "", fmt.Errorf("%s %s: encoding the request: %w", method, path, err)
		}
	}
	resp, err := c.do(ctx, method, path, body)
	if err != nil {
		return nil, "", err
	}
	return resp, c.endpoint(path), nil
}

// getOne decodes a 2xx answer holding one object.
func getOne[T any, P interface {
	*T
	rawKeeper
}](c *Client, ctx context.Context, method, path string, params any) (*T, *Response, error) {
	resp, u, err := c.call(ctx, method, path, params)
	if err != nil {
		return nil, nil, err
	}
	v, err := decodeOne[T, P](resp, method, u)
	return v, resp, err
}

// getList decodes a 2xx answer holding an array of objects.
func getList[T any, P interface {
	*T
	rawKeeper
}](c *Client, ctx context.Context, method, path string, params any) ([]T, error) {
	resp, u, err := c.call(ctx, method, path, params)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(resp, method, u, '['); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(resp.Body, &items); err != nil {
		return nil, decodeError(resp, method, u, err)
	}
	out := make([]T, 0, len(items))
	for _, item := range items {
		var v T
		if err := json.Unmarshal(item, &v); err != nil {
			return nil, decodeError(resp, method, u, err)
		}
		P(&v).keepRaw(append(json.RawMessage(nil), item...))
		out = append(out, v)
	}
	return out, nil
}

func decodeOne[T any, P interface {
	*T
	rawKeeper
}](resp *Response, method, u string) (*T, error) {
	if err := checkJSON(resp, method, u, '{'); err != nil {
		return nil, err
	}
	var v T
	if err := json.Unmarshal(resp.Body, &v); err != nil {
		return nil, decodeError(resp, method, u, err)
	}
	P(&v).keepRaw(append(json.RawMessage(nil), bytes.TrimSpace(resp.Body)...))
	return &v, nil
}

// checkJSON names what is wrong with a 2xx answer that is not the JSON
// value expected (want is '{' or '[').
func checkJSON(resp *Response, method, u string, want byte) error {
	problem := jsonProblem(resp.Body)
	if problem == "" {
		first := bytes.TrimSpace(resp.Body)[0]
		if first != want {
			problem = fmt.Sprintf("JSON %s where %s was expected", jsonKind(first), jsonKind(want))
		}
	}
	if problem == "" {
		return nil
	}
	return &ResponseError{Method: method, URL: u, StatusCode: resp.StatusCode, RequestID: resp.RequestID, Problem: problem}
}

// jsonProblem describes why a body is not a usable JSON document, or "".
func jsonProblem(body []byte) string {
	t := bytes.TrimSpace(body)
	switch {
	case len(t) == 0:
		return "an empty body, not JSON"
	case t[0] == '<':
		return "an HTML page, not JSON (the API URL may point at a web page or a proxy)"
	case !json.Valid(t):
		var v any
		err := json.Unmarshal(t, &v)
		if err != nil && strings.Contains(err.Error(), "unexpected end of JSON input") {
			return "truncated JSON (the answer ends early)"
		}
		return fmt.Sprintf("malformed JSON (%v)", err)
	}
	return ""
}

func jsonKind(b byte) string {
	switch b {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func decodeError(resp *Response, method, u string, err error) error {
	return &ResponseError{Method: method, URL: u, StatusCode: resp.StatusCode, RequestID: resp.RequestID,
		Problem: fmt.Sprintf("JSON of an unexpected shape (%v)", err), Err: err}
}

func refPath(kind, ref string, rest ...string) (string, error) {
	if strings.TrimSpace(ref) == "" {
		return "", fmt.Errorf("empty %s name or uuid", strings.TrimSuffix(kind, "s"))
	}
	p := "/" + kind + "/" + url.PathEscape(ref)
	for _, r := range rest {
		p += "/" + r
	}
	return p, nil
}

type allParam struct {
	All bool `json:"all"`
}

// ListInstances lists the namespace's instances; all includes deleted ones.
func (c *Client) ListInstances(ctx context.Context, all bool) ([]Instance, error) {
	return getList[Instance](c, ctx, http.MethodGet, "/instances", allParam{All: all})
}

// GetInstance shows one instance by uuid or name.
func (c *Client) GetInstance(ctx context.Context, ref string) (*Instance, error) {
	return c.instanceCall(ctx, http.MethodGet, ref, "")
}

// CreateInstance sends POST /instances. Under --retry-transient-capacity a
// transient refusal is retried with the identical body.
func (c *Client) CreateInstance(ctx context.Context, req CreateInstanceRequest) (*Instance, error) {
	if req.Disk == nil {
		// "disk" is required by the server: send [] rather than null.
		req.Disk = []DiskRequest{}
	}
	v, _, err := getOne[Instance](c, ctx, http.MethodPost, "/instances", req)
	return v, err
}

// DeleteInstance deletes an instance (200 or 202).
func (c *Client) DeleteInstance(ctx context.Context, ref string) (*Instance, error) {
	return c.instanceCall(ctx, http.MethodDelete, ref, "")
}

// InstanceEvents lists an instance's event trail.
func (c *Client) InstanceEvents(ctx context.Context, ref string) ([]Event, error) {
	p, err := refPath("instances", ref, "events")
	if err != nil {
		return nil, err
	}
	resp, u, err := c.call(ctx, http.MethodGet, p, nil)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(resp, http.MethodGet, u, '['); err != nil {
		return nil, err
	}
	var events []Event
	if err := json.Unmarshal(resp.Body, &events); err != nil {
		return nil, decodeError(resp, http.MethodGet, u, err)
	}
	return events, nil
}

// PowerOnInstance powers an instance on.
func (c *Client) PowerOnInstance(ctx context.Context, ref string) (*Instance, error) {
	return c.instanceCall(ctx, http.MethodPost, ref, "poweron")
}

// PowerOffInstance powers an instance off.
func (c *Client) PowerOffInstance(ctx context.Context, ref string) (*Instance, error) {
	return c.instanceCall(ctx, http.MethodPost, ref, "poweroff")
}

// RebootInstance reboots an instance, hard (reset) or soft (ACPI).
func (c *Client) RebootInstance(ctx context.Context, ref string, hard bool) (*Instance, error) {
	action := "rebootsoft"
	if hard {
		action = "reboothard"
	}
	return c.instanceCall(ctx, http.MethodPost, ref, action)
}

// PauseInstance pauses an instance.
func (c *Client) PauseInstance(ctx context.Context, ref string) (*Instance, error) {
	return c.instanceCall(ctx, http.MethodPost, ref, "pause")
}

// UnpauseInstance unpauses an instance.
func (c *Client) UnpauseInstance(ctx context.Context, ref string) (*Instance, error) {
	return c.instanceCall(ctx, http.MethodPost, ref, "unpause")
}

func (c *Client) instanceCall(ctx context.Context, method, ref, action string) (*Instance, error) {
	var rest []string
	if action != "" {
		rest = append(rest, action)
	}
	p, err := refPath("instances", ref, rest...)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Instance](c, ctx, method, p, nil)
	return v, err
}

// ListNetworks lists the namespace's networks; all includes deleted ones.
func (c *Client) ListNetworks(ctx context.Context, all bool) ([]Network, error) {
	return getList[Network](c, ctx, http.MethodGet, "/networks", allParam{All: all})
}

// GetNetwork shows one network by uuid or name.
func (c *Client) GetNetwork(ctx context.Context, ref string) (*Network, error) {
	p, err := refPath("networks", ref)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Network](c, ctx, http.MethodGet, p, nil)
	return v, err
}

// CreateNetwork sends POST /networks.
func (c *Client) CreateNetwork(ctx context.Context, req CreateNetworkRequest) (*Network, error) {
	v, _, err := getOne[Network](c, ctx, http.MethodPost, "/networks", req)
	return v, err
}

// DeleteNetworkAsync sends DELETE /networks/{ref} and returns the answer as
// is: the deleted network (200), or the "deleting" stub of a scheduled
// teardown (202) without waiting for it.
func (c *Client) DeleteNetworkAsync(ctx context.Context, ref string) (*Network, error) {
	n, _, err := c.deleteNetwork(ctx, ref)
	return n, err
}

func (c *Client) deleteNetwork(ctx context.Context, ref string) (*Network, *Response, error) {
	p, err := refPath("networks", ref)
	if err != nil {
		return nil, nil, err
	}
	return getOne[Network](c, ctx, http.MethodDelete, p, nil)
}

// DeleteNetwork deletes a network. When the server schedules the teardown
// as a cluster operation (202), it polls the network until it is deleted
// (or gone) within ctx.
func (c *Client) DeleteNetwork(ctx context.Context, ref string) (*Network, error) {
	n, resp, err := c.deleteNetwork(ctx, ref)
	if err != nil || resp.StatusCode != http.StatusAccepted || n.State == "deleted" {
		return n, err
	}
	target := n.UUID
	if target == "" {
		target = ref
	}
	interval := c.opts.PollInterval
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return n, fmt.Errorf("waiting for network %s to be deleted: %w", target, context.Cause(ctx))
		case <-timer.C:
		}
		got, err := c.GetNetwork(ctx, target)
		var apiErr *APIError
		switch {
		case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound:
			n.State = "deleted"
			return n, nil
		case err != nil:
			if ctx.Err() != nil {
				return n, fmt.Errorf("waiting for network %s to be deleted: %w", target, err)
			}
			return n, err
		case got.State == "deleted":
			return got, nil
		case strings.HasSuffix(got.State, "error"):
			return got, fmt.Errorf("network %s went to state %q instead of deleted", target, got.State)
		}
		n = got
		interval = min(interval*2, MaxPollInterval)
		timer.Reset(interval)
	}
}

// ListNodes lists the cluster's nodes with their capacity accounting.
func (c *Client) ListNodes(ctx context.Context) ([]Node, error) {
	return getList[Node](c, ctx, http.MethodGet, "/nodes", nil)
}

// GetNode shows one node by name.
func (c *Client) GetNode(ctx context.Context, name string) (*Node, error) {
	p, err := refPath("nodes", name)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Node](c, ctx, http.MethodGet, p, nil)
	return v, err
}

// ListNamespaces lists the namespaces (GET /auth/namespaces).
func (c *Client) ListNamespaces(ctx context.Context) ([]Namespace, error) {
	return getList[Namespace](c, ctx, http.MethodGet, "/auth/namespaces", nil)
}
