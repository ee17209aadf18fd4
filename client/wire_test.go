package client_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// The answers in testdata/ are the shapes of the real server (shakenfist
// da448b1a, shakenfist/external_api/*.py), not of our simulator.
func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRealInstanceViews(t *testing.T) {
	s := newSF(t)
	s.handle("GET /instances/web1", reply(200, golden(t, "instance_created.json")))
	s.handle("GET /instances/pre", reply(200, golden(t, "instance_preflight.json")))
	s.handle("GET /instances/big", reply(200, golden(t, "instance_created_error.json")))
	c := sfClient(t, s, nil)
	i, err := c.GetInstance(t.Context(), "web1")
	if err != nil {
		t.Fatal(err)
	}
	if len(i.Interfaces) != 1 || i.Interfaces[0].IPv4 != "10.0.0.5" || i.Interfaces[0].Floating != "192.168.1.20" ||
		i.Interfaces[0].MACAddr != "02:00:00:5e:10:01" || i.Interfaces[0].NetworkUUID != "2f1e0d9c-1111-4222-8333-444455556601" {
		t.Errorf("interfaces = %+v", i.Interfaces)
	}
	if i.Version != 14 || i.SSHKey != "" || !strings.Contains(string(i.Raw), `"side_channels": ["sf-agent"]`) {
		t.Errorf("instance = %+v", i)
	}
	if i, err := c.GetInstance(t.Context(), "pre"); err != nil || i.State != "preflight" || i.PowerState != "initial" {
		t.Errorf("preflight: %+v %v", i, err)
	}
	if i, err := c.GetInstance(t.Context(), "big"); err != nil || i.State != "created-error" || i.ErrorMessage != "scheduling failed" || i.Node != "" {
		t.Errorf("created-error: %+v %v", i, err)
	}
}

func TestRealNetworkNodeNamespaceEventViews(t *testing.T) {
	s := newSF(t)
	s.handle("GET /networks/net1", reply(200, golden(t, "network_initial.json")))
	s.handle("GET /nodes", reply(200, golden(t, "nodes.json")))
	s.handle("GET /nodes/sf-2", reply(200, golden(t, "node.json")))
	s.handle("GET /auth/namespaces", reply(200, golden(t, "namespaces.json")))
	s.handle("GET /instances/web1/events", reply(200, golden(t, "events.json")))
	c := sfClient(t, s, nil)

	n, err := c.GetNetwork(t.Context(), "net1")
	if err != nil || n.VXLANID != 4211 || n.State != "initial" || n.FloatingGateway != "" {
		t.Errorf("network %+v %v", n, err)
	}
	nodes, err := c.ListNodes(t.Context())
	if err != nil || len(nodes) != 2 || nodes[0].Version != 7 || nodes[0].Release != "0.8.0" ||
		strings.Join(nodes[0].Roles(), ",") != "hypervisor,network,etcd,eventlog,maintainer" || strings.Join(nodes[1].Roles(), ",") != "hypervisor" {
		t.Errorf("nodes %+v %v", nodes, err)
	}
	if node, err := c.GetNode(t.Context(), "sf-2"); err != nil || node.Name != "sf-2" || node.IsClusterMaintainer {
		t.Errorf("node %+v %v", node, err)
	}
	ns, err := c.ListNamespaces(t.Context())
	if err != nil || len(ns) != 2 || strings.Join(ns[1].Keys, ",") != "laptop,ci" {
		t.Errorf("namespaces %+v %v", ns, err)
	}
	events, err := c.InstanceEvents(t.Context(), "web1", client.EventsQuery{Type: "audit", Limit: 5})
	if err != nil || len(events) != 3 || events[0].Type != "audit" || *events[0].Duration != 4.125 ||
		events[2].Duration != nil || string(events[0].Extra) != `{"request-id": "9c1e44"}` || !strings.HasPrefix(string(events[0].Raw), `{"type": "audit"`) {
		t.Errorf("events %+v %v", events, err)
	}
	if got := s.recorded()[len(s.recorded())-1].body; got != `{"event_type":"audit","limit":5}` {
		t.Errorf("events body %s", got)
	}
}

func TestNullAnswers(t *testing.T) {
	s := newSF(t)
	for _, a := range []string{"poweron", "poweroff", "rebootsoft", "reboothard", "pause", "unpause"} {
		s.handle("POST /instances/web1/"+a, reply(200, golden(t, "null.json")))
	}
	s.handle("DELETE /networks/net1", reply(200, "null\n"))
	s.handle("DELETE /networks/net2", reply(200, golden(t, "network_delete_wait.json")))
	c := sfClient(t, s, nil)
	for _, a := range []client.PowerAction{client.PowerOn, client.PowerOff, client.RebootSoft, client.RebootHard, client.Pause, client.Unpause} {
		if inst, err := c.InstancePower(t.Context(), "web1", a); err != nil || inst != nil {
			t.Errorf("%s: %+v %v", a, inst, err)
		}
	}
	if n, err := c.DeleteNetwork(t.Context(), "net1"); err != nil || n != nil {
		t.Errorf("already deleted: %+v %v", n, err)
	}
	if n, err := c.DeleteNetwork(t.Context(), "net2"); err != nil || n.State != "delete-wait" {
		t.Errorf("delete-wait: %+v %v", n, err)
	}
}

