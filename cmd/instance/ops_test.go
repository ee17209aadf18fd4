package instance_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The snapshot list of instance show --snapshots, in the shape of
// shakenfist da448b1a external_api/snapshot.py InstanceSnapshotEndpoint.get.
const snapshotList = `[{"uuid": "a1", "source_url": "sf://instance/6a4e1a57/vda", "state": "created", "blob_uuid": "b1", "size": 1048576, "version": 1, "instances": []}]`

// delete-all against InstancesEndpoint.delete's answer, the UUIDs
// awaiting deletion, as the real server sent it
// (client/testdata/sf2024/instances_delete_all.json, recorded).
func TestInstanceDeleteAllConfirms(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.ReplyRecorded(t, "DELETE", "/instances", 200, "sf2024/instances_delete_all.json")
	// Piped without --yes: a usage error, nothing deleted.
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "delete-all"); res.Code != cmdutil.ExitUsage || fa.Count("DELETE", "/instances") != 0 {
		t.Fatal(res)
	}
	tty := clitest.AgainstStubs(fa)
	tty.Tty, tty.Stdin = true, "\n"
	if res := tty.Run(t, "instance", "delete-all"); res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, `Delete ALL instances of namespace "ns1"`) || fa.Count("DELETE", "/instances") != 0 {
		t.Fatal(res)
	}
	tty.Stdin = "yes\n"
	if res := tty.Run(t, "instance", "delete-all", "--namespace", "ci"); res.Code != 0 || !strings.Contains(res.Stdout, "cb942941") {
		t.Fatal(res)
	}
	if got := fa.LastBody("DELETE", "/instances"); got != `{"confirm":true,"namespace":"ci"}` {
		t.Errorf("body = %s", got)
	}
	res := clitest.AgainstStubs(fa).Run(t, "instance", "delete-all", "--yes", "-o", "json")
	var ids []string
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &ids) != nil || len(ids) != 2 || ids[0] != "8518b409-fe1b-45e5-83c8-b246c9002d6b" {
		t.Fatal(res)
	}
	// A system token without a namespace is the server's 400, said.
	fa = clitest.NewStubs(t)
	fa.Canned("DELETE", "/instances", clitest.RecordedRefusal(t, "sf2024/refusals.json", "400 delete-all without a namespace"))
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "delete-all", "--yes"); res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "system user must specify parameter namespace") {
		t.Fatal(res)
	}
}

// set-metadata and delete-metadata against InstanceMetadataEndpoint.put
// and .delete (da448b1a), which return None: 200 null
// (client/testdata/sf2024/handler_none.json), nothing printed; their
// refusals are the recorded rows.
func TestInstanceMetadata(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/instances/web1/metadata", 200, `{"tags": ["web", "prod"]}`)
	fa.ReplyRecorded(t, "PUT", "/instances/web1/metadata/affinity", 200, "sf2024/handler_none.json")
	fa.ReplyRecorded(t, "DELETE", "/instances/web1/metadata/tags", 200, "sf2024/handler_none.json")
	fa.Canned("DELETE", "/instances/nosuch/metadata/tags", clitest.RecordedRefusal(t, "sf2024/refusals.json", "404 instance not found"))
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "instance", "get-metadata", "web1", "-o", "yaml"); res.Code != 0 || res.Stdout != "tags:\n  - web\n  - prod\n" {
		t.Fatal(res)
	}
	if res := r.Run(t, "instance", "set-metadata", "web1", "affinity", `{"fastdisk": 10}`); res.Code != 0 || res.Stdout != "" || res.Stderr != "" {
		t.Fatal(res)
	}
	if got := fa.LastBody("PUT", "/instances/web1/metadata/affinity"); got != `{"value":{"fastdisk":10}}` {
		t.Errorf("body = %s", got)
	}
	if res := r.Run(t, "instance", "delete-metadata", "web1", "tags"); res.Code != 0 || res.Stdout != "" || fa.Count("DELETE", "/instances/web1/metadata/tags") != 1 {
		t.Fatal(res)
	}
	if res := r.Run(t, "instance", "delete-metadata", "nosuch", "tags"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "instance not found") {
		t.Fatal(res)
	}
}

