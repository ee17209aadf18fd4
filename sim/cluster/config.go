// Package cluster is a single-process stand-in for part of the Shakenfist
// REST API: authentication, namespaces with their keys, metadata, trust
// and (2026) capacity claims, instances, networks, interfaces, nodes and
// (2026) cluster operations, over a few simulated hypervisors with CPU,
// memory and disk accounting.
//
// It speaks one of two server generations (Config.Generation):
//
//   - "2024": shakenfist/shakenfist develop da448b1a (2024-10-24) with
//     shakenfist-utilities 0.6.9; scheduler refusals follow the newer
//     capacity-refusal contract (shakenfist docs/operator_guide/
//     capacity_refusals.md at 0c24a714: 507 with stage, transient and
//     Retry-After, capacity_guard, hard affinity 409) over the 2024 texts,
//     unless LegacyRefusals asks for the 2024 server's plain
//     {"error","status"}.
//   - "2026" (the default): develop in 2026, where that contract lives
//     (#4241, 565e36e6e), with its scheduling texts, affinity order and
//     binary form, declarative validation, 411/413, scopes, node UUIDs,
//     power errors, health probes, asynchronous network deletes, claims
//     and /admin/resources.
//
// docs/shakenfist-generations.md says what each generation sends and
// accepts and which commit each behaviour was read from; the code cites
// the same commits where it implements them.
//
// Where it differs from a real server (see also docs/simulators.md): tokens are opaque strings, not JWTs; keys are kept in
// memory as sent, not bcrypt-hashed; artifacts, blobs, labels and uploads
// are kept (artifacts.go) but a cached URL fetches nothing and instances
// never boot from a blob; the agent runs a fixed set of commands
// (agent.go); no consoles other than the serial log, no federation; IPv4
// networks only; instances use all the RAM they ask
// for (no KSM sharing); the scheduler picks the node with the most idle
// vCPUs (after 2026's soft preferences) instead of ranking by load and
// shuffling; power actions, teardowns and cluster operations take
// simulated time, not a hypervisor's.
//
// It shares no types or strings with the client: it spells the wire format
// itself, so a client test against it catches a mismatch instead of hiding
// it.
package cluster

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// Config shapes one simulated cluster. DefaultConfig gives the defaults the
// `shakectl sim cluster` command documents.
type Config struct {
	// Listen is the address to serve on; "127.0.0.1:0" picks a free port.
	Listen string
	// Listener, when set, is served instead of listening on Listen (tests
	// serve the simulator on an in-memory listener inside a
	// testing/synctest bubble). Start takes ownership.
	Listener net.Listener

	// AuthNamespace and AuthKey are the only credentials POST /auth accepts.
	AuthNamespace string
	AuthKey       string
	// AuthKeyName is the name the key is listed under in /auth/namespaces.
	AuthKeyName string
	// TokenTTL is how long a bearer token from POST /auth stays valid
	// (API_TOKEN_DURATION, 15 minutes on a real server).
	TokenTTL time.Duration

	// The scheduler's arithmetic (shakenfist/config.py and scheduler.py,
	// da448b1a): a node takes vCPUs up to NodeCPUs × CPUOvercommit; memory
	// up to its size less RAMReservationGiB, and no more than
	// RAMOvercommit × its size; disk while MinFreeDiskGiB stays free.
	CPUOvercommit     float64
	RAMOvercommit     float64
	RAMReservationGiB float64
	MinFreeDiskGiB    int

	// Generation is the server the simulator speaks: Generation2026 (the
	// default, develop in 2026, where the capacity-refusal contract lives) or
	// Generation2024 (develop da448b1a, October 2024, the code behind the
	// v0.8 releases). docs/shakenfist-generations.md lists what differs.
	Generation string

	// LegacyRefusals applies to Generation2024 only. Without it the 2024
	// simulator refuses creates with the seed's stage, transient and
	// Retry-After (over the 2024 texts), which is how shakectl rehearsed
	// the contract before the 2026 generation existed; with it, exactly as
	// the 2024 server does: every scheduler refusal a 507 {"error",
	// "status"} and affinity only soft (no hard affinity 409). A 2026
	// server always sends the contract, so Validate refuses the pair.
	LegacyRefusals bool

	// NoFloatingNetwork models a 2024 cluster whose floating network
	// record does not exist yet (no network node has created it): the
	// first call that needs a floating address (float an interface, route
	// an address to a network or delete one, create an instance with a
	// floating interface) is the 2024 server's 500 server error:
	// AttributeError("'NoneType' object has no attribute 'ipam'"), and
	// creates the record, so the next call works. da448b1a network.py
	// floating_network() creates the record but returns what it read
	// before, None; the 2026 tree reads the record again (code index id
	// 62464603406), so Validate refuses this with the 2026 server.
	NoFloatingNetwork bool

	// AuthScopes are the scopes tokens minted from AuthKey carry
	// (Generation2026; "<family>.<verb>", "<family>.*", "cluster-admin").
	// Empty means the wildcard "*", as every key made before scopes
	// existed (docs/developer_guide/authentication.md @00b8f3e2).
	AuthScopes []string

	// NetworkOpErrors makes the next N network delete operations end in
	// state "error" instead of "complete" (Generation2026), so a client's
	// handling of a failed cluster operation can be rehearsed.
	NetworkOpErrors int

	// PowerFault, when set, makes every power on and power off of a 2026
	// server fail with 500 "instance failed to power on: <PowerFault>"
	// (tests/external_api/test_instance_power.py @12f0a5ee).
	PowerFault string

	// NetworkDeployTime is how long a new network stays "initial" before
	// the network node has deployed it and it reads "created".
	NetworkDeployTime time.Duration

	// Nodes is the number of hypervisors (node1..nodeN); zero is allowed so
	// that the pre_schedule refusal can be rehearsed.
	Nodes int
	// Per-hypervisor capacity: vCPUs (also the most one instance may ask
	// for), memory in MiB, instance disk in GiB.
	NodeCPUs      int
	NodeMemoryMiB int
	NodeDiskGiB   int
	// NonHypervisorNodes adds nodes (control1..controlM) that are listed but
	// never host instances; placing on one is refused at is_hypervisor.
	NonHypervisorNodes int
	// NodeTags gives nodes tags for hard affinity
	// (require_with_tag / require_without_tag), keyed by node name.
	NodeTags map[string][]string

	// RetryAfter is the Retry-After (seconds) sent with transient 507s. The
	// real server always sends 15; a rehearsal may shorten it.
	RetryAfter int
	// TeardownLag is how long a deleted instance keeps its capacity charged:
	// the seed's measured 5.3-5.6 s metrics lag.
	TeardownLag time.Duration
	// CreateTime is how long an instance takes from initial through
	// creating to created; networks take as long to tear down.
	CreateTime time.Duration
	// DeleteTime is how long an instance's node takes to carry out a
	// delete the API queued: until then the instance keeps its state and
	// everything it holds. 0 (the default) deletes at once; the capacity
	// is returned TeardownLag after the delete either way.
	DeleteTime time.Duration
	// ErrorCleanup is how long a refused create's error-state record (and
	// the addresses it holds) lingers before its delete is processed.
	ErrorCleanup time.Duration
	// AddressHalo is how long a released address stays unusable (the
	// deletion halo), so an exhausted pool does not recover on an
	// instance-teardown horizon.
	AddressHalo time.Duration
	// ArtifactFetchTime is how long a queued image fetch (POST /artifacts,
	// FetchImageTask) takes before the artifact reads "created" with its
	// first version; 0 fetches before the answer. A URL whose host is
	// under .invalid cannot be fetched (artifact_fetch.go).
	ArtifactFetchTime time.Duration

	// SnapshotTime is how long a node takes to write a snapshot's blob
	// (the queued SnapshotTask) after the API answered with its UUID:
	// until then the snapshot artifact made for it reads "initial" with
	// no version. 0: written before the answer.
	SnapshotTime time.Duration

	// AgentTransferStall makes the simulated agent's put and get (2026)
	// stall: they stay executing with no progress, so
	// progress_timeout_seconds (default 30) ends them expired with
	// expiry_reason "progress", or, with it 0, deadline_seconds with
	// "deadline". A 2024 server has no expiry: a stalled operation
	// executes until the client gives up.
	AgentTransferStall bool

	// AgentBoot is how long an instance's in-guest agent takes, once the
	// instance is created, to report ready (agent_state "ready"); until
	// then the view reads "not ready (no contact)" and agent operations
	// are refused 400 "instance agent not ready". 0: ready when created.
	AgentBoot time.Duration

	// Kerbside is a 2026 cluster with its Kerbside console proxy
	// configured (KERBSIDE_URL set): GET / then advertises
	// vdi-console-proxy, GET /instances/{ref}/vdiconsoleproxy mints
	// console tokens, and the simulator stands in for Kerbside's own
	// exchange endpoint at /kerbside/sf-console.vv on the same listener
	// (kerbside.go). Off, as on a cluster without Kerbside, the route
	// answers 404 and is not advertised.
	Kerbside bool

	// CPUHogs sets processes' CPU fractions on nodes, by node name, then
	// process metric name (e.g. "sf_network"), as GET
	// /nodes/{node}/processmetrics and the resources event report them;
	// the rest of each node's processes use little.
	CPUHogs map[string]map[string]float64

	// NoProcessMetrics is a cluster whose nodes' resources daemons have
	// not written process metrics (none runs, as on the recorded 2024 API
	// server, or none has run a pass yet): GET
	// /nodes/{node}/processmetrics answers {}, Node.process_metrics'
	// default.
	NoProcessMetrics bool

	// CapacityGuard switches on the capacity admission guard model: the
	// scheduler's resource filters read the nodes' measured usage, which
	// does not yet include instances still being created, while the guard
	// checks the exact ledger. Back-to-back creates then pass the filters
	// and are refused at capacity_guard, as in a concurrent placement race.
	CapacityGuard bool

	// Script is a sequence of canned answers for POST /instances, one per
	// authenticated request, in order; when it runs out, normal scheduling
	// resumes.
	Script []ScriptedAnswer

	// Log, when set, gets one line per request (never a token or key).
	Log io.Writer
}

