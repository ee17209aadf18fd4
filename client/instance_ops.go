package client

import (
	"context"
	"encoding/json"
	"net/http"
)

// Instance routes beyond list/show/create/delete/power: shakenfist
// da448b1a external_api/instance.py and snapshot.py, called as
// client-python 6c25293c apiclient.py calls them.

func instancePath(ref string, rest ...string) (string, error) {
	if ref == "" {
		return "", &UsageError{Field: "instance", Problem: "empty instance name or uuid"}
	}
	return refPath("instances", ref, rest...)
}

// GetInstanceMetadata reads GET /instances/{ref}/metadata.
func (c *Client) GetInstanceMetadata(ctx context.Context, ref string) (map[string]any, error) {
	p, err := instancePath(ref)
	if err != nil {
		return nil, err
	}
	return c.getMetadata(ctx, p)
}

// SetInstanceMetadata sends PUT /instances/{ref}/metadata/{key} {"value"}.
// The server checks "tags" (a list) and "affinity" (an object) itself.
func (c *Client) SetInstanceMetadata(ctx context.Context, ref, key string, value any) error {
	p, err := instancePath(ref)
	if err != nil {
		return err
	}
	return c.setMetadata(ctx, p, key, value)
}

// DeleteInstanceMetadata sends DELETE /instances/{ref}/metadata/{key}.
func (c *Client) DeleteInstanceMetadata(ctx context.Context, ref, key string) error {
	p, err := instancePath(ref)
	if err != nil {
		return err
	}
	return c.deleteMetadata(ctx, p, key)
}

// DefaultConsoleLength is what the server reads when no length is sent
// (InstanceConsoleDataEndpoint: 10240 bytes).
const DefaultConsoleLength = 10240

