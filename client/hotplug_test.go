package client_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/client"
)

// The interface hot-plug and node delete, against the answers the real
// server documents (shakenfist da448b1a, SOURCES.md at the top).
func TestAddInterfaceAndDeleteNode(t *testing.T) {
	// A root page without hot-plug-interface: sf-client refuses before
	// sending (apiclient.py add_instance_interface raises
	// IncapableException), and so does the client.
	noHotPlug := strings.Replace(golden(t, "sf2024/root.html"), ", hot-plug-interface", "", 1)
	runCalls(t, []call{
		{name: "add interface sends the networkspec as network", gen: "2024",
			routes: only("POST /instances/web1/interfaces", reply(200, golden(t, "sf2024/interface_created.json"))),
			do: func(c *client.Client) (any, error) {
				return c.AddInstanceInterface(t.Context(), "web1", client.NetworkRequest{NetworkUUID: "net1", Address: "10.0.0.47", Float: true})
			},
			method: "POST", path: "/instances/web1/interfaces",
			body: `{"network": {"network_uuid": "net1", "address": "10.0.0.47", "float": true}}`,
			check: func(t *testing.T, v any) {
				i := v.(*client.Interface)
				if i.UUID != "8e7b2f39-c652-4ec2-88ff-2791b503fc65" || i.IPv4 != "10.0.0.47" || i.Floating != "192.168.10.73" || i.Order != 1 || len(i.Raw) == 0 {
					t.Errorf("interface = %+v", i)
				}
			}},
		{name: "add interface to a failed instance is the server's 406", gen: "2026",
			routes: only("POST /instances/web1/interfaces", reply(406, `{"error": "instance in invalid state for hot plug", "status": 406}`)),
			do: func(c *client.Client) (any, error) {
				return c.AddInstanceInterface(t.Context(), "web1", client.NetworkRequest{NetworkUUID: "net1"})
			},
			method: "POST", path: "/instances/web1/interfaces", body: `{"network": {"network_uuid": "net1"}}`,
			wantErr: func(t *testing.T, err error) {
				var apiErr *client.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotAcceptable {
					t.Fatalf("err = %v", err)
				}
			}},
		{name: "add interface on a server without hot-plug-interface", routes: map[string]http.HandlerFunc{
			"GET /": reply(200, noHotPlug, "Content-Type", "text/html")},
			do: func(c *client.Client) (any, error) {
				return c.AddInstanceInterface(t.Context(), "web1", client.NetworkRequest{NetworkUUID: "net1"})
			},
			wantErr: wantNotSupported("hot-plug-interface"), noRequests: true},
		{name: "add interface without a network is refused before sending",
			do: func(c *client.Client) (any, error) {
				return c.AddInstanceInterface(t.Context(), "web1", client.NetworkRequest{})
			},
			wantErr: wantUsage("network"), noRequests: true},
		{name: "delete node answers the node, now deleted",
			routes: only("DELETE /nodes/sf-1", reply(200, golden(t, "sf2024/node_deleted.json"))),
			do:     func(c *client.Client) (any, error) { return c.DeleteNode(t.Context(), "sf-1") },
			method: "DELETE", path: "/nodes/sf-1",
			check: func(t *testing.T, v any) {
				if n := v.(*client.Node); n.Name != "sf-1" || n.State != "deleted" || n.Version != 3 {
					t.Errorf("node = %+v", n)
				}
			}},
		{name: "delete an unknown node is the server's 404",
			routes: only("DELETE /nodes/sf-9", reply(404, `{"error": "node not found", "status": 404}`)),
			do:     func(c *client.Client) (any, error) { return c.DeleteNode(t.Context(), "sf-9") },
			method: "DELETE", path: "/nodes/sf-9",
			wantErr: func(t *testing.T, err error) {
				var apiErr *client.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
					t.Fatalf("err = %v", err)
				}
			}},
		{name: "delete node with no name is refused before sending",
			do:      func(c *client.Client) (any, error) { return c.DeleteNode(t.Context(), "") },
			wantErr: wantUsage("node"), noRequests: true},
	})
}