// consoledata against InstanceConsoleDataEndpoint.get (da448b1a): the
// console's bytes as a flask.Response whose mimetype the source spells
// "applicaton/octet-stream"; the bytes are client/testdata/sf2024/
// consoledata.txt, a guest that sends a terminal title escape.
func TestInstanceConsoleData(t *testing.T) {
	fa := clitest.NewStubs(t)
	console := clitest.ReadGolden(t, "sf2024/consoledata.txt")
	fa.ReplyWith("GET", "/instances/web1/consoledata", 200, http.Header{"Content-Type": {"applicaton/octet-stream"}}, console)
	// Piped: the bytes as the console wrote them; the length is sent.
	res := clitest.AgainstStubs(fa).Run(t, "instance", "consoledata", "web1", "--length", "2048")
	if res.Code != 0 || res.Stdout != console {
		t.Fatalf("%q", res)
	}
	if got := fa.LastBody("GET", "/instances/web1/consoledata"); got != `{"length":2048}` {
		t.Errorf("body = %s", got)
	}
	// sf-client's positional LENGTH.
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "consoledata", "web1", "100"); res.Code != 0 || fa.LastBody("GET", "/instances/web1/consoledata") != `{"length":100}` {
		t.Fatal(res)
	}
	// On a terminal the guest cannot send escape sequences to it.
	tty := clitest.AgainstStubs(fa)
	tty.Tty = true
	res = tty.Run(t, "instance", "consoledata", "web1")
	if res.Code != 0 || strings.ContainsAny(res.Stdout, "\x1b\x07\r") || !strings.Contains(res.Stdout, "?]0;owned?Debian GNU/Linux 12 web1 ttyS0") || !strings.HasSuffix(res.Stdout, "web1 login: ") {
		t.Fatalf("%q", res.Stdout)
	}
	res = clitest.AgainstStubs(fa).Run(t, "instance", "consoledata", "web1", "-o", "json")
	var got struct {
		Instance string
		Length   int
		Data     string
	}
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &got) != nil || got.Data != console || got.Length != 10240 {
		t.Fatal(res)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "consoledata", "web1", "lots"); res.Code != cmdutil.ExitUsage {
		t.Fatal(res)
	}
}

// snapshot against InstanceSnapshotEndpoint.post, Instance.snapshot's
// {device: {source_url, artifact_uuid, blob_uuid}} as a real node answered
// it for a running BIOS instance (client/testdata/sf2024/
// snapshot_created.json, from node/n16-snapshot: vda only).
func TestInstanceSnapshotGolden(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.ReplyRecorded(t, "POST", "/instances/web1/snapshot", 200, "sf2024/snapshot_created.json")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "instance_snapshot", "instance", "snapshot", "web1", "--all")
	if got := fa.LastBody("POST", "/instances/web1/snapshot"); got != `{"all":true}` {
		t.Errorf("body = %s", got)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "snapshot", "web1", "--device", "vdb", "--thin"); res.Code != 0 ||
		fa.LastBody("POST", "/instances/web1/snapshot") != `{"all":false,"device":"vdb","thin":true}` {
		t.Fatal(res)
	}
}

func TestInstanceShowSnapshotsGolden(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/instances/web1/snapshot", 200, snapshotList)
	fa.Reply("GET", "/instances/web1", 200, string(clitest.FixtureInstances[0]))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "instance_show_snapshots", "instance", "show", "web1", "--snapshots")
	// Without the flag, no snapshot request.
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "show", "web1"); res.Code != 0 || strings.Contains(res.Stdout, "snapshots") {
		t.Fatal(res)
	}
	if n := fa.Count("GET", "/instances/web1/snapshot"); n != 5 { // 4 formats + the piped table
		t.Errorf("%d snapshot requests", n)
	}
}

func TestInstanceCreateLongSpecsAndBootFlags(t *testing.T) {
	fa := clitest.NewStubs(t)
	// InstancesEndpoint.post answers the new instance.
	fa.Reply("POST", "/instances", 200, `{"uuid":"00000000-0000-4000-8000-000000000004","name":"vm1","namespace":"ns1","cpus":2,"memory":2048,"node":"","state":"initial","power_state":"","version":1}`)
	res := clitest.AgainstStubs(fa).Run(t, "instance", "create", "vm1", "2", "2048", "--async", "continue",
		"-D", "size=20,base=debian:12,bus=nvme", "-d", "8",
		"-n", "net1", "-N", "network_uuid=isolated,address=192.168.50.9,model=e1000,float=true", "-f", "net1@10.0.0.7",
		"-V", "model=qxl,memory=65536,vdi=spice", "--configdrive", "none",
		"--secure-boot", "--nvram-template", "ovmf-secboot", "-s", "sf-agent", "-s", "debug")
	if res.Code != 0 {
		t.Fatal(res)
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(fa.LastBody("POST", "/instances")), &body)
	want := map[string]any{
		// -d before -D, as sf-client.
		"disk": []any{map[string]any{"size": 8.0}, map[string]any{"size": 20.0, "base": "debian:12", "bus": "nvme"}},
		// -f, then -n, then -N, as sf-client.
		"network": []any{
			map[string]any{"network_uuid": "net1", "address": "10.0.0.7", "float": true},
			map[string]any{"network_uuid": "net1"},
			map[string]any{"network_uuid": "isolated", "address": "192.168.50.9", "model": "e1000", "float": true},
		},
		"video":       map[string]any{"model": "qxl", "memory": 65536.0, "vdi": "spice"},
		"configdrive": "none", "uefi": true, "secure_boot": true, "nvram_template": "ovmf-secboot",
		"side_channels": []any{"sf-agent", "debug"},
	}
	for k, v := range want {
		if !reflect.DeepEqual(body[k], v) {
			t.Errorf("%s = %#v, want %#v", k, body[k], v)
		}
	}
	for _, bad := range [][]string{{"-D", "size=20,colour=red"}, {"-N", "address=10.0.0.1"}, {"-V", "vdi=rdp"}, {"--configdrive", "iso"}} {
		res := clitest.AgainstStubs(fa).Run(t, append([]string{"instance", "create", "vm2", "1", "1024", "-d", "8"}, bad...)...)
		if res.Code != cmdutil.ExitUsage {
			t.Errorf("%q: %s", bad, res)
		}
	}
}
