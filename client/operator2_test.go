package client_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/client"
)

func TestInstanceMethods(t *testing.T) {
	const snapshot = `{"vda": {"source_url": "sf://instance/c0d52a77/vda", "artifact_uuid": "a1", "blob_uuid": "b1"}}`
	const snapshots = `[{"uuid": "a1", "source_url": "sf://instance/c0d52a77/vda", "state": "created", "blob_uuid": "b1", "size": 1048576, "version": 1, "instances": []}]`
	console := "login: \x1b[31mroot\x1b[0m\r\n\xff"
	runCalls(t, []call{
		{name: "set metadata", routes: only("PUT /instances/web1/metadata/tags", reply(200, "null")),
			do: func(c *client.Client) (any, error) {
				return nil, c.SetInstanceMetadata(t.Context(), "web1", "tags", []string{"a", "b"})
			},
			method: "PUT", path: "/instances/web1/metadata/tags", body: `{"value": ["a", "b"]}`},
		{name: "delete metadata", routes: only("DELETE /instances/web1/metadata/tags", reply(200, "null")),
			do:     func(c *client.Client) (any, error) { return nil, c.DeleteInstanceMetadata(t.Context(), "web1", "tags") },
			method: "DELETE", path: "/instances/web1/metadata/tags"},
		{name: "get metadata", routes: only("GET /instances/web1/metadata", reply(200, `{"tags": ["a"]}`)),
			do:     func(c *client.Client) (any, error) { return c.GetInstanceMetadata(t.Context(), "web1") },
			method: "GET", path: "/instances/web1/metadata"},
		{name: "consoledata with a length: bytes as sent", routes: only("GET /instances/web1/consoledata",
			reply(200, console, "Content-Type", "applicaton/octet-stream")),
			do:     func(c *client.Client) (any, error) { return c.ConsoleData(t.Context(), "web1", 4096) },
			method: "GET", path: "/instances/web1/consoledata", body: `{"length": 4096}`,
			check: func(t *testing.T, v any) {
				if string(v.([]byte)) != console {
					t.Errorf("console = %q", v)
				}
			}},
		{name: "consoledata with the server's default length", routes: only("GET /instances/web1/consoledata", reply(200, "x")),
			do:     func(c *client.Client) (any, error) { return c.ConsoleData(t.Context(), "web1", 0) },
			method: "GET", path: "/instances/web1/consoledata"},
		{name: "snapshot", routes: only("POST /instances/web1/snapshot", reply(200, snapshot)),
			do: func(c *client.Client) (any, error) {
				return c.SnapshotInstance(t.Context(), "web1", client.SnapshotRequest{All: true})
			},
			method: "POST", path: "/instances/web1/snapshot", body: `{"all": true}`,
			check: func(t *testing.T, v any) {
				if s := v.(map[string]client.SnapshotStarted); s["vda"].BlobUUID != "b1" || s["vda"].ArtifactUUID != "a1" {
					t.Errorf("snapshot = %+v", s)
				}
			}},
		{name: "list snapshots", routes: only("GET /instances/web1/snapshot", reply(200, snapshots)),
			do:     func(c *client.Client) (any, error) { return c.ListInstanceSnapshots(t.Context(), "web1") },
			method: "GET", path: "/instances/web1/snapshot",
			check: func(t *testing.T, v any) {
				if s := v.([]client.Snapshot); len(s) != 1 || s[0].BlobUUID != "b1" || s[0].State != "created" || !strings.Contains(string(s[0].Raw), `"instances"`) {
					t.Errorf("snapshots = %+v", s)
				}
			}},
		{name: "delete all (namespace scoped)", routes: only("DELETE /instances", reply(200, `["c0d52a77-0f8a-4f19-bec7-0c05efb03cb4"]`)),
			do:     func(c *client.Client) (any, error) { return c.DeleteAllInstances(t.Context(), "ci") },
			method: "DELETE", path: "/instances", body: `{"confirm": true, "namespace": "ci"}`,
			check: func(t *testing.T, v any) {
				if ids := v.([]string); len(ids) != 1 {
					t.Errorf("ids = %v", ids)
				}
			}},
		{name: "events limit over 1000 is refused before sending",
			do: func(c *client.Client) (any, error) {
				return c.InstanceEvents(t.Context(), "web1", client.EventsQuery{Limit: 1001})
			},
			wantErr: wantUsage("limit"), noRequests: true},
		{name: "events limit -1 is refused", do: func(c *client.Client) (any, error) {
			return c.NetworkEvents(t.Context(), "net1", client.EventsQuery{Limit: -1})
		}, wantErr: wantUsage("limit"), noRequests: true},
		{name: "events limit 1000 is sent", routes: only("GET /instances/web1/events", reply(200, golden(t, "sf2024/instance_events.json"))),
			do: func(c *client.Client) (any, error) {
				return c.InstanceEvents(t.Context(), "web1", client.EventsQuery{Limit: 1000})
			},
			method: "GET", path: "/instances/web1/events", body: `{"limit": 1000}`},
	})
}

