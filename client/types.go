package client

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/shakenfist/shakectl/retry"
)

// Options configures a Client. The zero value of every optional field is a
// sensible default.
type Options struct {
	// APIURL is the API root, e.g. "http://127.0.0.1:13000"; resource
	// paths ("/instances", ...) are appended to it.
	APIURL    string
	Namespace string
	// Key is the namespace's API key. It is sent only in the body of
	// POST /auth and never logged or put into an error.
	Key string
	// UserAgent is sent with every request ("shakectl/<version>").
	UserAgent string
	// Timeout bounds each request (each attempt when retrying), including
	// reading its answer; 0 means DefaultTimeout.
	Timeout time.Duration
	// Insecure skips TLS certificate verification (the command warns). It
	// applies to the default transport; an injected Transport is used as is.
	Insecure bool
	// Transport carries the requests; nil means a tuned http.Transport.
	// Tests inject an in-memory RoundTripper.
	Transport http.RoundTripper
	// Dial, when set and Transport is nil, opens the tuned transport's
	// connections instead of a TCP dialer (tests dial in-memory, inside a
	// testing/synctest bubble).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Debug, when set, receives one line per request and per answer:
	// method, path, status, duration, request id. Secrets never appear.
	Debug io.Writer
	// Waiting, when set, is called once for a request still unanswered
	// after a second (the command says on a terminal what it waits for).
	Waiting func(method, url string)
	// Now is the wall clock, used to read Retry-After HTTP-dates; nil
	// means time.Now. Budgets and sleeps use the monotonic clock.
	Now func() time.Time
	// Retry enables --retry-transient-capacity; nil leaves it off.
	Retry *RetryOptions
	// NotReadyBudget is how long a request answered 406 (a resource it
	// depends on, such as a network still "initial", is not ready) is
	// repeated, once a second, as sf-client does within its async deadline.
	// 0 means not at all.
	NotReadyBudget time.Duration
	// NotReadyNotify, when set, is called before each such repeat with the
	// server's message and the time left.
	NotReadyNotify func(message string, left time.Duration)
	// OperationPoll is how often ClusterOperationPoll reads a cluster
	// operation; 0 means DefaultOperationPoll (1 s).
	OperationPoll time.Duration
}

// RetryOptions configures --retry-transient-capacity (shakenfist/shakenfist
// docs/operator_guide/capacity_refusals.md at 0c24a714, "Client-side retry").
type RetryOptions struct {
	// Budget bounds the sleeping between attempts (--timeout, else the
	// async budget: pause 60s, block 1h, continue 0 = never retry).
	Budget time.Duration
	// Notify is called once before each wait; the command prints
	// "capacity refused at stage S (transient); retrying in 15s (attempt
	// 2/5, 44s left)" unless --quiet. Nil means silent.
	Notify func(retry.Notice)
}

// Defaults for Options.
const (
	DefaultTimeout = 30 * time.Second
	// MaxResponseBody bounds a successful answer: a list of a few thousand
	// instances is a few MiB; a hostile server must not exhaust memory.
	MaxResponseBody = 32 << 20
)

// Response is the answer to a Raw call.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
	RequestID  string
}

// Instance is a Shakenfist instance with the server's field names. Fields
// the client does not model are kept in Raw.
type Instance struct {
	UUID         string         `json:"uuid"`
	Name         string         `json:"name"`
	Namespace    string         `json:"namespace,omitempty"`
	CPUs         int            `json:"cpus"`
	Memory       int            `json:"memory"`
	DiskSpec     []DiskSpec     `json:"disk_spec,omitempty"`
	SSHKey       string         `json:"ssh_key,omitempty"`
	UserData     string         `json:"user_data,omitempty"`
	Node         string         `json:"node,omitempty"`
	State        string         `json:"state"`
	PowerState   string         `json:"power_state,omitempty"`
	ErrorMessage string         `json:"error_message,omitempty"`
	Metadata     map[string]any `json:"metadata,omitempty"`
	Version      int            `json:"version,omitempty"`
	Interfaces   []Interface    `json:"interfaces,omitempty"`
	// AgentState is what the in-guest agent last told the cluster:
	// null until it first does, then "not ready (…)", "ready" or
	// "ready (degraded)" (shakenfist da448b1a constants.py AGENT_*).
	AgentState *string `json:"agent_state,omitempty"`
	// SideChannels are the instance's agent channels ("sf-agent"; 2026
	// adds "sf-agent2"); without sf-agent there is no agent to wait for.
	SideChannels []string `json:"side_channels,omitempty"`
	// Raw is the server's object as sent; printers use it for -o json/yaml
	// so the output is the API's own schema.
	Raw json.RawMessage `json:"-"`
}