// DefaultConfig is a small cluster that fills up quickly enough to rehearse
// capacity refusals by hand.
func DefaultConfig() Config {
	return Config{
		Listen:            "127.0.0.1:13000",
		Generation:        Generation2026,
		AuthNamespace:     "system",
		AuthKey:           "demo",
		AuthKeyName:       "deploy",
		TokenTTL:          15 * time.Minute,
		CPUOvercommit:     16,
		RAMOvercommit:     3,
		RAMReservationGiB: 2,
		MinFreeDiskGiB:    20,
		NetworkDeployTime: 500 * time.Millisecond,
		Nodes:             3,
		NodeCPUs:          8,
		NodeMemoryMiB:     16384,
		NodeDiskGiB:       200,
		RetryAfter:        15,
		TeardownLag:       5500 * time.Millisecond,
		CreateTime:        time.Second,
		ErrorCleanup:      2 * time.Second,
		AddressHalo:       time.Minute,
		ArtifactFetchTime: 500 * time.Millisecond,
	}
}

// Bounds that keep a typo from asking for a simulator nobody wants, and
// keep every sum the ledger makes inside an int64.
const (
	maxNodes      = 1000
	maxRetryAfter = 86400
	// maxNodeCPUs etc. bound one node's size; maxSchedulable bounds a
	// node's memory after overcommit (a thousand nodes of it still sum
	// far below 2^63).
	maxNodeCPUs      = 1 << 20
	maxNodeMemoryMiB = 1 << 40
	maxNodeDiskGiB   = 1 << 40
	maxSchedulable   = 1 << 48
	maxOvercommit    = 1000
	maxTokenTTL      = 366 * 24 * time.Hour
	maxSimDuration   = 7 * 24 * time.Hour
	maxNetworkOpErrs = 1_000_000
)

