package client

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
)

// Lock is one lock held in the cluster, as GET /admin/locks answers it:
// the lock's key, then its holder. 2024 (shakenfist da448b1a
// external_api/admin.py AdminLocksEndpoint, etcd.get_existing_locks;
// admin_locks_get_example): etcd keys such as "/sflocks/sf/cluster/",
// holders {node, operation, pid}. 2026 (locks.py, code index id
// 62934017694): MariaDB rows keyed "cluster/" and the like, holders
// ClusterLock.lock_data {node, pid, thread, line, operation, id}; the
// fields beyond these three stay in Raw.
type Lock struct {
	Key       string          `json:"-"`
	Node      string          `json:"node"`
	PID       json.Number     `json:"pid"`
	Operation string          `json:"operation"`
	Raw       json.RawMessage `json:"-"`
}

// AdminLocks lists GET /admin/locks (admin: another namespace is a 401),
// sorted by key. The answer is an object keyed by lock; Raw of each lock
// keeps what the server sent for it.
func (c *Client) AdminLocks(ctx context.Context) ([]Lock, json.RawMessage, error) {
	resp, u, err := c.call(ctx, http.MethodGet, "/admin/locks", nil)
	if err != nil {
		return nil, nil, err
	}
	if err := checkJSON(resp, http.MethodGet, u, '{'); err != nil {
		return nil, nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp.Body, &m); err != nil {
		return nil, nil, decodeError(resp, http.MethodGet, u, err)
	}
	out := make([]Lock, 0, len(m))
	for k, raw := range m {
		l := Lock{Key: k, Raw: raw}
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, nil, decodeError(resp, http.MethodGet, u, err)
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, json.RawMessage(resp.Body), nil
}
