package cluster

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Instance states, as the real server names them.
// (shakenfist/instance.py and baseobject.py, da448b1a).
const (
	stateInitial    = "initial"
	statePreflight  = "preflight"
	stateCreating   = "creating"
	stateCreated    = "created"
	stateError      = "error"
	stateDeleted    = "deleted"
	stateDeleteWait = "delete-wait"
)

// isErrorState covers "error" and the "<state>-error" states a failed
// create leaves (instance.enqueue_delete_due_error).
func isErrorState(state string) bool {
	return state == stateError || strings.HasSuffix(state, "-error")
}

// stageTransient lists the scheduler stages a 507 can name and whether
// waiting can plausibly help, as the capacity-refusal contract classifies
// them. The simulator's scheduler produces cpu, memory, disk, the three
// structural stages and capacity_guard; the rest can be scripted.
var stageTransient = map[string]bool{
	"sufficient_idle_cpu":    true,
	"sufficient_idle_memory": true,
	"sufficient_free_disk":   true,
	"sufficient_idle_disk":   true,
	"queue_state":            true,
	"capacity_guard":         true,
	"cpu_max_per_instance":   false,
	"is_hypervisor":          false,
	"pre_schedule":           false,
	"unknown":                false,
}

// stageMessage is the LowResourceException text for each stage: the 2024
// scheduler's own texts (shakenfist/scheduler.py, da448b1a) where it has the
// stage; the seed's newer stages (queue_state refusing, idle disk, the
// guard) have texts of the simulator's own.
var stageMessage = map[string]string{
	"sufficient_idle_cpu":    "No nodes with enough idle CPU",
	"sufficient_idle_memory": "No nodes with enough idle RAM",
	"sufficient_free_disk":   "No nodes with enough disk space",
	"sufficient_idle_disk":   "No nodes with enough idle disk throughput",
	"queue_state":            "No nodes with a reasonable work queue",
	"capacity_guard":         "The capacity admission guard refused every candidate",
	"cpu_max_per_instance":   "Requested vCPUs exceeds vCPU limit",
	"is_hypervisor":          "No nodes with metrics",
	"pre_schedule":           "No nodes with metrics",
	"unknown":                "Scheduling failed",
}

// usage is an amount of the three resources the scheduler measures.
type usage struct{ cpus, memory, disk int64 }

func (u usage) plus(o usage) usage {
	return usage{u.cpus + o.cpus, u.memory + o.memory, u.disk + o.disk}
}

func (u usage) minus(o usage) usage {
	return usage{u.cpus - o.cpus, u.memory - o.memory, u.disk - o.disk}
}

func (u usage) fitsIn(capacity usage) bool {
	return u.cpus <= capacity.cpus && u.memory <= capacity.memory && u.disk <= capacity.disk
}

type node struct {
	name       string
	uuid       string
	deleted    bool // DELETE /nodes/{node}: listed as deleted, never a candidate
	ip         string
	hypervisor bool
	tags       []string
	// capacity is what the scheduler lets instances take: vCPUs × the CPU
	// overcommit ratio, memory less the system reservation (and within the
	// RAM overcommit ratio), disk less the minimum free disk.
	capacity usage
	metadata map[string]any
	// cpuMaxPerInstance is the node's cpu_max_per_instance metric.
	cpuMaxPerInstance int64
	// used is the ledger: charged in the same step that places an
	// instance, released when its teardown completes.
	used usage
	// measured is what the node's metrics report: instances count once
	// they reach created, and stop counting when their teardown completes.
	measured usage
	events   []event
}

// event is one event-log entry as eventlog.read_events yields it
// (shakenfist/eventlog.py, da448b1a).
type event struct {
	Type      string   `json:"type"`
	Timestamp float64  `json:"timestamp"`
	FQDN      string   `json:"fqdn"`
	Duration  *float64 `json:"duration"`
	Message   string   `json:"message"`
	Extra     any      `json:"extra"`
}

// maxEvents bounds one instance's event trail.
const maxEvents = 200

type instance struct {
	uuid         string
	seq          uint64
	spec         *instanceSpec
	namespace    string
	node         string
	state        string
	stateUpdated time.Time
	powerState   string
	errorMessage *string
	// charged: the instance holds ledger capacity on node.
	charged bool
	// measured: the instance shows in its node's measured usage.
	measured bool
	addrs    []heldAddress
	ifaces   []*iface
	events   []event
}

