package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/shakenfist/shakectl/client/poll"
)

// OperationHandle names a cluster operation the server started for a
// request: a 2026 server answers DELETE /networks/{ref} with 202
// {"op_type": "net_op", "op_uuid": …}, and DELETE /networks with a list of
// them, each with its network (PLAN-network-facade phase 7;
// client-python 74d6e129 test_delete_network, test_delete_all_networks).
type OperationHandle struct {
	OpType      string `json:"op_type"`
	OpUUID      string `json:"op_uuid"`
	NetworkUUID string `json:"network_uuid,omitempty"`
}

// ClusterOperation is a cluster operation's view, GET
// /clusteroperations/{op_type}/{op_uuid} (shakenfist 2026
// external_api/clusteroperation.py; fields as its chain example and
// client-python 74d6e129's tests show them). Raw keeps the server's object.
type ClusterOperation struct {
	OperationType string          `json:"operation_type"`
	UUID          string          `json:"uuid"`
	State         string          `json:"state"`
	Tasks         []string        `json:"tasks"`
	Raw           json.RawMessage `json:"-"`
}

func (o *ClusterOperation) keepRaw(r json.RawMessage) { o.Raw = r }

// The cluster operation states the client acts on: complete ends a wait,
// error and abort fail it (client-python 74d6e129 delete_network).
const (
	OperationComplete = "complete"
	OperationError    = "error"
	OperationAbort    = "abort"
)

// Done says the operation will not change any more.
func (o *ClusterOperation) Done() bool {
	return o.State == OperationComplete || o.Failed()
}

// Failed says the operation ended in error or abort.
func (o *ClusterOperation) Failed() bool {
	return o.State == OperationError || o.State == OperationAbort
}

// ErrorMessage is what the operation's view says went wrong, when it says
// anything. The view's error field is not named by any source read
// (clusteroperation.py returns op.external_view()), so the usual names are
// tried; "" when there is none.
func (o *ClusterOperation) ErrorMessage() string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(o.Raw, &fields) != nil {
		return ""
	}
	for _, k := range []string{"error_message", "error", "errors", "error_msg"} {
		if m := messageOf(fields[k]); m != "" {
			return m
		}
	}
	return ""
}

// NetworkDeletion is the answer to DELETE /networks/{ref}: the network as
// the 2024 server answers (nil when it was already deleted), or the
// operation a 2026 server started for it.
type NetworkDeletion struct {
	Network   *Network
	Operation *OperationHandle
}

// StartNetworkDelete sends DELETE /networks/{ref} and says which form the
// server answered with. The answer itself decides, not a version guess: a
// 202, or a body holding op_uuid, is the 2026 asynchronous form (the server
// also advertises network-delete-async); 200 with the network view or null
// is the 2024 one (shakenfist da448b1a external_api/network.py).
func (c *Client) StartNetworkDelete(ctx context.Context, ref string) (*NetworkDeletion, error) {
	p, err := refPath("networks", ref)
	if err != nil {
		return nil, err
	}
	resp, u, err := c.call(ctx, http.MethodDelete, p, nil)
	if err != nil {
		return nil, err
	}
	body := bytes.TrimSpace(resp.Body)
	if string(body) == "null" {
		return &NetworkDeletion{}, nil
	}
	if resp.StatusCode == http.StatusAccepted || isHandle(body) {
		h, err := decodeHandle(resp, http.MethodDelete, u)
		if err != nil {
			return nil, err
		}
		return &NetworkDeletion{Operation: h}, nil
	}
	n, err := decodeOne[Network](resp, http.MethodDelete, u)
	if err != nil {
		return nil, err
	}
	return &NetworkDeletion{Network: n}, nil
}

func isHandle(body []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(body, &probe) != nil {
		return false
	}
	_, ok := probe["op_uuid"]
	return ok
}

func decodeHandle(resp *Response, method, u string) (*OperationHandle, error) {
	if err := checkJSON(resp, method, u, '{'); err != nil {
		return nil, err
	}
	var h OperationHandle
	if err := json.Unmarshal(resp.Body, &h); err != nil {
		return nil, decodeError(resp, method, u, err)
	}
	if h.OpType == "" || h.OpUUID == "" {
		return nil, &ResponseError{Method: method, URL: u, StatusCode: resp.StatusCode, RequestID: resp.RequestID,
			Problem: "an operation handle without op_type or op_uuid"}
	}
	return &h, nil
}

// DefaultOperationPoll is how often ClusterOperationPoll reads an
// operation: once a second, as sf-client's other waits poll.
const DefaultOperationPoll = time.Second

// GetClusterOperation reads GET /clusteroperations/{op_type}/{op_uuid}
// (2026; 403 for an operation of a namespace the caller cannot see).
func (c *Client) GetClusterOperation(ctx context.Context, h OperationHandle) (*ClusterOperation, error) {
	if h.OpType == "" || h.OpUUID == "" {
		return nil, &UsageError{Field: "operation", Problem: "want both an operation type and a uuid"}
	}
	p := "/clusteroperations/" + url.PathEscape(h.OpType) + "/" + url.PathEscape(h.OpUUID)
	v, _, err := getOne[ClusterOperation](c, ctx, http.MethodGet, p, nil)
	return v, err
}

