package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// An answer is success only when it is the document asked for (issue 40):
// null, an empty object, an object of another kind, a list holding one,
// are each a *client.ResponseError that says what came.
func TestAnObjectWithoutItsIdentityIsNotTheObject(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, path, body, want string
		call                   func(c *client.Client) error
	}{
		{"instance {}", "/instances/web1", `{}`, "GET /instances/web1: the server answered 200 with an object without a uuid ({}), not the instance asked for",
			func(c *client.Client) error { _, err := c.GetInstance(ctx, "web1"); return err }},
		{"instance null", "/instances/web1", "null\n", "GET /instances/web1: the server answered 200 with JSON null where an object was expected",
			func(c *client.Client) error { _, err := c.GetInstance(ctx, "web1"); return err }},
		{"an error body as an instance", "/instances/web1", `{"error": "busy", "status": 200}`, `GET /instances/web1: the server answered 200 with an object without a uuid ({"error": "busy", "status": 200}), not the instance asked for`,
			func(c *client.Client) error { _, err := c.GetInstance(ctx, "web1"); return err }},
		{"network {}", "/networks/net1", `{}`, "GET /networks/net1: the server answered 200 with an object without a uuid ({}), not the network asked for",
			func(c *client.Client) error { _, err := c.GetNetwork(ctx, "net1"); return err }},
		{"artifact {}", "/artifacts/art1", `{"state": "created"}`, `GET /artifacts/art1: the server answered 200 with an object without a uuid ({"state": "created"}), not the artifact asked for`,
			func(c *client.Client) error { _, err := c.GetArtifact(ctx, "art1"); return err }},
		{"a list with an empty object", "/instances", `[{"uuid": "a1", "state": "created"}, {}]`, "GET /instances: the server answered 200 with an object without a uuid ({}), not the instance asked for",
			func(c *client.Client) error { _, err := c.ListInstances(ctx, false); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newStubs(t, httpstub.REST("GET", tc.path), answer{status: 200, header: map[string]string{"Content-Type": "application/json"}, body: tc.body})
			err := tc.call(newClient(t, f, -1, nil, nil))
			var re *client.ResponseError
			if !errors.As(err, &re) || err.Error() != tc.want {
				t.Errorf("got %v (%T)\nwant %s", err, err, tc.want)
			}
		})
	}
}