type heldAddress struct {
	net    *network
	offset uint32
}

// iface is a network interface (shakenfist/networkinterface.py, version 3).
type iface struct {
	uuid, state, network, instance, mac, ipv4, model string
	floating                                         *string
	order                                            int
	metadata                                         map[string]any
}

func (i *instance) need() usage {
	return usage{cpus: int64(math.Ceil(i.spec.cpuN)), memory: int64(math.Ceil(i.spec.memN)), disk: i.spec.diskGiB}
}

// apiFQDN is the name events record for work done by the API itself.
const apiFQDN = "sim-api"

// addEvent records an audit event; extra is the event's structured detail.
func (s *Server) addEvent(i *instance, fqdn, msg string, extra any) {
	if len(i.events) >= maxEvents {
		i.events = slices.Delete(i.events, 0, 1)
	}
	i.events = append(i.events, event{
		Type:      "audit",
		Timestamp: epoch(time.Now()),
		FQDN:      fqdn,
		Message:   msg,
		Extra:     extra,
	})
}

func epoch(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

func (s *Server) setState(i *instance, state string) {
	i.state = state
	i.stateUpdated = time.Now()
}

// stageRefusal is a scheduler refusal: the seed's 507 with stage, transient
// and Retry-After by default; with --legacy-refusals the 2024 server's
// {"error", "status"} and nothing else.
func (s *Server) stageRefusal(stage string) *apiError {
	msg := stageMessage[stage]
	if s.is2026() {
		msg = stageMessage2026(stage)
		if stage == "capacity_guard" {
			msg = guardMessage(s.cfg.Nodes)
		}
	}
	if s.cfg.LegacyRefusals {
		return &apiError{status: http.StatusInsufficientStorage, msg: msg}
	}
	e := &apiError{
		status:    http.StatusInsufficientStorage,
		msg:       msg,
		stage:     stage,
		hasStage:  true,
		transient: stageTransient[stage],
	}
	if e.transient {
		e.header = http.Header{"Retry-After": {strconv.Itoa(s.cfg.RetryAfter)}}
	}
	return e
}

// congested is ipam's CongestedNetwork, passed through as a 507 with no
// stage in every version.
func congested() *apiError {
	return &apiError{status: http.StatusInsufficientStorage, msg: "No free addresses on network"}
}

// createInstance is the stateful half of POST /instances, in the order
// InstancesEndpoint.post (da448b1a) checks things, run under s.mu so that
// checking capacity, charging it and recording the placement are one step.
func (s *Server) createInstance(body map[string]any, caller string, scripted *ScriptedAnswer) (*instance, *apiError) {
	spec := &instanceSpec{namespace: caller}
	if ns, _ := body["namespace"].(string); truthy(body["namespace"]) {
		if !s.namespaceUsable(caller, ns) {
			return nil, notFound("namespace not found")
		}
		spec.namespace = ns
	}
	if err := checkName(body["name"]); err != nil {
		return nil, err
	}
	spec.name = body["name"].(string)
	if truthy(body["secure_boot"]) && !truthy(body["uefi"]) {
		return nil, badRequest("secure boot requires UEFI be enabled")
	}
	if truthy(body["placed_on"]) {
		ref, _ := body["placed_on"].(string)
		n := s.findNode(ref)
		if n == nil {
			if s.is2026() { // the 2026 texts name the node (shakenfist-2026.md 1.2)
				return nil, notFound("Specified node %s does not exist", truncate(ref))
			}
			return nil, notFound("Specified node does not exist")
		}
		if n.deleted { // a node that is not "created"
			if s.is2026() {
				return nil, notFound("Specified node %s not ready", n.uuid)
			}
			return nil, notFound("Specified node not ready")
		}
		spec.placedOn = n.name
	}
	spec.configdrive = "openstack-disk"
	if truthy(body["configdrive"]) {
		cd, _ := body["configdrive"].(string)
		if cd != "openstack-disk" && cd != "none" {
			return nil, badRequest(`invalid config drive type: "%v"`, truncate(fmt.Sprint(body["configdrive"])))
		}
		spec.configdrive = cd
	}
	disks, diskGiB, err := checkDisks(body["disk"])
	if err != nil {
		return nil, err
	}
	spec.disks, spec.diskGiB = disks, diskGiB
	nets, err := checkNetworks(body["network"])
	if err != nil {
		return nil, err
	}
	spec.networks = nets
	found := make([]*network, len(nets))
	for k, want := range nets {
		n, err := s.findNetwork(want.ref, caller, false)
		if err != nil && err.status != http.StatusNotFound {
			return nil, err // several networks with that name
		}
		if err != nil {
			return nil, notFound("network %s not found", truncate(want.ref))
		}
		if want.address.IsValid() && !n.prefix.Contains(want.address) {
			return nil, badRequest("network specification requests an address outside the range of the network")
		}
		if n.state != stateCreated {
			return nil, &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("network %s is not ready (%s)", n.uuid, n.state)}
		}
		if n.namespace != spec.namespace {
			return nil, notFound("network %s does not exist", n.uuid)
		}
		found[k] = n
	}
	spec.video = map[string]any{"model": "cirrus", "memory": json.Number("16384"), "vdi": "spice"}
	if truthy(body["video"]) {
		v, _ := body["video"].(map[string]any)
		if _, ok := v["model"]; !ok {
			return nil, badRequest(`video specification requires "model"`)
		}
		if _, ok := v["memory"]; !ok {
			return nil, badRequest(`video specification requires "memory"`)
		}
		if _, ok := v["vdi"]; !ok {
			v["vdi"] = "spice"
		}
		spec.video = v
	}
	md, aff, err := s.checkMetadata(body["metadata"])
	if err != nil {
		return nil, err
	}
	spec.metadata, spec.affinity = md, aff
	spec.cpus, spec.memory = body["cpus"], body["memory"]
	spec.sshKey, spec.userData = body["ssh_key"], body["user_data"]
	spec.uefi, spec.secureBoot = orFalse(body["uefi"]), orFalse(body["secure_boot"])
	spec.nvram, spec.sideChannels = body["nvram_template"], body["side_channels"]
	if spec.sideChannels == nil {
		spec.sideChannels = []any{"sf-agent"}
		if s.is2026() { // the 2026 default (shakenfist-2026.md 2.3)
			spec.sideChannels = []any{"sf-agent", "sf-agent2"}
		}
	}

	s.seq++
	now := time.Now()
	i := &instance{
		uuid:         newUUID(),
		seq:          s.seq,
		spec:         spec,
		namespace:    spec.namespace,
		state:        stateInitial,
		stateUpdated: now,
		powerState:   "initial",
	}
	s.instances[i.uuid] = i
	s.addEvent(i, apiFQDN, "create request from REST API", nil)
	if spec.affinity.weighted {
		s.addEvent(i, apiFQDN, "instance uses the deprecated weighted affinity form; the magnitude is ignored", nil)
	}

	// Addresses are allocated before scheduling, as the real server does;
	// a refusal after this point keeps them until its delete is processed.
	for k, want := range nets {
		n := found[k]
		ifc := &iface{uuid: newUUID(), state: stateCreated, network: n.uuid, instance: i.uuid,
			mac: want.mac, model: want.model, order: k, metadata: map[string]any{}}
		if ifc.mac == "" {
			ifc.mac = randomMAC()
		}
		if ifc.model == "" {
			ifc.model = "virtio"
		}
		switch {
		case want.none:
		case want.address.IsValid():
			off, err := n.reserve(want.address, i.uuid, now, s.cfg.AddressHalo)
			if err != nil {
				return i, s.failCreate(i, err, "failed to reserve an IP on network "+n.uuid)
			}
			i.addrs = append(i.addrs, heldAddress{n, off})
			ifc.ipv4 = want.address.String()
		default:
			off, ok := n.reserveAny(i.uuid, now, s.cfg.AddressHalo)
			if !ok {
				return i, s.failCreate(i, congested(), "cannot allocate address: No free addresses on network")
			}
			i.addrs = append(i.addrs, heldAddress{n, off})
			ifc.ipv4 = n.address(off).String()
			s.addEvent(i, apiFQDN, "allocated ip address", map[string]any{"network_uuid": n.uuid, "address": ifc.ipv4})
		}
		if want.float {
			s.floatSeq++
			f := fmt.Sprintf("192.168.%d.%d", 10+s.floatSeq/250, s.floatSeq%250+2)
			ifc.floating = &f
		}
		i.ifaces = append(i.ifaces, ifc)
		s.ifaces[ifc.uuid] = ifc
	}

	if scripted != nil && scripted.Refuse != "" {
		s.addEvent(i, apiFQDN, "schedule failed, insufficient resources", map[string]any{"message": "refusal taken from the --script sequence"})
		if scripted.Refuse == stageCongestedNetwork {
			return i, s.failCreate(i, congested(), "cannot allocate address: No free addresses on network")
		}
		return i, s.failCreate(i, s.stageRefusal(scripted.Refuse), "scheduling failed")
	}

	n, refusal := s.schedule(i)
	if refusal != nil {
		s.addEvent(i, apiFQDN, "schedule failed, insufficient resources", map[string]any{"message": refusal.msg})
		if refusal.hasStage { // the seed's audit event
			s.addEvent(i, apiFQDN, "schedule has no candidates at stage "+refusal.stage, nil)
		}
		return i, s.failCreate(i, refusal, "scheduling failed")
	}
	need := i.need()
	n.used = n.used.plus(need)
	i.charged = true
	i.node = n.name
	n.events = appendEvent(n.events, n.name, "instance placed", map[string]any{"instance_uuid": i.uuid})
	s.startCreating(i, n)
	return i, nil
}