// ClusterOperationPoll is how to wait for a cluster operation: read it
// every Options.OperationPoll until it is complete; error or abort ends
// the wait with a *ClusterOperationFailed (carrying the operation's view
// and error). The caller sets the deadline and runs it.
func (c *Client) ClusterOperationPoll(h OperationHandle) poll.Poll[*ClusterOperation] {
	every := c.opts.OperationPoll
	if every <= 0 {
		every = DefaultOperationPoll
	}
	return poll.Poll[*ClusterOperation]{
		Every: poll.Constant(every),
		Get:   func(ctx context.Context) (*ClusterOperation, error) { return c.GetClusterOperation(ctx, h) },
		Done: func(op *ClusterOperation) (bool, error) {
			if op.Failed() {
				return true, &ClusterOperationFailed{Handle: h, Op: op}
			}
			return op.State == OperationComplete, nil
		},
	}
}

// WaitClusterOperation waits for the operation (ClusterOperationPoll)
// within ctx. When ctx ends first, it returns the operation as last read
// and an error wrapping the context's cause.
func (c *Client) WaitClusterOperation(ctx context.Context, h OperationHandle) (*ClusterOperation, error) {
	op, err := c.ClusterOperationPoll(h).Wait(ctx)
	if err != nil && op != nil && ctx.Err() != nil {
		return op, fmt.Errorf("cluster operation %s/%s is still %s: %w", h.OpType, h.OpUUID, op.State, err)
	}
	return op, err
}

// ClusterOperationChain reads GET /clusteroperations/{uuid}/chain: the
// operation and every operation it depends on, newest first (2026,
// capability cluster-operation-chain; at most 256).
func (c *Client) ClusterOperationChain(ctx context.Context, opUUID string) ([]ClusterOperation, error) {
	if opUUID == "" {
		return nil, &UsageError{Field: "operation", Problem: "no operation uuid"}
	}
	if err := c.require(ctx, CapClusterOperationChain, "cluster operation chains"); err != nil {
		return nil, err
	}
	return getList[ClusterOperation](c, ctx, http.MethodGet, "/clusteroperations/"+url.PathEscape(opUUID)+"/chain", nil)
}

// ClusterOperationsForTarget reads GET /clusteroperations with
// target_object_type and target_uuid in the body, as the server reads its
// parameters (2026, capability cluster-operations-by-target).
func (c *Client) ClusterOperationsForTarget(ctx context.Context, objectType, targetUUID string) ([]ClusterOperation, error) {
	if err := c.require(ctx, CapClusterOperationsByTarget, "listing cluster operations by target"); err != nil {
		return nil, err
	}
	params := map[string]string{"target_object_type": objectType, "target_uuid": targetUUID}
	return getList[ClusterOperation](c, ctx, http.MethodGet, "/clusteroperations", params)
}

// NetworksDeleted is the answer to DELETE /networks (delete-all): the
// networks deleted, the ones the server could not delete (2024: in use and
// no clean_wait; it then answers 403 with both lists), and on a 2026
// server the operation started for each.
type NetworksDeleted struct {
	Deleted    []string          `json:"deleted"`
	Unable     []string          `json:"unable,omitempty"`
	Operations []OperationHandle `json:"operations,omitempty"`
}

type deleteAllParams struct {
	Confirm   bool   `json:"confirm"`
	Namespace string `json:"namespace,omitempty"`
	CleanWait *bool  `json:"clean_wait,omitempty"`
}

// DeleteAllNetworks sends DELETE /networks {"confirm": true, "namespace",
// "clean_wait"} (shakenfist da448b1a NetworksEndpoint.delete; a system
// caller must name the namespace). cleanWait deletes networks that still
// have interfaces once those go. A 2024 server answers the UUIDs deleted,
// or 403 with {"deleted", "unable"} when some were in use: then both the
// result and the *APIError are returned. A 2026 server answers 202 with one
// operation handle per network.
func (c *Client) DeleteAllNetworks(ctx context.Context, namespace string, cleanWait bool) (*NetworksDeleted, error) {
	params := deleteAllParams{Confirm: true, Namespace: namespace, CleanWait: &cleanWait}
	resp, u, err := c.call(ctx, http.MethodDelete, "/networks", params)
	if err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusForbidden {
			var body struct {
				Error NetworksDeleted `json:"error"`
			}
			if json.Unmarshal(apiErr.Body, &body) == nil && (body.Error.Deleted != nil || body.Error.Unable != nil) {
				return &body.Error, err
			}
		}
		return nil, err
	}
	if err := checkJSON(resp, http.MethodDelete, u, '['); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(resp.Body, &items); err != nil {
		return nil, decodeError(resp, http.MethodDelete, u, err)
	}
	out := &NetworksDeleted{Deleted: []string{}}
	for _, item := range items {
		var id string
		if json.Unmarshal(item, &id) == nil {
			out.Deleted = append(out.Deleted, id)
			continue
		}
		var h OperationHandle
		if err := json.Unmarshal(item, &h); err != nil || h.OpUUID == "" {
			return nil, decodeError(resp, http.MethodDelete, u, fmt.Errorf("an entry is neither a uuid nor an operation handle: %s", oneLine(string(item))))
		}
		out.Operations = append(out.Operations, h)
		out.Deleted = append(out.Deleted, h.NetworkUUID)
	}
	return out, nil
}