// DiskSpec is one disk of an instance as the server describes it.
type DiskSpec struct {
	Size int    `json:"size"`
	Base string `json:"base,omitempty"`
	Bus  string `json:"bus,omitempty"`
	Type string `json:"type,omitempty"`
}

// Interface is one network interface of an instance, as the server's
// interface view has it (shakenfist da448b1a, networkinterface.py).
type Interface struct {
	UUID        string `json:"uuid"`
	NetworkUUID string `json:"network_uuid"`
	MACAddr     string `json:"macaddr"`
	IPv4        string `json:"ipv4"`
	Floating    string `json:"floating"`
	Order       int    `json:"order"`
	State       string `json:"state"`
	// InstanceUUID and Model are in the interface view too (da448b1a
	// instance_interfaces_example); a network's interface list names its
	// instances this way.
	InstanceUUID string          `json:"instance_uuid,omitempty"`
	Model        string          `json:"model,omitempty"`
	Raw          json.RawMessage `json:"-"`
}

// Event is one entry of an instance's event trail, with the fields of
// shakenfist da448b1a (external_api/base.py, events): newest first.
type Event struct {
	Type      string          `json:"type"`
	Timestamp float64         `json:"timestamp"`
	FQDN      string          `json:"fqdn"`
	Duration  *float64        `json:"duration"`
	Message   string          `json:"message"`
	Extra     json.RawMessage `json:"extra"`
	Raw       json.RawMessage `json:"-"`
}

// Network is a virtual network (shakenfist da448b1a network view: the
// VXLAN id is "vxlan_id"; a new network is "initial" until the network
// node has deployed it, then "created").
type Network struct {
	UUID            string          `json:"uuid"`
	Name            string          `json:"name"`
	Namespace       string          `json:"namespace"`
	Netblock        string          `json:"netblock"`
	ProvideDHCP     bool            `json:"provide_dhcp"`
	ProvideNAT      bool            `json:"provide_nat"`
	ProvideDNS      bool            `json:"provide_dns"`
	FloatingGateway string          `json:"floating_gateway"`
	State           string          `json:"state"`
	VXLANID         int             `json:"vxlan_id"`
	Version         int             `json:"version"`
	Raw             json.RawMessage `json:"-"`
}

// Node is a cluster node as shakenfist da448b1a describes it: roles as
// is_* flags, no capacity and no tags (the server does not expose them).
// Version is the object's schema version, an integer.
type Node struct {
	UUID                string          `json:"uuid"`
	Name                string          `json:"name"`
	IP                  string          `json:"ip"`
	State               string          `json:"state"`
	LastSeen            float64         `json:"lastseen"`
	Release             string          `json:"release"`
	Version             int             `json:"version"`
	IsEtcdMaster        bool            `json:"is_etcd_master"`
	IsHypervisor        bool            `json:"is_hypervisor"`
	IsNetworkNode       bool            `json:"is_network_node"`
	IsEventlogNode      bool            `json:"is_eventlog_node"`
	IsClusterMaintainer bool            `json:"is_cluster_maintainer"`
	Raw                 json.RawMessage `json:"-"`
}

// Roles names the node's roles from its is_* flags.
func (n *Node) Roles() []string {
	var r []string
	for _, f := range []struct {
		on   bool
		name string
	}{
		{n.IsHypervisor, "hypervisor"}, {n.IsNetworkNode, "network"}, {n.IsEtcdMaster, "etcd"},
		{n.IsEventlogNode, "eventlog"}, {n.IsClusterMaintainer, "maintainer"},
	} {
		if f.on {
			r = append(r, f.name)
		}
	}
	return r
}