// The bounds as `shakectl sim cluster` declares its flags' ranges with
// them, before Validate sees a value.
const (
	MaxNodes         = maxNodes
	MaxRetryAfter    = maxRetryAfter
	MaxNodeCPUs      = maxNodeCPUs
	MaxNodeMemoryMiB = maxNodeMemoryMiB
	MaxNodeDiskGiB   = maxNodeDiskGiB
	MaxOvercommit    = maxOvercommit
	MaxTokenTTL      = maxTokenTTL
	MaxSimDuration   = maxSimDuration
	MaxNetworkOpErrs = maxNetworkOpErrs
)

var (
	// Compiled on first use, not at start-up: every shakectl command links
	// this package, and the {0,61} repetition alone costs milliseconds.
	dnsLabel = lazyRegexp(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)
	tagRE    = lazyRegexp(`^[A-Za-z0-9_.:-]{1,63}$`)
	scopeRE  = lazyRegexp(`^(\*|cluster-admin|[a-z]+\.(\*|read|write|delete|console))$`)
)

// NodeNames lists the simulated nodes in order: hypervisors first.
func (c Config) NodeNames() []string {
	names := make([]string, 0, c.Nodes+c.NonHypervisorNodes)
	for i := 1; i <= c.Nodes; i++ {
		names = append(names, "node"+strconv.Itoa(i))
	}
	for i := 1; i <= c.NonHypervisorNodes; i++ {
		names = append(names, "control"+strconv.Itoa(i))
	}
	return names
}