func TestCreateInstanceSendsTheServersFieldNames(t *testing.T) {
	disk, err := client.ParseDiskSpecLong("size=8,base=debian:12,bus=nvme,type=disk")
	if err != nil {
		t.Fatal(err)
	}
	cdrom, err := client.ParseDiskSpecLong("base=https://example.com/x.iso,type=cdrom")
	if err != nil {
		t.Fatal(err)
	}
	nspec, err := client.ParseNetworkSpecLong("network_uuid=net2,macaddress=02:00:00:6d:e5:e0,model=e1000,float=True")
	if err != nil {
		t.Fatal(err)
	}
	floated, err := client.ParseFloatedSpec("net1@10.0.0.5")
	if err != nil {
		t.Fatal(err)
	}
	video, err := client.ParseVideoSpec("model=qxl,vdi=spice")
	if err != nil {
		t.Fatal(err)
	}
	req := client.CreateInstanceRequest{
		Name: "web1", CPUs: 2, Memory: 2048,
		Disk:    []client.DiskRequest{{Size: 20, Base: "debian:12"}, disk, cdrom},
		Network: []client.NetworkRequest{floated, nspec},
		Video:   &video, UEFI: true, SecureBoot: true, NVRAMTemplate: "label:ovmf-secboot",
		ConfigDrive: "none", SideChannels: []string{"sf-agent2"},
	}
	s := newSF(t)
	s.handle("POST /instances", reply(200, instanceJSON))
	c := sfClient(t, s, nil)
	if _, err := c.CreateInstance(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "create", apiCalls(s)[0].body, `{
		"name": "web1", "cpus": 2, "memory": 2048,
		"disk": [{"size": 20, "base": "debian:12"}, {"size": 8, "base": "debian:12", "bus": "nvme", "type": "disk"},
		         {"base": "https://example.com/x.iso", "type": "cdrom"}],
		"network": [{"network_uuid": "net1", "address": "10.0.0.5", "float": true},
		            {"network_uuid": "net2", "macaddress": "02:00:00:6d:e5:e0", "model": "e1000", "float": true}],
		"video": {"model": "qxl", "memory": 16384, "vdi": "spice"},
		"uefi": true, "secure_boot": true, "nvram_template": "label:ovmf-secboot",
		"configdrive": "none", "side_channels": ["sf-agent2"]}`)
}

func TestLongSpecsRefuseWhatTheServerRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"disk without size or base", first(client.ParseDiskSpecLong("bus=virtio"))},
		{"disk size 0 without base", first(client.ParseDiskSpecLong("size=0"))},
		{"disk base none", first(client.ParseDiskSpecLong("base=none"))},
		{"disk ide", first(client.ParseDiskSpecLong("size=8,bus=ide"))},
		{"disk type floppy", first(client.ParseDiskSpecLong("size=8,type=floppy"))},
		{"disk unknown key", first(client.ParseDiskSpecLong("size=8,colour=red"))},
		{"disk key twice", first(client.ParseDiskSpecLong("size=8,size=9"))},
		{"disk not key=value", first(client.ParseDiskSpecLong("8"))},
		{"disk negative", first(client.ParseDiskSpecLong("size=-1"))},
		{"net without network_uuid", first(client.ParseNetworkSpecLong("address=10.0.0.5"))},
		{"net bad address", first(client.ParseNetworkSpecLong("network_uuid=n,address=10.0.0.300"))},
		{"net bad model", first(client.ParseNetworkSpecLong("network_uuid=n,model=virt io"))},
		{"net float yes", first(client.ParseNetworkSpecLong("network_uuid=n,float=yes"))},
		{"net control character", first(client.ParseNetworkSpecLong("network_uuid=n\x1b[2J"))},
		{"video vdi rdp", first(client.ParseVideoSpec("vdi=rdp"))},
		{"video memory words", first(client.ParseVideoSpec("memory=lots"))},
		{"video empty", first(client.ParseVideoSpec(""))},
		{"floated without network", first(client.ParseFloatedSpec("@10.0.0.1"))},
	} {
		if tc.err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if n, err := client.ParseNetworkSpecLong("network_uuid=n,address=none"); err != nil || n.Address != "none" {
		t.Errorf("address=none: %+v, %v", n, err)
	}
}

func first[T any](_ T, err error) error { return err }

func FuzzLongSpecs(f *testing.F) {
	for _, s := range []string{"size=8,base=debian:12", "network_uuid=n,float=true", "model=qxl", "", ",", "=", "a=b=c",
		"size=99999999999999999999", "network_uuid=\x00", "base=\u202e", "size=8,,base=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := client.ParseDiskSpecLong(s); err == nil && d.Size == 0 && (d.Base == "" || d.Base == "none") {
			t.Fatalf("accepted a disk with neither size nor base: %q", s)
		}
		if n, err := client.ParseNetworkSpecLong(s); err == nil && n.NetworkUUID == "" {
			t.Fatalf("accepted a network without network_uuid: %q", s)
		}
		if v, err := client.ParseVideoSpec(s); err == nil && (v.Model == "" || v.Memory <= 0) {
			t.Fatalf("accepted a video spec without model or memory: %q", s)
		}
		for _, parse := range []func(string) error{
			func(s string) error { _, err := client.ParseDiskSpecLong(s); return err },
			func(s string) error { _, err := client.ParseNetworkSpecLong(s); return err },
			func(s string) error { _, err := client.ParseVideoSpec(s); return err },
		} {
			if err := parse(s); err != nil {
				var u *client.UsageError
				if !errors.As(err, &u) {
					t.Fatalf("%q: error %v is not a usage error", s, err)
				}
				if strings.ContainsAny(err.Error(), "\x1b\x00") {
					t.Fatalf("%q: the error carries control characters: %q", s, err)
				}
			}
		}
	})
}

