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

	"github.com/shakenfist/shakectl/client/poll"
)

// rawKeeper is a resource that keeps the server's object as sent.
type rawKeeper interface{ keepRaw(json.RawMessage) }

func (i *Instance) keepRaw(r json.RawMessage)  { i.Raw = r }
func (n *Network) keepRaw(r json.RawMessage)   { n.Raw = r }
func (n *Node) keepRaw(r json.RawMessage)      { n.Raw = r }
func (n *Namespace) keepRaw(r json.RawMessage) { n.Raw = r }
func (e *Event) keepRaw(r json.RawMessage)     { e.Raw = r }
func (i *Interface) keepRaw(r json.RawMessage) { i.Raw = r }

// awaitingNetworks marks the parameters of a request that names networks
// (an instance create with interfaces, an interface hot-plug): only such a
// request is repeated while the server answers 406 "network X is not
// ready": a 406 to anything else, such as a GET, is final.
type awaitingNetworks struct{ params any }

// call sends a request whose parameters (if any) go as a JSON body, and
// returns the 2xx answer and the URL as errors name it.
func (c *Client) call(ctx context.Context, method, path string, params any) (*Response, string, error) {
	repeat := false
	if a, ok := params.(awaitingNetworks); ok {
		repeat, params = true, a.params
	}
	var body []byte
	if params != nil {
		var err error
		if body, err = json.Marshal(params); err != nil {
			return nil, "", fmt.Errorf("%s %s: encoding the request: %w", method, path, err)
		}
	}
	resp, err := c.doWhenReady(ctx, method, path, body, repeat)
	if err != nil {
		return nil, "", err
	}
	return resp, c.shownEndpoint(path), nil
}

// NotReadyPause is the pause between the repeats of a request answered 406
// (a resource it depends on is not created yet), as sf-client sleeps 1s
// (client-python 6c25293c, apiclient.py _request_url).
const NotReadyPause = time.Second

// hotPlugRefused is the 406 an interface hot-plug gets for an instance
// that is deleted or in an error state (shakenfist da448b1a
// InstanceInterfacesEndpoint.post; the 2026 handler: a terminal state).
// Those states are final, so no wait makes the request succeed: it is not
// repeated, although sf-client repeats every 406.
const hotPlugRefused = "instance in invalid state for hot plug"

// doWhenReady sends one call. When repeat is set, a 406 ("network X is not
// ready (initial)") is repeated every NotReadyPause while
// Options.NotReadyBudget lasts, as sf-client does within its --async
// deadline; then the last 406 is the error, as the transient-capacity
// retry hands back the server's last refusal (the budget's end, or ctx's
// deadline during a pause; an interrupt is the interrupt). The repeats
// belong to the same call as the first request: one start, so one
// deadline for the 406 loop and the transient-capacity retry (both
// budgets count from it), and one attempt counter, as client-python
// 74d6e129 _request_url has them.
func (c *Client) doWhenReady(ctx context.Context, method, path string, body []byte, repeat bool) (*Response, error) {
	call := c.policy(method, path).NewCall()
	defer call.Finish()
	if !repeat {
		return c.send(ctx, call, method, path, body)
	}
	// An answer, refusal or not, is what a look sees: the wait judges it.
	type answer struct {
		resp *Response
		err  error
	}
	last, err := poll.Poll[answer]{
		Every: poll.Constant(NotReadyPause),
		Get: func(ctx context.Context) (answer, error) {
			resp, err := c.send(ctx, call, method, path, body)
			return answer{resp, err}, nil
		},
		Done: func(a answer) (bool, error) {
			var apiErr *APIError
			left := c.opts.NotReadyBudget - call.Elapsed()
			if a.err == nil || !errors.As(a.err, &apiErr) || apiErr.StatusCode != http.StatusNotAcceptable ||
				left < NotReadyPause || apiErr.Message == hotPlugRefused {
				return true, nil
			}
			if c.opts.NotReadyNotify != nil {
				c.opts.NotReadyNotify(apiErr.Message, left)
			}
			return false, nil
		},
	}.Wait(ctx)
	if err != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, err
	}
	return last.resp, last.err
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