func orFalse(v any) any {
	if v == nil {
		return false
	}
	return v
}

func randomMAC() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("02:00:00:%02x:%02x:%02x", b[0], b[1], b[2])
}

// failCreate is enqueue_delete_due_error: the record goes to
// "<state>-error" with the reason as error_message, holding any addresses
// it was given until its delete is processed shortly after. It never holds
// capacity: nothing is charged before placement succeeds.
func (s *Server) failCreate(i *instance, err *apiError, why string) *apiError {
	msg := why
	i.errorMessage = &msg
	s.setState(i, i.state+"-error")
	s.after(s.cfg.ErrorCleanup, func() {
		if isErrorState(i.state) {
			s.deleteInstance(i, "deleted after a failed create")
		}
	})
	return err
}

// schedule runs Scheduler.find_candidates' filters in their order (da448b1a)
// and returns the node to place on, or the refusal naming the stage that
// eliminated the last candidate. The seed's hard affinity filter sits before
// the resource filters. Callers hold s.mu.
func (s *Server) schedule(i *instance) (*node, *apiError) {
	spec := i.spec
	var cands []*node
	if spec.placedOn != "" {
		cands = []*node{s.nodeByName[spec.placedOn]}
		s.addEvent(i, apiFQDN, "schedule forced candidates", map[string]any{"candidates": nodeList(cands)})
	} else {
		cands = filter(s.nodes, func(n *node) bool { return !n.deleted })
	}
	s.addEvent(i, apiFQDN, "schedule initial candidates", map[string]any{"candidates": nodeList(cands)})
	if len(cands) == 0 {
		return nil, s.stageRefusal("pre_schedule")
	}
	cands = filter(cands, func(n *node) bool { return n.hypervisor })
	s.addEvent(i, apiFQDN, "schedule are hypervisors", map[string]any{"candidates": nodeList(cands)})
	if len(cands) == 0 {
		return nil, s.stageRefusal("is_hypervisor")
	}

	// 2024 (today's simulator): the seed's hard affinity before any
	// resource stage, with the simulator's own text.
	if !s.is2026() && !spec.affinity.empty() {
		cands = filter(cands, func(n *node) bool { return spec.affinity.satisfiedBy(n.tags) })
		if len(cands) == 0 {
			return nil, &apiError{status: http.StatusConflict, msg: "No node satisfies the hard affinity constraint (" + spec.affinity.String() + ")"}
		}
	}

	// cpus and memory reach the scheduler as sent: Python compares them
	// with numbers, so a non-number is a TypeError (400).
	cpuN, ok := number(spec.cpus)
	if !ok {
		return nil, badRequest("'>' not supported between instances of '%s' and 'int'", pyType(spec.cpus))
	}
	memN, ok := number(spec.memory)
	if !ok {
		return nil, badRequest("unsupported operand type(s) for -: 'float' and '%s'", pyType(spec.memory))
	}
	// A simulator limit: its ledger cannot hold negative or absurd sizes.
	for _, v := range []struct {
		name string
		n    float64
	}{{"cpus", cpuN}, {"memory", memN}, {"disk", float64(spec.diskGiB)}} {
		if v.n < 0 || v.n > 1<<40 {
			return nil, badRequest("%s %g is outside what the simulator can count (0 to 2^40)", v.name, v.n)
		}
	}
	spec.cpuN, spec.memN = cpuN, memN
	need := i.need()

	cands = filter(cands, func(n *node) bool { return cpuN <= float64(n.cpuMaxPerInstance) })
	s.addEvent(i, apiFQDN, "schedule have enough actual cpu", map[string]any{"candidates": nodeList(cands)})
	if len(cands) == 0 {
		return nil, s.stageRefusal("cpu_max_per_instance")
	}

	// The resource filters read what the nodes report. With the capacity
	// guard modelled, that is the measured usage, which lags placements.
	seen := func(n *node) usage { return n.used }
	if s.guard {
		seen = func(n *node) usage { return n.measured }
	}
	for _, st := range []struct {
		stage, what string
		get         func(usage) int64
	}{
		{"sufficient_idle_cpu", "cpu", func(u usage) int64 { return u.cpus }},
		{"sufficient_idle_memory", "ram", func(u usage) int64 { return u.memory }},
		{"sufficient_free_disk", "disk", func(u usage) int64 { return u.disk }},
	} {
		cands = filter(cands, func(n *node) bool { return st.get(seen(n))+st.get(need) <= st.get(n.capacity) })
		s.addEvent(i, apiFQDN, "schedule have enough idle "+st.what, map[string]any{"candidates": nodeList(cands)})
		if len(cands) == 0 {
			return nil, s.stageRefusal(st.stage)
		}
	}

	// 2026: hard affinity comes after the resource stages
	// (Scheduler.find_candidates, newest scheduler.py), so a full cluster
	// with an impossible constraint is refused 507 at a resource stage;
	// the 409 names the stage only in its text, with sorted Python reprs
	// of the tag lists (_hard_affinity_description).
	if s.is2026() && !spec.affinity.empty() {
		cands = filter(cands, func(n *node) bool { return spec.affinity.satisfiedBy(n.tags) })
		s.addEvent(i, apiFQDN, "schedule meet affinity constraints", map[string]any{"candidates": nodeList(cands)})
		if len(cands) == 0 {
			return nil, &apiError{status: http.StatusConflict, msg: "No nodes remaining at scheduling stage affinity_constraints: " + spec.affinity.pyDescription()}
		}
	}

	// The seed's admission guard checks the exact ledger; it can only
	// disagree with the filters when they read lagging measurements.
	ranked := len(cands)
	cands = filter(cands, func(n *node) bool { return n.used.plus(need).fitsIn(n.capacity) })
	if len(cands) == 0 {
		e := s.stageRefusal("capacity_guard")
		if s.is2026() {
			e.msg = guardMessage(ranked)
			s.addEvent(i, apiFQDN, "schedule failed, every candidate refused by capacity guard", nil)
		}
		return nil, e
	}

	// The real scheduler ranks by soft affinity and CPU load, then
	// shuffles; the simulator takes the node with the most idle vCPUs,
	// then the first by name, so runs are repeatable.
	// 2026's binary soft affinity (prefer_with_tag, prefer_without_tag)
	// ranks first: the nodes meeting most preferences.
	best := cands[0]
	for _, n := range cands[1:] {
		pn, pb := spec.affinity.preferenceScore(n.tags), spec.affinity.preferenceScore(best.tags)
		if pn > pb || (pn == pb && n.capacity.cpus-n.used.cpus > best.capacity.cpus-best.used.cpus) {
			best = n
		}
	}
	s.addEvent(i, apiFQDN, "schedule final candidates", map[string]any{"candidates": []string{best.name}})
	return best, nil
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case bool: // Python's bool is an int
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func filter(nodes []*node, keep func(*node) bool) []*node {
	out := nodes[:0:0]
	for _, n := range nodes {
		if keep(n) {
			out = append(out, n)
		}
	}
	return out
}

func nodeList(nodes []*node) []string {
	names := make([]string, len(nodes))
	for k, n := range nodes {
		names[k] = n.name
	}
	return names
}

// startCreating moves a placed instance through preflight and creating to
// created (power state initial → on) over the create time; on created it
// starts to show in its node's metrics.
func (s *Server) startCreating(i *instance, n *node) {
	s.after(s.cfg.CreateTime/3, func() {
		if i.state == stateInitial {
			s.setState(i, statePreflight)
		}
	})
	s.after(2*s.cfg.CreateTime/3, func() {
		if i.state == statePreflight {
			s.setState(i, stateCreating)
		}
	})
	s.after(s.cfg.CreateTime, func() {
		if i.state != stateInitial && i.state != statePreflight && i.state != stateCreating {
			return
		}
		s.setState(i, stateCreated)
		i.powerState = "on"
		if i.charged && !i.measured {
			i.measured = true
			n.measured = n.measured.plus(i.need())
		}
		s.addEvent(i, n.name, "instance creation complete", nil)
	})
}

// deleteInstance marks the instance deleted at once, releases its
// addresses into the deletion halo, and returns its capacity after the
// teardown lag. Callers hold s.mu.
func (s *Server) deleteInstance(i *instance, why string) {
	s.setState(i, stateDeleted)
	i.powerState = "off"
	s.addEvent(i, apiFQDN, why, nil)
	now := time.Now()
	for _, a := range i.addrs {
		a.net.release(a.offset, i.uuid, now, s.cfg.AddressHalo)
		s.finishNetworkDelete(a.net)
	}
	i.addrs = nil
	for _, f := range i.ifaces {
		f.state = stateDeleted
		delete(s.ifaces, f.uuid)
	}
	if i.charged {
		if s.cfg.TeardownLag == 0 {
			s.teardown(i)
		} else {
			s.after(s.cfg.TeardownLag, func() { s.teardown(i) })
		}
	}
	s.deleted = append(s.deleted, i.uuid)
	s.pruneDeleted()
}

func (s *Server) teardown(i *instance) {
	if !i.charged {
		return
	}
	n := s.nodeByName[i.node]
	need := i.need()
	n.used = n.used.minus(need)
	if i.measured {
		n.measured = n.measured.minus(need)
		i.measured = false
	}
	i.charged = false
	s.addEvent(i, n.name, "instance delete complete", nil)
}

// maxDeletedKept bounds how many deleted instance records stay visible
// (GET /instances with all, or by UUID).
const maxDeletedKept = 5000

func (s *Server) pruneDeleted() {
	for len(s.deleted) > maxDeletedKept {
		i := s.instances[s.deleted[0]]
		if i != nil && i.charged {
			return // still tearing down; its record anchors the ledger
		}
		delete(s.instances, s.deleted[0])
		s.deleted = s.deleted[1:]
	}
}

func (s *Server) namespaceUsable(caller, ns string) bool {
	if caller == adminNamespace {
		return s.nsLive(ns)
	}
	return ns == caller
}

func visible(caller, ns string) bool {
	return caller == adminNamespace || caller == ns
}

// findInstance resolves a UUID (deleted instances included) or a name
// (live instances only) visible to the caller.
func (s *Server) findInstance(ref, caller string) (*instance, *apiError) {
	if i, ok := s.instances[ref]; ok && visible(caller, i.namespace) {
		return i, nil
	}
	var match []*instance
	for _, i := range s.instances {
		if i.spec.name == ref && i.state != stateDeleted && visible(caller, i.namespace) {
			match = append(match, i)
		}
	}
	switch len(match) {
	case 0:
		return nil, notFound("instance not found")
	case 1:
		return match[0], nil
	}
	return nil, ambiguousName("instance", ref, caller)
}

// findNetwork resolves a UUID or a name; names only match live networks.
func (s *Server) findNetwork(ref, caller string, deletedToo bool) (*network, *apiError) {
	if n, ok := s.networks[ref]; ok && visible(caller, n.namespace) && (deletedToo || n.state != stateDeleted) {
		return n, nil
	}
	var match []*network
	for _, n := range s.networks {
		if n.name == ref && n.state != stateDeleted && visible(caller, n.namespace) {
			match = append(match, n)
		}
	}
	switch len(match) {
	case 0:
		return nil, notFound("network not found")
	case 1:
		return match[0], nil
	}
	return nil, ambiguousName("network", ref, caller)
}

// ambiguousName is the 400 for a name two live objects share, as
// from_db_by_ref raises it (shakenfist da448b1a baseobject.py, through
// external_api/base.py and instance.py with the caller's namespace).
func ambiguousName(kind, ref, caller string) *apiError {
	return badRequest(`multiple %ss have the name "%s" in namespace "%s"`, kind, ref, caller)
}

// after runs fn under s.mu once d has passed, unless the server has closed
// by then. Callers hold s.mu.
func (s *Server) after(d time.Duration, fn func()) {
	if s.closed {
		return
	}
	s.timerSeq++
	id := s.timerSeq
	s.timers[id] = time.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		delete(s.timers, id)
		fn()
	})
}
