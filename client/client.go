// Package client is the typed Shakenfist API client: authentication with one
// re-login, resources with the server's field names, typed errors for every
// non-2xx answer, and the opt-in transient-capacity retry of package retry.
package client

import (
	"context"
	"errors"
	"net/http"
)

// Client talks to one Shakenfist API as one namespace.
type Client struct {
	opts Options
}

// New checks the options and builds a client. It sends nothing: the first
// call logs in.
func New(o Options) (*Client, error) {
	if o.APIURL == "" {
		return nil, errors.New("no API URL: set --api-url or SHAKENFIST_API_URL")
	}
	return &Client{opts: o}, nil
}

var errNotYet = errors.New("client: not implemented yet")

func (c *Client) do(ctx context.Context, method, path string, body []byte) (*Response, error) {
	return nil, errNotYet
}

// Raw is the `shakectl api` call.
func (c *Client) Raw(ctx context.Context, method, path string, body []byte) (*Response, error) {
	return c.do(ctx, method, path, body)
}

func (c *Client) ListInstances(ctx context.Context, all bool) ([]Instance, error) {
	return nil, errNotYet
}
func (c *Client) GetInstance(ctx context.Context, ref string) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) CreateInstance(ctx context.Context, req CreateInstanceRequest) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) DeleteInstance(ctx context.Context, ref string) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) InstanceEvents(ctx context.Context, ref string) ([]Event, error) {
	return nil, errNotYet
}
func (c *Client) PowerOnInstance(ctx context.Context, ref string) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) PowerOffInstance(ctx context.Context, ref string) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) RebootInstance(ctx context.Context, ref string, hard bool) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) PauseInstance(ctx context.Context, ref string) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) UnpauseInstance(ctx context.Context, ref string) (*Instance, error) {
	return nil, errNotYet
}
func (c *Client) ListNetworks(ctx context.Context, all bool) ([]Network, error) {
	return nil, errNotYet
}
func (c *Client) GetNetwork(ctx context.Context, ref string) (*Network, error) { return nil, errNotYet }
func (c *Client) CreateNetwork(ctx context.Context, req CreateNetworkRequest) (*Network, error) {
	return nil, errNotYet
}
func (c *Client) DeleteNetwork(ctx context.Context, ref string) (*Network, error) {
	return nil, errNotYet
}
func (c *Client) DeleteNetworkAsync(ctx context.Context, ref string) (*Network, error) {
	return nil, errNotYet
}
func (c *Client) ListNodes(ctx context.Context) ([]Node, error)           { return nil, errNotYet }
func (c *Client) GetNode(ctx context.Context, name string) (*Node, error) { return nil, errNotYet }
func (c *Client) ListNamespaces(ctx context.Context) ([]Namespace, error) { return nil, errNotYet }

var _ = http.MethodGet