// ConsoleData reads the end of an instance's serial console: GET
// /instances/{ref}/consoledata {"length"} (0: the server's 10240 bytes).
// The answer is raw bytes (application/octet-stream, whatever the Accept
// header asked), returned as sent: the caller decides how to show them.
func (c *Client) ConsoleData(ctx context.Context, ref string, length int) ([]byte, error) {
	if length < 0 {
		return nil, &UsageError{Field: "length", Problem: "must not be negative"}
	}
	p, err := instancePath(ref, "consoledata")
	if err != nil {
		return nil, err
	}
	var params any
	if length > 0 {
		params = map[string]int{"length": length}
	}
	resp, _, err := c.call(ctx, http.MethodGet, p, params)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// SnapshotRequest is the body of POST /instances/{ref}/snapshot: all
// disks or one device, thin (on top of the base image) or not.
type SnapshotRequest struct {
	All    bool   `json:"all"`
	Device string `json:"device,omitempty"`
	Thin   bool   `json:"thin,omitempty"`
}

// SnapshotStarted is one disk's snapshot as POST .../snapshot answers it,
// keyed by device in the answer (instance.py snapshot: source_url,
// artifact_uuid, blob_uuid). The blob becomes usable when its state is
// created (ListInstanceSnapshots).
type SnapshotStarted struct {
	SourceURL    string `json:"source_url"`
	ArtifactUUID string `json:"artifact_uuid"`
	BlobUUID     string `json:"blob_uuid"`
}

// SnapshotInstance starts a snapshot and returns the answer by device
// ("vda": {...}); waiting for the blobs is the caller's.
func (c *Client) SnapshotInstance(ctx context.Context, ref string, req SnapshotRequest) (map[string]SnapshotStarted, error) {
	p, err := instancePath(ref, "snapshot")
	if err != nil {
		return nil, err
	}
	resp, u, err := c.call(ctx, http.MethodPost, p, req)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(resp, http.MethodPost, u, '{'); err != nil {
		return nil, err
	}
	out := map[string]SnapshotStarted{}
	if err := json.Unmarshal(resp.Body, &out); err != nil {
		return nil, decodeError(resp, http.MethodPost, u, err)
	}
	return out, nil
}

// Snapshot is one snapshot of an instance's disk, as GET
// /instances/{ref}/snapshot lists it: the artifact's view merged with its
// blob's (snapshot.py get), the blob's uuid under blob_uuid.
type Snapshot struct {
	UUID     string          `json:"uuid"`
	BlobUUID string          `json:"blob_uuid"`
	Source   string          `json:"source_url"`
	State    string          `json:"state"`
	Size     int64           `json:"size"`
	Version  int             `json:"version"`
	Raw      json.RawMessage `json:"-"`
}

func (s *Snapshot) keepRaw(r json.RawMessage) { s.Raw = r }

// ListInstanceSnapshots lists GET /instances/{ref}/snapshot.
func (c *Client) ListInstanceSnapshots(ctx context.Context, ref string) ([]Snapshot, error) {
	p, err := instancePath(ref, "snapshot")
	if err != nil {
		return nil, err
	}
	return getList[Snapshot](c, ctx, http.MethodGet, p, nil)
}

// DeleteAllInstances deletes every instance of a namespace: DELETE
// /instances {"confirm": true, "namespace"} (a system caller must name the
// namespace; another caller may name only its own). The answer is the
// UUIDs whose deletion was queued; waiting for them is the caller's.
func (c *Client) DeleteAllInstances(ctx context.Context, namespace string) ([]string, error) {
	params := deleteAllParams{Confirm: true, Namespace: namespace}
	resp, u, err := c.call(ctx, http.MethodDelete, "/instances", params)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(resp, http.MethodDelete, u, '['); err != nil {
		return nil, err
	}
	ids := []string{}
	if err := json.Unmarshal(resp.Body, &ids); err != nil {
		return nil, decodeError(resp, http.MethodDelete, u, err)
	}
	return ids, nil
}

// AddInstanceInterface hot-plugs a network interface into an instance:
// POST /instances/{ref}/interfaces {"network": networkspec}, as
// client-python 6c25293c apiclient.py add_instance_interface sends it,
// after the same capability check (hot-plug-interface). The answer is the
// new interface's view (shakenfist da448b1a InstanceInterfacesEndpoint.post,
// instance_interface_create_example; the 2026 handler answers the same
// view). The server refuses a deleted or failed instance with 406, and
// checks the network as a create does (404, 406 not ready, 409 address in
// use, 507 congested); a 406 "network X is not ready" is repeated as a
// create's is, within Options.NotReadyBudget.
func (c *Client) AddInstanceInterface(ctx context.Context, ref string, spec NetworkRequest) (*Interface, error) {
	if spec.NetworkUUID == "" {
		return nil, &UsageError{Field: "network", Problem: "no network name or uuid"}
	}
	p, err := instancePath(ref, "interfaces")
	if err != nil {
		return nil, err
	}
	if err := c.require(ctx, "hot-plug-interface", "hot plugging an interface into an instance"); err != nil {
		return nil, err
	}
	v, _, err := getOne[Interface](c, ctx, http.MethodPost, p, awaitingNetworks{map[string]any{"network": spec}})
	return v, err
}

// DeleteConsoleData clears an instance's serial console log: DELETE
// /instances/{ref}/consoledata, 200 null (InstanceConsoleDataEndpoint.delete,
// client-python delete_console_data).
func (c *Client) DeleteConsoleData(ctx context.Context, ref string) error {
	p, err := instancePath(ref, "consoledata")
	if err != nil {
		return err
	}
	_, _, err = c.call(ctx, http.MethodDelete, p, nil)
	return err
}

// Capabilities of the VDI console routes (app.py Root, "instances").
const (
	CapVDIConsoleHelper = "vdi-console-helper"
)

// VDIConsoleFile reads GET /instances/{ref}/vdiconsolehelper: a virt-viewer
// connection file (.vv, application/x-virt-viewer) naming the instance's
// hypervisor, its SPICE or VNC port and, where the cluster has one, the
// TLS port and CA certificate (shakenfist da448b1a instance.py
// InstanceVDIConsoleHelperEndpoint, VIRTVIEWER_TEMPLATE; 2026: the node's
// address and a host-subject). The bytes are returned as sent.
func (c *Client) VDIConsoleFile(ctx context.Context, ref string) ([]byte, error) {
	p, err := instancePath(ref, "vdiconsolehelper")
	if err != nil {
		return nil, err
	}
	if err := c.require(ctx, CapVDIConsoleHelper, "VDI console files"); err != nil {
		return nil, err
	}
	resp, _, err := c.call(ctx, http.MethodGet, p, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}
