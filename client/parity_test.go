package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/client"
)

// TestParityCallsRecordedAnswers pins issue 35's calls to the real
// server's answers (testdata/sf2024, SOURCES.md): the interface view, the
// locks object, the .vv file, a routed address as a bare JSON string, the
// process metrics object, and the 200 null of float, defloat, unroute and
// consoledata delete.
func TestParityCallsRecordedAnswers(t *testing.T) {
	const ifc = "b1981e81-b37a-4176-ba37-b61bc7208012"
	s := newSF(t)
	s.handle("GET /", reply(200, golden(t, "sf2024/root.html"), "Content-Type", "text/html"))
	s.handle("GET /interfaces/"+ifc, reply(200, golden(t, "sf2024/interface.json")))
	s.handle("POST /interfaces/"+ifc+"/float", reply(200, "null\n"))
	s.handle("POST /interfaces/"+ifc+"/defloat", reply(200, "null\n"))
	s.handle("GET /admin/locks", reply(200, golden(t, "sf2024/admin_locks.json")))
	s.handle("GET /instances/web1/vdiconsolehelper", reply(200, golden(t, "sf2024/vdiconsole.vv"), "Content-Type", "application/x-virt-viewer"))
	s.handle("DELETE /instances/web1/consoledata", reply(200, "null\n"))
	s.handle("POST /networks/net1/route", reply(200, golden(t, "sf2024/route_address.json")))
	s.handle("DELETE /networks/net1/route/192.168.20.7", reply(200, "null\n"))
	s.handle("DELETE /networks/net1/route/192.168.20.8", reply(404, `{"error": "address not routed", "status": 404}`))
	s.handle("GET /nodes/sf-1/processmetrics", reply(200, golden(t, "sf2024/processmetrics.json")))
	c := sfClient(t, s, nil)
	ctx := t.Context()

	i, err := c.GetInterface(ctx, ifc)
	if err != nil || i.IPv4 != "10.0.0.6" || i.InstanceUUID != "d512e9f5-98d6-4c36-8520-33b6fc6de15f" || i.Floating != "" || i.Model != "virtio" {
		t.Errorf("interface %+v, %v", i, err)
	}
	if err := c.FloatInterface(ctx, ifc); err != nil {
		t.Error(err)
	}
	if err := c.DefloatInterface(ctx, ifc); err != nil {
		t.Error(err)
	}
	locks, _, err := c.AdminLocks(ctx)
	if err != nil || len(locks) != 2 || locks[0].Key != "/sflocks/sf/cluster/" || locks[0].Node != "sf-1" || locks[0].PID.String() != "4441" || locks[0].Operation != "Cluster maintenance" ||
		locks[1].Key != "/sflocks/sf/instance/8518b409-fe1b-45e5-83c8-b246c9002d6b" || locks[1].Operation != "Instance delete" {
		t.Errorf("locks %+v, %v", locks, err)
	}
	vv, err := c.VDIConsoleFile(ctx, "web1")
	if err != nil || string(vv) != golden(t, "sf2024/vdiconsole.vv") {
		t.Errorf("vv %q, %v", vv, err)
	}
	if err := c.DeleteConsoleData(ctx, "web1"); err != nil {
		t.Error(err)
	}
	addr, err := c.RouteNetworkAddress(ctx, "net1")
	if err != nil || addr != "192.168.20.7" {
		t.Errorf("routed %q, %v", addr, err)
	}
	if err := c.UnrouteNetworkAddress(ctx, "net1", addr); err != nil {
		t.Error(err)
	}
	var apiErr *client.APIError
	if err := c.UnrouteNetworkAddress(ctx, "net1", "192.168.20.8"); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Message != "address not routed" {
		t.Errorf("unroute of an address nothing routes: %v", err)
	}
	if err := c.UnrouteNetworkAddress(ctx, "net1", "../admin"); !errors.As(err, new(*client.UsageError)) {
		t.Errorf("a path in ADDRESS is sent: %v", err)
	}
	m, err := c.NodeProcessMetrics(ctx, "sf-1")
	if err != nil || m["process_cpu_fraction_sf_net"] != 0.36 || len(m) != 9 {
		t.Errorf("process metrics %v, %v", m, err)
	}
}

// A server whose root page lists capabilities without interface-metadata
// (or route-addresses, vdi-console-helper, node-process-metrics) is not
// asked: the call says it is not supported, as sf-client does.
func TestParityCallsNeedTheirCapability(t *testing.T) {
	s := newSF(t)
	s.handle("GET /", reply(200, strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(golden(t, "sf2024/root.html"),
		"interface-metadata", "x1"), "route-addresses", "x2"), "vdi-console-helper", "x3"), "node-process-metrics", "x4"), "Content-Type", "text/html"))
	c := sfClient(t, s, nil)
	ctx := t.Context()
	for name, err := range map[string]error{
		"set-metadata":   c.SetInterfaceMetadata(ctx, "b1981e81-b37a-4176-ba37-b61bc7208012", "k", "v"),
		"route":          first(c.RouteNetworkAddress(ctx, "net1")),
		"vdi":            first(c.VDIConsoleFile(ctx, "web1")),
		"processmetrics": first(c.NodeProcessMetrics(ctx, "sf-1")),
	} {
		if !errors.As(err, new(*client.NotSupportedError)) {
			t.Errorf("%s: %v, want not supported", name, err)
		}
	}
	for _, r := range s.recorded() {
		if r.path != "/" {
			t.Errorf("sent %s %s", r.method, r.path)
		}
	}
}