func TestNetworkMethods(t *testing.T) {
	// A 2024 page without provide-dns: a server the client must not ask
	// for DNS (client-python allocate_network raises IncapableException).
	noDNS := strings.Replace(golden(t, "sf2024/root.html"), "provide-dns, ", "", 1)
	runCalls(t, []call{
		{name: "events (2024 answer)", routes: only("GET /networks/net1/events", reply(200, golden(t, "sf2024/network_events.json"))),
			do: func(c *client.Client) (any, error) {
				return c.NetworkEvents(t.Context(), "net1", client.EventsQuery{Type: "usage", Limit: 10})
			},
			method: "GET", path: "/networks/net1/events", body: `{"event_type": "usage", "limit": 10}`,
			check: func(t *testing.T, v any) {
				if e := v.([]client.Event); len(e) != 1 || e[0].Type != "usage" || e[0].FQDN != "sf-1" {
					t.Errorf("events = %+v", e)
				}
			}},
		{name: "instances: the network's interfaces", routes: only("GET /networks/net1/interfaces", reply(200, golden(t, "sf2024/interfaces.json"))),
			do:     func(c *client.Client) (any, error) { return c.NetworkInterfaces(t.Context(), "net1") },
			method: "GET", path: "/networks/net1/interfaces",
			check: func(t *testing.T, v any) {
				i := v.([]client.Interface)
				if len(i) != 1 || i[0].InstanceUUID != "c0d52a77-0f8a-4f19-bec7-0c05efb03cb4" || i[0].IPv4 != "10.0.0.47" || i[0].Floating != "192.168.10.73" {
					t.Errorf("interfaces = %+v", i)
				}
			}},
		{name: "addresses", gen: "2024", routes: only("GET /networks/net1/addresses",
			reply(200, `[{"address": "10.0.0.47", "user": ["instance", "c0d52a77-0f8a-4f19-bec7-0c05efb03cb4"], "when": 1685229103.9, "type": "instance", "comment": ""}]`)),
			do:     func(c *client.Client) (any, error) { return c.NetworkAddresses(t.Context(), "net1") },
			method: "GET", path: "/networks/net1/addresses",
			check: func(t *testing.T, v any) {
				a := v.([]client.AddressReservation)
				if len(a) != 1 || a[0].Address != "10.0.0.47" || !strings.Contains(string(a[0].User), "c0d52a77") {
					t.Errorf("addresses = %+v", a)
				}
			}},
		{name: "ping (2024 answer)", routes: only("GET /networks/net1/ping/10.0.0.187", reply(200, golden(t, "sf2024/network_ping.json"))),
			do:     func(c *client.Client) (any, error) { return c.PingNetwork(t.Context(), "net1", "10.0.0.187") },
			method: "GET", path: "/networks/net1/ping/10.0.0.187",
			check: func(t *testing.T, v any) {
				p := v.(*client.PingResult)
				if len(p.Stdout) < 10 || !strings.Contains(p.Stdout[len(p.Stdout)-3], "0% packet loss") {
					t.Errorf("ping = %+v", p)
				}
			}},
		{name: "ping refuses a non-address before sending",
			do:      func(c *client.Client) (any, error) { return c.PingNetwork(t.Context(), "net1", "10.0.0.187/../x") },
			wantErr: wantUsage("address"), noRequests: true},
		{name: "set metadata", routes: only("PUT /networks/net1/metadata/herd", reply(200, "null")),
			do: func(c *client.Client) (any, error) {
				return nil, c.SetNetworkMetadata(t.Context(), "net1", "herd", "cows")
			},
			method: "PUT", path: "/networks/net1/metadata/herd", body: `{"value": "cows"}`},
		{name: "delete metadata", routes: only("DELETE /networks/net1/metadata/herd", reply(200, "null")),
			do:     func(c *client.Client) (any, error) { return nil, c.DeleteNetworkMetadata(t.Context(), "net1", "herd") },
			method: "DELETE", path: "/networks/net1/metadata/herd"},
		{name: "create with dns (2024 advertises provide-dns)", gen: "2024", routes: only("POST /networks", reply(200, golden(t, "network_initial.json"))),
			do: func(c *client.Client) (any, error) {
				return c.CreateNetwork(t.Context(), client.CreateNetworkRequest{Netblock: "10.0.0.0/24", Name: "net1", ProvideDHCP: true, ProvideNAT: true, ProvideDNS: true})
			},
			method: "POST", path: "/networks", body: `{"netblock": "10.0.0.0/24", "name": "net1", "provide_dhcp": true, "provide_nat": true, "provide_dns": true}`},
		{name: "create with dns on a server without it", routes: map[string]http.HandlerFunc{
			"GET /": reply(200, noDNS, "Content-Type", "text/html")},
			do: func(c *client.Client) (any, error) {
				return c.CreateNetwork(t.Context(), client.CreateNetworkRequest{Netblock: "10.0.0.0/24", Name: "net1", ProvideDNS: true})
			},
			wantErr: wantNotSupported(client.CapProvideDNS), noRequests: true},
		{name: "delete all (2024): the uuids", routes: only("DELETE /networks", reply(200, `["1bed1aa5-10f0-45cc-ae58-4a94761bef59"]`)),
			do:     func(c *client.Client) (any, error) { return c.DeleteAllNetworks(t.Context(), "ci", false) },
			method: "DELETE", path: "/networks", body: `{"confirm": true, "namespace": "ci", "clean_wait": false}`,
			check: func(t *testing.T, v any) {
				if d := v.(*client.NetworksDeleted); len(d.Deleted) != 1 || d.Operations != nil {
					t.Errorf("deleted = %+v", d)
				}
			}},
		{name: "delete all (2026): one operation per network", routes: only("DELETE /networks", reply(202, golden(t, "sf2026/networks_delete_all_202.json"))),
			do:     func(c *client.Client) (any, error) { return c.DeleteAllNetworks(t.Context(), "", true) },
			method: "DELETE", path: "/networks", body: `{"confirm": true, "clean_wait": true}`,
			check: func(t *testing.T, v any) {
				d := v.(*client.NetworksDeleted)
				if len(d.Operations) != 2 || d.Operations[1] != (client.OperationHandle{OpType: "net_op", OpUUID: "op-b", NetworkUUID: "net-b"}) ||
					strings.Join(d.Deleted, ",") != "net-a,net-b" {
					t.Errorf("deleted = %+v", d)
				}
			}},
	})
}

