package client

import (
	"context"
	"net/http"
)

// Interface routes: shakenfist da448b1a external_api/interface.py (the
// same paths in the 2026 app.py), called as client-python 6c25293c
// apiclient.py get_interface, float_interface, defloat_interface and
// *_interface_metadata* call them. An interface is named by its UUID
// only; one the caller's namespace does not own is a 404 "interface not
// found", as is an unknown one.

// CapInterfaceMetadata is the capability both generations advertise for
// /interfaces/{uuid}/metadata (app.py Root, "networkinterfaces").
const CapInterfaceMetadata = "interface-metadata"

func interfacePath(uuid string, rest ...string) (string, error) {
	if uuid == "" {
		return "", &UsageError{Field: "interface", Problem: "empty interface uuid"}
	}
	return refPath("interfaces", uuid, rest...)
}

// GetInterface reads GET /interfaces/{uuid}: the interface view.
func (c *Client) GetInterface(ctx context.Context, uuid string) (*Interface, error) {
	p, err := interfacePath(uuid)
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[Interface](c, ctx, http.MethodGet, p, nil)
	return v, err
}

// FloatInterface asks for a floating address on an interface: POST
// /interfaces/{uuid}/float. The server reserves the address at once (507
// "No free addresses on network" when the floating network is full) and
// leaves plumbing it to the network node; it answers 200 null, so the
// address shows in the interface view (GetInterface) once reserved.
func (c *Client) FloatInterface(ctx context.Context, uuid string) error {
	return c.interfaceAction(ctx, uuid, "float")
}

// DefloatInterface gives an interface's floating address back: POST
// /interfaces/{uuid}/defloat, 200 null; the network node frees the
// address later.
func (c *Client) DefloatInterface(ctx context.Context, uuid string) error {
	return c.interfaceAction(ctx, uuid, "defloat")
}

func (c *Client) interfaceAction(ctx context.Context, uuid, action string) error {
	p, err := interfacePath(uuid, action)
	if err != nil {
		return err
	}
	_, _, err = c.call(ctx, http.MethodPost, p, nil)
	return err
}

// GetInterfaceMetadata reads GET /interfaces/{uuid}/metadata.
func (c *Client) GetInterfaceMetadata(ctx context.Context, uuid string) (map[string]any, error) {
	p, err := interfacePath(uuid)
	if err != nil {
		return nil, err
	}
	if err := c.require(ctx, CapInterfaceMetadata, "interface metadata"); err != nil {
		return nil, err
	}
	return c.getMetadata(ctx, p)
}

// SetInterfaceMetadata sends PUT /interfaces/{uuid}/metadata/{key}
// {"value"}; a server that does not advertise interface-metadata is not
// asked (sf-client checks the same capability).
func (c *Client) SetInterfaceMetadata(ctx context.Context, uuid, key string, value any) error {
	p, err := interfacePath(uuid)
	if err != nil {
		return err
	}
	if err := c.require(ctx, CapInterfaceMetadata, "interface metadata"); err != nil {
		return err
	}
	return c.setMetadata(ctx, p, key, value)
}

// DeleteInterfaceMetadata sends DELETE /interfaces/{uuid}/metadata/{key}.
func (c *Client) DeleteInterfaceMetadata(ctx context.Context, uuid, key string) error {
	p, err := interfacePath(uuid)
	if err != nil {
		return err
	}
	if err := c.require(ctx, CapInterfaceMetadata, "interface metadata"); err != nil {
		return err
	}
	return c.deleteMetadata(ctx, p, key)
}
