package clitest

import (
	"bytes"
	"encoding/json"
)

// CannedReply is one canned answer (a recorded refusal, a refusal made to
// measure), registered with Stubs.Canned.
type CannedReply struct {
	Status int
	Header map[string]string
	Body   string
}

// The fake cloud's canned objects (the shapes of shakenfist da448b1a,
// external_api/*.py): answers for the stub registries (NewFixtureStubs).
var (
	FixtureInstances = []json.RawMessage{
		json.RawMessage(`{"uuid":"6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01","name":"web1","namespace":"ns1","cpus":2,"memory":2048,"disk_spec":[{"size":20,"base":"debian:12","bus":null,"type":"disk"}],"ssh_key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake web@example","user_data":"I2Nsb3VkLWNvbmZpZwo=","node":"node1","state":"created","state_updated":1700000100.25,"power_state":"on","error_message":null,"metadata":{"tags":["web","prod"]},"version":14,"interfaces":[{"uuid":"8d2f4b9e-0c1a-4e55-9b7e-1f2a3b4c5d61","state":"created","metadata":{},"version":3,"network_uuid":"2f1e0d9c-1111-4222-8333-444455556601","instance_uuid":"6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01","macaddr":"02:00:00:5e:10:01","ipv4":"10.0.0.5","order":0,"model":"virtio","floating":"192.168.1.20"}]}`),
		json.RawMessage(`{"uuid":"0b9f3c2e-52a1-4a7e-8d0c-5d1e2f3a4b02","name":"db-with-a-long-name","namespace":"ns1","cpus":8,"memory":16384,"disk_spec":[{"size":50,"base":"debian:12"},{"size":200}],"node":"node2","state":"created-error","power_state":"off","error_message":"instance failed to start: disk image missing","metadata":{},"version":14,"interfaces":[]}`),
		json.RawMessage(`{"uuid":"c3d2e1f0-aaaa-4bbb-8ccc-ddddeeee0003","name":"batch","namespace":"ns1","cpus":1,"memory":1024,"disk_spec":[{"size":8}],"node":"node1","state":"preflight","power_state":"initial","metadata":{"tags":["batch"]},"version":14,"interfaces":[]}`),
	}
	FixtureNetworks = []json.RawMessage{
		json.RawMessage(`{"uuid":"2f1e0d9c-1111-4222-8333-444455556601","name":"net1","namespace":"ns1","netblock":"10.0.0.0/24","provide_dhcp":true,"provide_nat":true,"provide_dns":false,"state":"created","vxlan_id":4211,"floating_gateway":"192.168.1.10","metadata":{},"version":4}`),
		json.RawMessage(`{"uuid":"2f1e0d9c-1111-4222-8333-444455556602","name":"isolated","namespace":"ns1","netblock":"192.168.50.0/24","provide_dhcp":false,"provide_nat":true,"provide_dns":false,"state":"delete-wait","vxlan_id":977,"floating_gateway":null,"metadata":{},"version":4}`),
	}
	// The node view of shakenfist da448b1a (external_api/node.py):
	// integer schema version, is_* flags, no capacity or tags.
	FixtureNodes = []json.RawMessage{
		json.RawMessage(`{"uuid":"node1","state":"created","metadata":{},"version":7,"name":"node1","ip":"10.1.0.1","lastseen":1700000000.5,"release":"0.8.3","is_etcd_master":true,"is_hypervisor":true,"is_network_node":true,"is_eventlog_node":true,"is_cluster_maintainer":true}`),
		json.RawMessage(`{"uuid":"node2","state":"created","metadata":{},"version":7,"name":"node2","ip":"10.1.0.2","lastseen":1700000001,"release":"0.8.3","is_etcd_master":false,"is_hypervisor":true,"is_network_node":false,"is_eventlog_node":false,"is_cluster_maintainer":false}`),
		json.RawMessage(`{"uuid":"db0","state":"missing","metadata":{},"version":7,"name":"db0","ip":"10.1.0.9","lastseen":1700000002,"release":"0.8.2","is_etcd_master":true,"is_hypervisor":false,"is_network_node":false,"is_eventlog_node":false,"is_cluster_maintainer":false}`),
	}
	// GET /auth/namespaces: key names under "keys".
	FixtureNamespaces = []json.RawMessage{
		json.RawMessage(`{"name":"system","state":"created","metadata":{},"version":5,"keys":["deploy","ci"],"trust":{"full":[]}}`),
		json.RawMessage(`{"name":"ns1","state":"created","metadata":{"owner":"team-a"},"version":5,"keys":["laptop"],"trust":{"full":["system"]}}`),
	}
	// Events newest first, the server's fields.
	FixtureEvents = json.RawMessage(`[{"type":"audit","timestamp":1700000015.75,"fqdn":"node1","duration":4.125,"message":"instance created","extra":{"node":"node1"}},{"type":"mutate","timestamp":1700000000.5,"fqdn":"sf-api","duration":null,"message":"schedule complete","extra":null}]`)
)

// NewInstanceUUID is the UUID of the instance CreatedInstance describes.
const NewInstanceUUID = "00000000-0000-4000-8000-000000000004"

// CreatedInstance is the server's view of a new instance named name, in
// state (POST /instances answers "initial"; later GETs what the test
// needs): the fake cloud's "batch" with its name, UUID and state.
func CreatedInstance(name, state string) string {
	return string(patchRaw(FixtureInstances[2], map[string]any{"uuid": NewInstanceUUID, "name": name, "state": state, "power_state": "initial"}))
}

// JoinRaw is items as one JSON list.
func JoinRaw(items []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

func patchRaw(raw json.RawMessage, set map[string]any) json.RawMessage {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for k, v := range set {
		m[k] = v
	}
	out, _ := json.Marshal(m)
	return out
}
