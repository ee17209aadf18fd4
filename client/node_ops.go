package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
)

// NodeEvents lists GET /nodes/{node}/events, newest first (admin).
func (c *Client) NodeEvents(ctx context.Context, node string, q EventsQuery) ([]Event, error) {
	if node == "" {
		return nil, &UsageError{Field: "node", Problem: "empty node name"}
	}
	p, err := refPath("nodes", node, "events")
	if err != nil {
		return nil, err
	}
	return c.events(ctx, p, q)
}

// ClusterResources is GET /admin/resources: the scheduler's summary
// (scheduler.py summarize_resources: "total" cpu_available/ram_available
// and "per_node" figures by node). Raw keeps the whole answer, whose
// per-node fields differ between servers.
type ClusterResources struct {
	Total struct {
		CPUAvailable float64 `json:"cpu_available"`
		RAMAvailable float64 `json:"ram_available"`
	} `json:"total"`
	PerNode map[string]map[string]any `json:"per_node"`
	Raw     json.RawMessage           `json:"-"`
}

func (r *ClusterResources) keepRaw(b json.RawMessage) { r.Raw = b }

// NodeResources reads GET /admin/resources (admin). The 2024 server has
// the handler but never routes it (da448b1a app.py; it still advertises
// cluster-resources), the 2026 one routes it: so the route's own answer
// decides, and Flask's HTML 404 (no such route) becomes a
// *NotSupportedError.
func (c *Client) NodeResources(ctx context.Context) (*ClusterResources, error) {
	v, _, err := getOne[ClusterResources](c, ctx, http.MethodGet, "/admin/resources", nil)
	if routeMissing(err) {
		return nil, &NotSupportedError{Feature: "cluster resources", Route: "GET /admin/resources", Err: err}
	}
	return v, err
}

type nodeNameCache struct {
	mu     sync.Mutex
	loaded bool
	names  map[string]string // uuid (and name) -> name
	err    error
}

// NodeName resolves a node reference to the node's name. A 2026 instance
// names its node by UUID (placement['node'] "holds a node UUID"); a 2024
// one by name (and the 2024 node view's uuid is its name). The nodes are
// listed once per client; listing needs an admin (system) token, and when
// it is refused the reference comes back unchanged with the error, so a
// caller can show the UUID. A reference that is no node's UUID is
// returned as it is.
func (c *Client) NodeName(ctx context.Context, ref string) (string, error) {
	if ref == "" {
		return "", nil
	}
	c.nodes.mu.Lock()
	defer c.nodes.mu.Unlock()
	if !c.nodes.loaded {
		nodes, err := c.ListNodes(ctx)
		var apiErr *APIError
		switch {
		case err == nil:
			c.nodes.names = map[string]string{}
			for _, n := range nodes {
				name := n.Name
				if name == "" {
					name = n.UUID
				}
				c.nodes.names[n.UUID] = name
				c.nodes.names[name] = name
			}
			c.nodes.loaded = true
		case errors.As(err, &apiErr):
			// A refusal (a non-admin token) will not change during this
			// client's life: keep it, and do not ask again.
			c.nodes.loaded, c.nodes.err = true, err
		default:
			return ref, err
		}
	}
	if c.nodes.err != nil {
		return ref, c.nodes.err
	}
	if name, ok := c.nodes.names[ref]; ok {
		return name, nil
	}
	return ref, nil
}

// DeleteNode removes a node from the cluster (admin): DELETE /nodes/{node},
// as client-python 6c25293c apiclient.py delete_node sends it. The server
// marks the node deleted and answers its view, now in state "deleted"
// (shakenfist da448b1a external_api/node.py NodeEndpoint.delete,
// node_delete_example); an unknown node is a 404 "node not found".
func (c *Client) DeleteNode(ctx context.Context, node string) (*Node, error) {
	if node == "" {
		return nil, &UsageError{Field: "node", Problem: "empty node name"}
	}
	p, err := refPath("nodes", node)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Node](c, ctx, http.MethodDelete, p, nil)
	return v, err
}

// CapNodeProcessMetrics is the capability of GET /nodes/{node}/processmetrics.
const CapNodeProcessMetrics = "node-process-metrics"

// NodeProcessMetrics reads GET /nodes/{node}/processmetrics (admin): the
// node's Shakenfist processes' CPU use as the resources daemon last
// recorded it, keyed process_cpu_time_<name>, process_age_<name> and
// process_cpu_fraction_<name> (shakenfist da448b1a node.py
// NodeProcessMetricsEndpoint, daemons/resources.py _emit_process_metrics).
// A node that has recorded none answers null or {}: an empty map.
func (c *Client) NodeProcessMetrics(ctx context.Context, node string) (map[string]float64, error) {
	if node == "" {
		return nil, &UsageError{Field: "node", Problem: "empty node name"}
	}
	p, err := refPath("nodes", node, "processmetrics")
	if err != nil {
		return nil, err
	}
	if err := c.require(ctx, CapNodeProcessMetrics, "node process metrics"); err != nil {
		return nil, err
	}
	resp, u, err := c.call(ctx, http.MethodGet, p, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	if string(bytes.TrimSpace(resp.Body)) == "null" {
		return out, nil
	}
	if err := checkJSON(resp, http.MethodGet, u, '{'); err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp.Body, &m); err != nil {
		return nil, decodeError(resp, http.MethodGet, u, err)
	}
	for k, raw := range m {
		var f float64
		if json.Unmarshal(raw, &f) == nil {
			out[k] = f
		}
	}
	return out, nil
}