func TestDeleteAllNetworksInUse2024GivesBothLists(t *testing.T) {
	var row refusalRow
	for _, r := range refusalRows(t) {
		if r.Name == "403 delete-all with networks in use" {
			row = r
		}
	}
	s := newSF(t)
	s.handle("DELETE /networks", reply(403, string(row.Body)))
	c := sfClient(t, s, nil)
	d, err := c.DeleteAllNetworks(t.Context(), "ci", false)
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 403 {
		t.Fatalf("err = %v", err)
	}
	if d == nil || len(d.Deleted) != 1 || len(d.Unable) != 1 || d.Unable[0] != "2f1e0d9c-1111-4222-8333-444455556601" {
		t.Fatalf("result = %+v", d)
	}
}

func TestNetworkDeleteSpeaksBothGenerations(t *testing.T) {
	t.Run("2024: the network as it is", func(t *testing.T) {
		s := newSF(t)
		s.handle("DELETE /networks/net1", reply(200, golden(t, "network_delete_wait.json")))
		c := sfClient(t, s, nil)
		d, err := c.StartNetworkDelete(t.Context(), "net1")
		if err != nil || d.Operation != nil || d.Network == nil || d.Network.State != "delete-wait" {
			t.Fatalf("deletion = %+v, %v", d, err)
		}
	})
	t.Run("2024: already deleted is null", func(t *testing.T) {
		s := newSF(t)
		s.handle("DELETE /networks/net1", reply(200, "null"))
		c := sfClient(t, s, nil)
		n, err := c.DeleteNetwork(t.Context(), "net1")
		if err != nil || n != nil {
			t.Fatalf("network = %+v, %v", n, err)
		}
	})
	t.Run("2026: the operation handle, then the operation", func(t *testing.T) {
		s := newSF(t)
		s.handle("DELETE /networks/net1", reply(202, golden(t, "sf2026/network_delete_202.json")))
		var polls atomic.Int32
		s.handle("GET /clusteroperations/net_op/op-uuid", func(w http.ResponseWriter, r *http.Request) {
			if polls.Add(1) < 3 {
				// Any state but complete, error and abort is still going.
				fmt.Fprint(w, `{"operation_type": "net_op", "uuid": "op-uuid", "state": "created", "tasks": ["network_delete"]}`)
				return
			}
			fmt.Fprint(w, golden(t, "sf2026/clusteroperation_complete.json"))
		})
		c, err := client.New(client.Options{APIURL: s.URL, Namespace: "system", Key: testKey, OperationPoll: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.StartNetworkDelete(t.Context(), "net1")
		if err != nil || d.Network != nil || d.Operation == nil || *d.Operation != (client.OperationHandle{OpType: "net_op", OpUUID: "op-uuid"}) {
			t.Fatalf("deletion = %+v, %v", d, err)
		}
		op, err := c.WaitClusterOperation(t.Context(), *d.Operation)
		if err != nil || op.State != "complete" || op.Tasks[0] != "network_delete" || polls.Load() != 3 {
			t.Fatalf("op = %+v, %v, %d polls", op, err, polls.Load())
		}
	})
	t.Run("2026: an operation in error fails with its view", func(t *testing.T) {
		s := newSF(t)
		s.handle("DELETE /networks/net1", reply(202, golden(t, "sf2026/network_delete_202.json")))
		s.handle("GET /clusteroperations/net_op/op-uuid", reply(200, golden(t, "sf2026/clusteroperation_error.json")))
		c, err := client.New(client.Options{APIURL: s.URL, Namespace: "system", Key: testKey, NotReadyBudget: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.DeleteNetwork(t.Context(), "net1")
		var failed *client.ClusterOperationFailed
		if n != nil || !errors.As(err, &failed) || failed.Op.State != "error" || failed.Handle.OpUUID != "op-uuid" {
			t.Fatalf("network = %+v, err = %v", n, err)
		}
		if err.Error() != "cluster operation net_op/op-uuid ended in state error" {
			t.Errorf("message = %q", err)
		}
	})
	t.Run("2026 under --async continue: no wait", func(t *testing.T) {
		s := newSF(t)
		s.handle("DELETE /networks/net1", reply(202, golden(t, "sf2026/network_delete_202.json")))
		c := sfClient(t, s, nil)
		if n, err := c.DeleteNetwork(t.Context(), "net1"); n != nil || err != nil || len(apiCalls(s)) != 1 {
			t.Fatalf("network = %+v, err = %v, %d requests", n, err, len(apiCalls(s)))
		}
	})
	t.Run("2026: the operation's error text is carried", func(t *testing.T) {
		s := newSF(t)
		s.handle("GET /clusteroperations/net_op/op-uuid", reply(200,
			`{"operation_type": "net_op", "uuid": "op-uuid", "state": "abort", "tasks": ["network_delete"], "error_message": "network node unreachable"}`))
		c := sfClient(t, s, nil)
		_, err := c.WaitClusterOperation(t.Context(), client.OperationHandle{OpType: "net_op", OpUUID: "op-uuid"})
		if err == nil || err.Error() != "cluster operation net_op/op-uuid ended in state abort: network node unreachable" {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestClusterOperationChain(t *testing.T) {
	runCalls(t, []call{
		{name: "2026", gen: "2026", routes: only("GET /clusteroperations/op-1/chain", reply(200, golden(t, "sf2026/clusteroperation_chain.json"))),
			do:     func(c *client.Client) (any, error) { return c.ClusterOperationChain(t.Context(), "op-1") },
			method: "GET", path: "/clusteroperations/op-1/chain",
			check: func(t *testing.T, v any) {
				if ops := v.([]client.ClusterOperation); len(ops) != 2 || ops[0].UUID != "op-1" || ops[1].Tasks[0] != "network_deploy" {
					t.Errorf("chain = %+v", ops)
				}
			}},
		{name: "2024 has none", gen: "2024",
			do:      func(c *client.Client) (any, error) { return c.ClusterOperationChain(t.Context(), "op-1") },
			wantErr: wantNotSupported(client.CapClusterOperationChain), noRequests: true},
		{name: "show", routes: only("GET /clusteroperations/net_op/op-uuid", reply(200, golden(t, "sf2026/clusteroperation_complete.json"))),
			do: func(c *client.Client) (any, error) {
				return c.GetClusterOperation(t.Context(), client.OperationHandle{OpType: "net_op", OpUUID: "op-uuid"})
			},
			method: "GET", path: "/clusteroperations/net_op/op-uuid"},
		{name: "by target", gen: "2026", routes: only("GET /clusteroperations", reply(200, golden(t, "sf2026/clusteroperation_chain.json"))),
			do: func(c *client.Client) (any, error) {
				return c.ClusterOperationsForTarget(t.Context(), "network", "net-uuid")
			},
			method: "GET", path: "/clusteroperations", body: `{"target_object_type": "network", "target_uuid": "net-uuid"}`},
	})
}

func TestNodeMethods(t *testing.T) {
	runCalls(t, []call{
		{name: "events (2024 answer)", routes: only("GET /nodes/sf-1/events", reply(200, golden(t, "sf2024/node_events.json"))),
			do:     func(c *client.Client) (any, error) { return c.NodeEvents(t.Context(), "sf-1", client.EventsQuery{}) },
			method: "GET", path: "/nodes/sf-1/events",
			check: func(t *testing.T, v any) {
				if e := v.([]client.Event); len(e) != 1 || e[0].Type != "resources" {
					t.Errorf("events = %+v", e)
				}
			}},
		{name: "resources (2026 routes it)", routes: only("GET /admin/resources",
			reply(200, `{"total": {"cpu_available": 188, "ram_available": 94208}, "per_node": {"sf-2": {"cpu_available": 94, "cpu_max_per_instance": 16}}}`)),
			do:     func(c *client.Client) (any, error) { return c.NodeResources(t.Context()) },
			method: "GET", path: "/admin/resources",
			check: func(t *testing.T, v any) {
				r := v.(*client.ClusterResources)
				if r.Total.CPUAvailable != 188 || r.PerNode["sf-2"]["cpu_max_per_instance"] != 16.0 {
					t.Errorf("resources = %+v", r)
				}
			}},
		{name: "resources (2024 does not route it: Flask's HTML 404)", routes: only("GET /admin/resources",
			reply(404, golden(t, "flask_404.html"), "Content-Type", "text/html")),
			do:     func(c *client.Client) (any, error) { return c.NodeResources(t.Context()) },
			method: "GET", path: "/admin/resources",
			wantErr: func(t *testing.T, err error) {
				var ns *client.NotSupportedError
				var apiErr *client.APIError
				if !errors.As(err, &ns) || ns.Route != "GET /admin/resources" || !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
					t.Fatalf("err = %v", err)
				}
			}},
		{name: "resources refused to a non-admin stays that refusal", routes: only("GET /admin/resources",
			reply(401, `{"error": "unauthorized", "status": 401}`)),
			do:     func(c *client.Client) (any, error) { return c.NodeResources(t.Context()) },
			method: "GET", path: "/admin/resources",
			wantErr: func(t *testing.T, err error) {
				var ns *client.NotSupportedError
				if errors.As(err, &ns) || err == nil {
					t.Fatalf("err = %v", err)
				}
			}},
	})
}

func TestNodeNamesResolveUUIDsOnce(t *testing.T) {
	s := newSF(t)
	var lists atomic.Int32
	s.handle("GET /nodes", func(w http.ResponseWriter, r *http.Request) {
		lists.Add(1)
		fmt.Fprint(w, `[{"uuid": "5ef0a8e2-8c4b-4f6e-9d51-1b2a3c4d5e6f", "name": "sf-2", "state": "created"},
			{"uuid": "sf-3", "name": "sf-3", "state": "created"}]`)
	})
	c := sfClient(t, s, nil)
	for _, tc := range []struct{ ref, want string }{
		{"5ef0a8e2-8c4b-4f6e-9d51-1b2a3c4d5e6f", "sf-2"}, // 2026: the instance names its node by UUID
		{"sf-3", "sf-3"}, // 2024: by name, and the node's uuid is its name
		{"sf-9", "sf-9"}, // not a node: as it is
	} {
		if got, err := c.NodeName(t.Context(), tc.ref); err != nil || got != tc.want {
			t.Errorf("NodeName(%q) = %q, %v; want %q", tc.ref, got, err, tc.want)
		}
	}
	if lists.Load() != 1 {
		t.Errorf("listed the nodes %d times, want once", lists.Load())
	}

	refused := newSF(t)
	refused.handle("GET /nodes", reply(401, `{"error": "unauthorized", "status": 401}`))
	rc := sfClient(t, refused, nil)
	asked := 0
	for i := range 2 {
		got, err := rc.NodeName(t.Context(), "5ef0a8e2-8c4b-4f6e-9d51-1b2a3c4d5e6f")
		if got != "5ef0a8e2-8c4b-4f6e-9d51-1b2a3c4d5e6f" || err == nil {
			t.Errorf("a non-admin gets %q, %v; want the uuid and the refusal", got, err)
		}
		// The first lookup asks (and, on a 401, logs in again and asks
		// once more); the second does not ask at all.
		n := len(apiCalls(refused))
		if i == 1 && n != asked {
			t.Errorf("asked again after a refusal: %d requests, then %d", asked, n)
		}
		asked = n
	}
}

func TestNotReadyIsRepeatedOnlyForRequestsNamingNetworks(t *testing.T) {
	notReady := reply(406, `{"error": "network 2f1e0d9c-1111-4222-8333-444455556601 is not ready (initial)", "status": 406}`)
	for _, tc := range []struct {
		name, route string
		do          func(c *client.Client) error
	}{
		{"instance list", "GET /instances", func(c *client.Client) error { _, err := c.ListInstances(t.Context(), false); return err }},
		{"create without networks", "POST /instances", func(c *client.Client) error {
			_, err := c.CreateInstance(t.Context(), client.CreateInstanceRequest{Name: "x", CPUs: 1, Memory: 512, Disk: []client.DiskRequest{{Size: 8}}})
			return err
		}},
		{"network ping", "GET /networks/net1/ping/10.0.0.1", func(c *client.Client) error { _, err := c.PingNetwork(t.Context(), "net1", "10.0.0.1"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSF(t)
			s.handle(tc.route, notReady)
			c, err := client.New(client.Options{APIURL: s.URL, Namespace: "system", Key: testKey, NotReadyBudget: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			var apiErr *client.APIError
			if err := tc.do(c); !errors.As(err, &apiErr) || apiErr.StatusCode != 406 {
				t.Fatalf("err = %v", err)
			}
			if n := len(apiCalls(s)); n != 1 {
				t.Errorf("%d requests, want 1: a 406 here is final", n)
			}
		})
	}
}

func TestAPIURLPasswordIsNeverShown(t *testing.T) {
	s := newSF(t)
	s.handle("GET /instances/web1", reply(404, `{"error": "instance not found", "status": 404}`))
	s.handle("GET /networks", reply(200, "<html>proxy</html>"))
	u := strings.Replace(s.URL, "http://", "http://alice:pw-SECRET@", 1)
	c, err := client.New(client.Options{APIURL: u, Namespace: "system", Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error, fields ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		for _, f := range append(fields, err.Error(), fmt.Sprintf("%+v", err)) {
			if strings.Contains(f, "pw-SECRET") {
				t.Errorf("%s shows the password: %s", what, f)
			}
		}
	}
	_, err = c.GetInstance(t.Context(), "web1")
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v", err)
	}
	check("API error", err, apiErr.URL)
	_, err = c.ListNetworks(t.Context(), false)
	var re *client.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v", err)
	}
	check("response error", err, re.URL)

	// Nothing listens here any more: a transport error names the URL.
	s.Close()
	_, err = c.ListInstances(t.Context(), false)
	var te *client.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v", err)
	}
	check("transport error", err, te.URL)
	if !strings.Contains(err.Error(), "alice:xxxxx@") {
		t.Errorf("the URL is not shown redacted: %v", err)
	}
	_, err = c.Capabilities(t.Context())
	check("capabilities", err)
}