// Namespace is one namespace of GET /auth/namespaces; the server lists the
// key names under "keys" (da448b1a auth.py; its swagger example's
// "key_names" is not what it sends).
type Namespace struct {
	Name  string   `json:"name"`
	State string   `json:"state"`
	Keys  []string `json:"keys"`
	// Trust lists the namespaces trusted to see this one's objects
	// (namespace.py external_view: {"full": [...]}).
	Trust    NamespaceTrust  `json:"trust"`
	Metadata map[string]any  `json:"metadata,omitempty"`
	Version  int             `json:"version"`
	Raw      json.RawMessage `json:"-"`
}

// NamespaceTrust is a namespace's trust list.
type NamespaceTrust struct {
	Full []string `json:"full"`
}

// CreateInstanceRequest is the body of POST /instances, with the server's
// keyword names (shakenfist da448b1a InstancesEndpoint.post, unchanged in
// 2026: name, cpus, memory, network, disk, ssh_key, user_data, placed_on,
// namespace, video, uefi, configdrive, metadata, nvram_template,
// secure_boot, side_channels). Unset optional fields are omitted, never
// sent as "", so the server's defaults apply (configdrive openstack-disk,
// BIOS boot, side channels sf-agent…).
type CreateInstanceRequest struct {
	Name      string           `json:"name"`
	CPUs      int              `json:"cpus"`
	Memory    int              `json:"memory"` // MiB
	Disk      []DiskRequest    `json:"disk"`
	Network   []NetworkRequest `json:"network,omitempty"`
	SSHKey    string           `json:"ssh_key,omitempty"`
	UserData  string           `json:"user_data,omitempty"` // already base64
	PlacedOn  string           `json:"placed_on,omitempty"`
	Namespace string           `json:"namespace,omitempty"`
	Metadata  map[string]any   `json:"metadata,omitempty"`
	// Video is sf-client's -V/--videospec.
	Video *VideoSpec `json:"video,omitempty"`
	// UEFI boots with UEFI instead of BIOS (--uefi); SecureBoot needs it
	// (the server answers 400 otherwise).
	UEFI       bool `json:"uefi,omitempty"`
	SecureBoot bool `json:"secure_boot,omitempty"`
	// NVRAMTemplate is --nvram-template, a blob or label for UEFI NVRAM.
	NVRAMTemplate string `json:"nvram_template,omitempty"`
	// ConfigDrive is --configdrive: "openstack-disk" (the server's
	// default) or "none".
	ConfigDrive string `json:"configdrive,omitempty"`
	// SideChannels is -s/--side-channel, repeated.
	SideChannels []string `json:"side_channels,omitempty"`
}

// DiskRequest is one disk of a create: size in GiB, optional base image,
// and (from a -D/--diskspec) bus and type. The 2026 server accepts only
// these four keys.
type DiskRequest struct {
	Size int    `json:"size,omitempty"`
	Base string `json:"base,omitempty"`
	Bus  string `json:"bus,omitempty"`
	Type string `json:"type,omitempty"`
}

// NetworkRequest attaches the instance to a network (uuid or name), with
// an optional fixed address and, from -N/--networkspec or -f/--floated,
// MAC address, NIC model and a floating address (the 2026 networkspec
// keys: network_uuid, macaddress, address, model, float).
type NetworkRequest struct {
	NetworkUUID string `json:"network_uuid"`
	Address     string `json:"address,omitempty"`
	MACAddress  string `json:"macaddress,omitempty"`
	Model       string `json:"model,omitempty"`
	Float       bool   `json:"float,omitempty"`
}

// VideoSpec is the video card (model and memory are required when given;
// vdi one of vnc, spice, spiceconcurrent, spicedebug).
type VideoSpec struct {
	Model  string `json:"model"`
	Memory int    `json:"memory"`
	VDI    string `json:"vdi,omitempty"`
}

// CreateNetworkRequest is the body of POST /networks.
type CreateNetworkRequest struct {
	Netblock    string `json:"netblock"`
	Name        string `json:"name"`
	ProvideDHCP bool   `json:"provide_dhcp"`
	ProvideNAT  bool   `json:"provide_nat"`
	// ProvideDNS is --dns; sent only when set, and only to a server that
	// advertises provide-dns, as client-python allocate_network does.
	ProvideDNS bool   `json:"provide_dns,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
}