// Validate reports the first thing wrong with the configuration, worded for
// the person who typed the flag: a setting is named as a fielderr {Field}
// placeholder, which the command renders as its flag.
func (c Config) Validate() error {
	switch c.Generation {
	case Generation2024, Generation2026:
	default:
		return fmt.Errorf("invalid server generation %q: want %s or %s", c.Generation, Generation2024, Generation2026)
	}
	if c.Kerbside && c.Generation != Generation2026 {
		return fielderr.Errorf("the Kerbside console proxy is a 2026 feature: choose the 2026 server ({Generation} 2026) to use it")
	}
	if c.LegacyRefusals && c.Generation != Generation2024 {
		return fielderr.Errorf("legacy refusals are a 2024 behaviour: a 2026 server always sends stage and transient; choose the 2024 server ({Generation} 2024) to use them")
	}
	if c.NoFloatingNetwork && c.Generation != Generation2024 {
		return fielderr.Errorf("a missing floating network record breaks only the 2024 server (its first float answers 500); a 2026 server creates the record and carries on: choose the 2024 server ({Generation} 2024) to use it")
	}
	for _, sc := range c.AuthScopes {
		if !scopeRE.MatchString(sc) {
			return fmt.Errorf("invalid auth scope %q: want FAMILY.VERB (read, write, delete, console), FAMILY.*, cluster-admin or *", sc)
		}
	}
	if c.NetworkOpErrors < 0 || c.NetworkOpErrors > maxNetworkOpErrs {
		return fmt.Errorf("invalid network operation error count %d: want 0 to %d", c.NetworkOpErrors, maxNetworkOpErrs)
	}
	if strings.ContainsAny(c.PowerFault, "\r\n") || len(c.PowerFault) > 200 {
		return errors.New("the power fault text must be one line of at most 200 bytes")
	}
	_, port, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return fmt.Errorf("invalid listen address %q: want HOST:PORT, e.g. 127.0.0.1:13000", c.Listen)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("invalid listen address %q: port must be a number from 0 to 65535", c.Listen)
	}
	if !dnsLabel.MatchString(c.AuthNamespace) {
		return fmt.Errorf("invalid auth namespace %q: use letters, digits and hyphens", c.AuthNamespace)
	}
	if c.AuthKey == "" {
		return errors.New("the auth key must not be empty")
	}
	if c.AuthKeyName != "" && !dnsLabel.MatchString(c.AuthKeyName) {
		return fmt.Errorf("invalid auth key name %q: use letters, digits and hyphens", c.AuthKeyName)
	}
	if c.TokenTTL <= 0 || c.TokenTTL > maxTokenTTL {
		return fmt.Errorf("invalid token TTL %s: want more than 0 and at most %s", c.TokenTTL, maxTokenTTL)
	}
	if c.Nodes < 0 || c.Nodes > maxNodes {
		return fmt.Errorf("invalid node count %d: want 0 to %d", c.Nodes, maxNodes)
	}
	if c.NonHypervisorNodes < 0 || c.NonHypervisorNodes > maxNodes {
		return fmt.Errorf("invalid non-hypervisor node count %d: want 0 to %d", c.NonHypervisorNodes, maxNodes)
	}
	for _, v := range []struct {
		name string
		n    int
		max  int64
	}{{"node CPUs", c.NodeCPUs, maxNodeCPUs}, {"node memory (MiB)", c.NodeMemoryMiB, maxNodeMemoryMiB}, {"node disk (GiB)", c.NodeDiskGiB, maxNodeDiskGiB}} {
		if v.n < 1 || int64(v.n) > v.max {
			return fmt.Errorf("invalid %s %d: want 1 to %d", v.name, v.n, v.max)
		}
	}
	// NaN compares false with everything, so each ratio is checked for
	// being a finite number first; otherwise NaN would pass both bounds.
	for _, v := range []struct {
		name string
		f    float64
	}{{"CPU overcommit", c.CPUOvercommit}, {"RAM overcommit", c.RAMOvercommit}} {
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) || v.f <= 0 || v.f > maxOvercommit {
			return fmt.Errorf("invalid %s ratio %g: want a number more than 0 and at most %d", v.name, v.f, maxOvercommit)
		}
	}
	if math.IsNaN(c.RAMReservationGiB) || math.IsInf(c.RAMReservationGiB, 0) || c.RAMReservationGiB < 0 || c.RAMReservationGiB > maxNodeMemoryMiB/1024 {
		return fmt.Errorf("invalid RAM reservation %g GiB: want a number from 0 to %d", c.RAMReservationGiB, maxNodeMemoryMiB/1024)
	}
	if c.MinFreeDiskGiB < 0 || int64(c.MinFreeDiskGiB) > maxNodeDiskGiB {
		return fmt.Errorf("invalid minimum free disk %d GiB: want 0 to %d", c.MinFreeDiskGiB, int64(maxNodeDiskGiB))
	}
	// CPUs are bounded by maxNodeCPUs × maxOvercommit (2^30); memory can
	// reach 2^40 × 1000, so its product is bounded too.
	if mem := float64(c.NodeMemoryMiB) * c.RAMOvercommit; mem > maxSchedulable {
		return fmt.Errorf("invalid node size: %d MiB at RAM overcommit %g is %g schedulable MiB, more than the simulator counts (%d)", c.NodeMemoryMiB, c.RAMOvercommit, mem, int64(maxSchedulable))
	}
	if c.RetryAfter < 0 || c.RetryAfter > maxRetryAfter {
		return fmt.Errorf("invalid retry-after %d: want 0 to %d seconds", c.RetryAfter, maxRetryAfter)
	}
	for _, v := range []struct {
		name string
		d    time.Duration
	}{{"teardown lag", c.TeardownLag}, {"create time", c.CreateTime}, {"delete time", c.DeleteTime}, {"error cleanup", c.ErrorCleanup}, {"address halo", c.AddressHalo}, {"network deploy time", c.NetworkDeployTime}, {"artifact fetch time", c.ArtifactFetchTime}, {"snapshot time", c.SnapshotTime}, {"agent boot", c.AgentBoot}} {
		if v.d < 0 || v.d > maxSimDuration {
			return fmt.Errorf("invalid %s %s: want 0 to %s", v.name, v.d, maxSimDuration)
		}
	}
	known := map[string]bool{}
	for _, n := range c.NodeNames() {
		known[n] = true
	}
	for _, name := range sortedKeys(c.NodeTags) {
		if !known[name] {
			return fielderr.Errorf("tags for unknown node %q: the nodes are "+describeNodes(c), name)
		}
		for _, t := range c.NodeTags[name] {
			if !tagRE.MatchString(t) {
				return fmt.Errorf("invalid tag %q for node %s: use letters, digits, '-', '_', '.' or ':'", t, name)
			}
		}
	}
	for i, a := range c.Script {
		if err := a.validate(); err != nil {
			return fmt.Errorf("script entry %d: %w", i+1, err)
		}
	}
	return nil
}