// sf-client repeats a 406 once a second within its async deadline
// (client-python 6c25293c, apiclient.py _request_url).
func TestNotReadyIsRepeatedWithinTheBudget(t *testing.T) {
	notReady := `{"error": "network 2f1e0d9c-1111-4222-8333-444455556601 is not ready (initial)", "status": 406}`
	for _, tc := range []struct {
		name    string
		budget  time.Duration
		refuse  int // 406s before the create succeeds
		wantErr bool
		posts   int
	}{
		{"ready after three", time.Minute, 3, false, 4},
		{"budget too short", 2500 * time.Millisecond, 10, true, 3},
		{"no budget (continue)", 0, 1, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := httpstub.New(t)
				h.Register(httpstub.REST("POST", "/auth"), httpstub.Recorded(t, 200, "client/testdata/auth.json")).Always()
				refused := h.Register(httpstub.REST("POST", "/instances"), httpstub.String(406, notReady))
				if tc.wantErr {
					// Refused for as long as the client asks.
					refused.Always()
				} else {
					refused.Times(tc.refuse)
					h.Register(httpstub.REST("POST", "/instances"), httpstub.Recorded(t, 200, "client/testdata/instance_preflight.json"))
				}
				c, err := client.New(client.Options{APIURL: "http://sf.test", Namespace: "system", Key: testKey,
					Transport: h, NotReadyBudget: tc.budget})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, err = c.CreateInstance(t.Context(), client.CreateInstanceRequest{Name: "web1", CPUs: 1, Memory: 1024, Disk: []client.DiskRequest{{Size: 8}},
					Network: []client.NetworkRequest{{NetworkUUID: "2f1e0d9c-1111-4222-8333-444455556601"}}})
				var apiErr *client.APIError
				if tc.wantErr != (err != nil) || (err != nil && (!errors.As(err, &apiErr) || apiErr.StatusCode != 406)) {
					t.Fatalf("err = %v", err)
				}
				posts := h.Count("POST", "/instances")
				if posts != tc.posts {
					t.Errorf("%d posts, want %d", posts, tc.posts)
				}
				if took := time.Since(start); took != time.Duration(tc.posts-1)*time.Second {
					t.Errorf("took %s", took)
				}
			})
		})
	}
}

// The repeats of a 406 end with the caller's context: an interrupt during
// a pause is the interrupt (it was the last 406, exit 1 for a Ctrl-C); a
// deadline ends them as the budget does, with the server's last 406.
func TestNotReadyRepeatsEndWithTheContext(t *testing.T) {
	notReady := `{"error": "network 2f1e0d9c-1111-4222-8333-444455556601 is not ready (initial)", "status": 406}`
	interrupted := errors.New("interrupted")
	for _, tc := range []struct {
		name string
		ctx  func(context.Context) (context.Context, func())
		want func(error) bool
	}{
		{"interrupt", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			stop := time.AfterFunc(2500*time.Millisecond, func() { cancel(interrupted) })
			return ctx, func() { stop.Stop(); cancel(nil) }
		}, func(err error) bool { return errors.Is(err, interrupted) && !errors.As(err, new(*client.APIError)) }},
		{"deadline", func(ctx context.Context) (context.Context, func()) {
			return context.WithTimeout(ctx, 2500*time.Millisecond)
		}, func(err error) bool {
			var apiErr *client.APIError
			return errors.As(err, &apiErr) && apiErr.StatusCode == 406
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := httpstub.New(t)
				h.Register(httpstub.REST("POST", "/auth"), httpstub.Recorded(t, 200, "client/testdata/auth.json")).Always()
				h.Register(httpstub.REST("POST", "/instances"), httpstub.String(406, notReady)).Always()
				c, err := client.New(client.Options{APIURL: "http://sf.test", Namespace: "system", Key: testKey,
					Transport: h, NotReadyBudget: time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				ctx, stop := tc.ctx(t.Context())
				defer stop()
				start := time.Now()
				_, err = c.CreateInstance(ctx, client.CreateInstanceRequest{Name: "web1", CPUs: 1, Memory: 1024, Disk: []client.DiskRequest{{Size: 8}},
					Network: []client.NetworkRequest{{NetworkUUID: "2f1e0d9c-1111-4222-8333-444455556601"}}})
				if !tc.want(err) {
					t.Errorf("err = %v", err)
				}
				if posts, took := h.Count("POST", "/instances"), time.Since(start); posts != 3 || took != 2500*time.Millisecond {
					t.Errorf("%d posts in %s, want 3 ended at 2.5s", posts, took)
				}
			})
		})
	}
}

func TestAuthErrorsAndHTML(t *testing.T) {
	unknown := httpstub.New(t)
	unknown.Register(httpstub.REST("POST", "/auth"), httpstub.Error(404, "namespace not found"))
	c, _ := client.New(client.Options{APIURL: unknown.Serve(), Namespace: "nope", Key: testKey})
	_, err := c.ListInstances(t.Context(), false)
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || !apiErr.AtLogin() || apiErr.IsHTML() {
		t.Fatalf("unknown namespace: %v", err)
	}

	// http://host:13000/api on the API server itself: Flask's HTML 404.
	html := httpstub.New(t)
	html.Register(httpstub.REST("POST", "/api/auth"),
		httpstub.Answer(404, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, golden(t, "flask_404.html")))
	c, _ = client.New(client.Options{APIURL: html.Serve() + "/api", Namespace: "system", Key: testKey})
	_, err = c.ListInstances(t.Context(), false)
	if !errors.As(err, &apiErr) || !apiErr.IsHTML() || !strings.Contains(apiErr.Message, "404 Not Found") {
		t.Fatalf("HTML 404: %v", err)
	}
}

func TestAPIURLWithoutScheme(t *testing.T) {
	for _, u := range []string{"127.0.0.1:13000", "sf.example.com:13000/api", "localhost:13000", "admin:s3cret@sf:13000"} {
		_, err := client.New(client.Options{APIURL: u})
		if err == nil || !strings.Contains(err.Error(), "the scheme is missing") || !strings.Contains(err.Error(), "http://HOST:13000") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", u, err)
		}
	}
}