// getOneOrNull is getOne for answers that may be the JSON literal null:
// the server's handlers that return nothing answer 200 "null" (power
// actions; DELETE /networks of an already deleted network). Then the
// object is nil and there is no error.
func getOneOrNull[T any, P interface {
	*T
	rawKeeper
}](c *Client, ctx context.Context, method, path string, params any) (*T, error) {
	resp, u, err := c.call(ctx, method, path, params)
	if err != nil {
		return nil, err
	}
	if string(bytes.TrimSpace(resp.Body)) == "null" {
		return nil, nil
	}
	return decodeOne[T, P](resp, method, u)
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
		if err := checkIdentity(P(&v), item, resp, method, u); err != nil {
			return nil, err
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
	if err := checkIdentity(P(&v), resp.Body, resp, method, u); err != nil {
		return nil, err
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
		return "an HTML page, not JSON"
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
	var params any = req
	if len(req.Network) > 0 {
		params = awaitingNetworks{req}
	}
	v, _, err := getOne[Instance](c, ctx, http.MethodPost, "/instances", params)
	return v, err
}

// DeleteInstance deletes an instance. The server answers 200 with the
// instance as it was (the delete runs as a queued task).
func (c *Client) DeleteInstance(ctx context.Context, ref string) (*Instance, error) {
	return c.instanceCall(ctx, http.MethodDelete, ref, "")
}

// EventsQuery narrows GET /instances/{ref}/events with the server's own
// parameters: event_type (audit, mutate, status, usage, resources, prune,
// historic) and limit (the server's default is 100).
type EventsQuery struct {
	Type  string `json:"event_type,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// InstanceEvents lists an instance's event trail, newest first as the
// server sends it; each Event keeps the server's object in Raw.
func (c *Client) InstanceEvents(ctx context.Context, ref string, q EventsQuery) ([]Event, error) {
	p, err := refPath("instances", ref, "events")
	if err != nil {
		return nil, err
	}
	return c.events(ctx, p, q)
}

// MaxEventsLimit is the largest events limit the server accepts (1–1000,
// default 100: shakenfist 2026 api_base object_events_response and the
// swagger of every events route, e.g. auth.py AuthNamespaceEventsEndpoint
// "capped at 1000").
const MaxEventsLimit = 1000

// Check refuses a limit the server would refuse: 0 means "not set" (the
// server's default of 100), anything else must be within 1–1000.
func (q EventsQuery) Check() error {
	if q.Limit != 0 && (q.Limit < 1 || q.Limit > MaxEventsLimit) {
		return &UsageError{Field: "limit", Problem: fmt.Sprintf("%d is outside 1-%d", q.Limit, MaxEventsLimit)}
	}
	return nil
}

func (c *Client) events(ctx context.Context, path string, q EventsQuery) ([]Event, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	var params any
	if q != (EventsQuery{}) {
		params = q
	}
	return getList[Event](c, ctx, http.MethodGet, path, params)
}

// PowerAction is one of the server's instance power routes.
type PowerAction string

// The power actions of shakenfist da448b1a (external_api/instance.py).
const (
	PowerOn    PowerAction = "poweron"
	PowerOff   PowerAction = "poweroff"
	RebootSoft PowerAction = "rebootsoft"
	RebootHard PowerAction = "reboothard"
	Pause      PowerAction = "pause"
	Unpause    PowerAction = "unpause"
)

// InstancePower sends POST /instances/{ref}/{action}. The real server
// answers 200 with body null (its handlers return None); an older or
// different server may answer with the instance, which is returned then.
func (c *Client) InstancePower(ctx context.Context, ref string, action PowerAction) (*Instance, error) {
	p, err := refPath("instances", ref, string(action))
	if err != nil {
		return nil, err
	}
	return getOneOrNull[Instance](c, ctx, http.MethodPost, p, nil)
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
	if req.ProvideDNS {
		if err := c.require(ctx, CapProvideDNS, "virtual network DNS"); err != nil {
			return nil, err
		}
	}
	v, _, err := getOne[Network](c, ctx, http.MethodPost, "/networks", req)
	return v, err
}

// DeleteNetwork deletes a network and returns it as the 2024 server
// answers (shakenfist da448b1a): 200 with the network as it is (state
// created, or delete-wait while interfaces remain: the network goes once
// they do), or 200 null when it was already deleted; then the result is
// nil. Waiting for a synchronous deletion is the caller's (the command's
// waiting model).
//
// A 2026 server answers 202 with a cluster operation instead
// (StartNetworkDelete); DeleteNetwork then waits for that operation, as
// client-python 74d6e129 delete_network does by default, within ctx and
// Options.NotReadyBudget (the async budget: none under --async continue),
// and returns nil (the network is gone or going) or the operation's
// failure as a *ClusterOperationFailed. Callers that want the operation
// itself use StartNetworkDelete and WaitClusterOperation.
func (c *Client) DeleteNetwork(ctx context.Context, ref string) (*Network, error) {
	d, err := c.StartNetworkDelete(ctx, ref)
	if err != nil {
		return nil, err
	}
	if d.Operation == nil {
		return d.Network, nil
	}
	if c.opts.NotReadyBudget <= 0 {
		return nil, nil
	}
	wctx, cancel := context.WithTimeout(ctx, c.opts.NotReadyBudget)
	defer cancel()
	if _, err := c.WaitClusterOperation(wctx, *d.Operation); err != nil {
		return nil, err
	}
	return nil, nil
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