func describeNodes(c Config) string {
	names := c.NodeNames()
	switch {
	case len(names) == 0:
		return "none ({Nodes} 0)"
	case len(names) > 6:
		return strings.Join(names[:3], ", ") + ", … " + names[len(names)-1]
	}
	return strings.Join(names, ", ")
}

// ParseNodeTags reads the flag form NODE=TAG[,TAG...], e.g. node1=ssd,gpu;
// repeating a node adds tags.
func ParseNodeTags(specs []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, spec := range specs {
		name, tags, ok := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.TrimSpace(tags) == "" {
			return nil, fmt.Errorf("invalid node tags %q: want NODE=TAG[,TAG...], e.g. node1=ssd,gpu", spec)
		}
		for _, t := range strings.Split(tags, ",") {
			t = strings.TrimSpace(t)
			if !tagRE.MatchString(t) {
				return nil, fmt.Errorf("invalid tag %q in %q: use letters, digits, '-', '_', '.' or ':'", t, spec)
			}
			out[name] = append(out[name], t)
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lazyRegexp is a regexp compiled the first time it is matched.
type lazyRegexp string

var compiled sync.Map // lazyRegexp → *regexp.Regexp

// MatchString reports whether s matches the expression.
func (l lazyRegexp) MatchString(s string) bool {
	re, ok := compiled.Load(l)
	if !ok {
		re, _ = compiled.LoadOrStore(l, regexp.MustCompile(string(l)))
	}
	return re.(*regexp.Regexp).MatchString(s)
}
