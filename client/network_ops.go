package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"net/url"
)

// Network routes beyond list/show/create/delete: shakenfist da448b1a
// external_api/network.py.

func networkPath(ref string, rest ...string) (string, error) {
	if ref == "" {
		return "", &UsageError{Field: "network", Problem: "empty network name or uuid"}
	}
	return refPath("networks", ref, rest...)
}

// NetworkEvents lists GET /networks/{ref}/events, newest first.
func (c *Client) NetworkEvents(ctx context.Context, ref string, q EventsQuery) ([]Event, error) {
	p, err := networkPath(ref, "events")
	if err != nil {
		return nil, err
	}
	return c.events(ctx, p, q)
}

// NetworkInterfaces lists the interfaces on a network, GET
// /networks/{ref}/interfaces: each names its instance (instance_uuid), so
// this is "network instances".
func (c *Client) NetworkInterfaces(ctx context.Context, ref string) ([]Interface, error) {
	p, err := networkPath(ref, "interfaces")
	if err != nil {
		return nil, err
	}
	return getList[Interface](c, ctx, http.MethodGet, p, nil)
}

// GetNetworkMetadata reads GET /networks/{ref}/metadata.
func (c *Client) GetNetworkMetadata(ctx context.Context, ref string) (map[string]any, error) {
	p, err := networkPath(ref)
	if err != nil {
		return nil, err
	}
	return c.getMetadata(ctx, p)
}

// SetNetworkMetadata sends PUT /networks/{ref}/metadata/{key} {"value"}.
func (c *Client) SetNetworkMetadata(ctx context.Context, ref, key string, value any) error {
	p, err := networkPath(ref)
	if err != nil {
		return err
	}
	return c.setMetadata(ctx, p, key, value)
}

// DeleteNetworkMetadata sends DELETE /networks/{ref}/metadata/{key}.
func (c *Client) DeleteNetworkMetadata(ctx context.Context, ref, key string) error {
	p, err := networkPath(ref)
	if err != nil {
		return err
	}
	return c.deleteMetadata(ctx, p, key)
}

// AddressReservation is one address in use on a network (ipam.py reserve:
// address, user — the reserving object as [type, uuid] —, when, type,
// comment).
type AddressReservation struct {
	Address string          `json:"address"`
	User    json.RawMessage `json:"user"`
	When    float64         `json:"when"`
	Type    string          `json:"type"`
	Comment string          `json:"comment"`
	Raw     json.RawMessage `json:"-"`
}

func (a *AddressReservation) keepRaw(r json.RawMessage) { a.Raw = r }

// NetworkAddresses lists GET /networks/{ref}/addresses (capability
// list-addresses, which both generations advertise).
func (c *Client) NetworkAddresses(ctx context.Context, ref string) ([]AddressReservation, error) {
	p, err := networkPath(ref, "addresses")
	if err != nil {
		return nil, err
	}
	if err := c.require(ctx, CapListAddresses, "listing network addresses"); err != nil {
		return nil, err
	}
	return getList[AddressReservation](c, ctx, http.MethodGet, p, nil)
}

// PingResult is GET /networks/{ref}/ping/{address}'s answer: ping's output
// lines from the network node.
type PingResult struct {
	Stdout []string        `json:"stdout"`
	Stderr []string        `json:"stderr"`
	Raw    json.RawMessage `json:"-"`
}

func (p *PingResult) keepRaw(r json.RawMessage) { p.Raw = r }

// PingNetwork pings an address from the network's namespace on its network
// node (ten packets; 400 for an address outside the netblock).
func (c *Client) PingNetwork(ctx context.Context, ref, address string) (*PingResult, error) {
	ip, err := netip.ParseAddr(address)
	if err != nil || ip.Zone() != "" {
		return nil, &UsageError{Field: "address", Problem: "not an IP address: " + oneLine(address)}
	}
	p, err := networkPath(ref, "ping", url.PathEscape(ip.String()))
	if err != nil {
		return nil, err
	}
	v, _, err := getOne[PingResult](c, ctx, http.MethodGet, p, nil)
	return v, err
}

// CapRouteAddresses is the capability both generations advertise for
// /networks/{ref}/route (app.py Root, "networks").
const CapRouteAddresses = "route-addresses"

// RouteNetworkAddress routes a floating address to a network, with no
// DNAT: POST /networks/{ref}/route (shakenfist da448b1a network.py
// NetworkRouteAddressEndpoint). The server reserves an address of the
// floating network at once and answers it as a JSON string; plumbing the
// route is the network node's work. 406 "network X is not ready (S)"
// unless the network is created; 507 "No free addresses on network" when
// the floating network is full.
func (c *Client) RouteNetworkAddress(ctx context.Context, ref string) (string, error) {
	p, err := networkPath(ref, "route")
	if err != nil {
		return "", err
	}
	if err := c.require(ctx, CapRouteAddresses, "routing addresses"); err != nil {
		return "", err
	}
	resp, u, err := c.call(ctx, http.MethodPost, p, nil)
	if err != nil {
		return "", err
	}
	if err := checkJSON(resp, http.MethodPost, u, '"'); err != nil {
		return "", err
	}
	var addr string
	if err := json.Unmarshal(resp.Body, &addr); err != nil {
		return "", decodeError(resp, http.MethodPost, u, err)
	}
	return addr, nil
}

// UnrouteNetworkAddress removes a routed address from a network: DELETE
// /networks/{ref}/route/{address}, 200 null (NetworkUnrouteAddressEndpoint:
// 404 "address not routed", 403 "address not routed by this network").
func (c *Client) UnrouteNetworkAddress(ctx context.Context, ref, address string) error {
	ip, err := netip.ParseAddr(address)
	if err != nil || ip.Zone() != "" {
		return &UsageError{Field: "address", Problem: "not an IP address: " + oneLine(address)}
	}
	p, err := networkPath(ref, "route", url.PathEscape(ip.String()))
	if err != nil {
		return err
	}
	if err := c.require(ctx, CapRouteAddresses, "routing addresses"); err != nil {
		return err
	}
	_, _, err = c.call(ctx, http.MethodDelete, p, nil)
	return err
}
