package cluster

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Instance states, as the real server names them.
const (
	stateInitial  = "initial"
	stateCreating = "creating"
	stateCreated  = "created"
	stateError    = "error"
	stateDeleted  = "deleted"
	stateDeleting = "deleting"
)

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

var stageMessage = map[string]string{
	"sufficient_idle_cpu":    "No nodes with enough idle CPU",
	"sufficient_idle_memory": "No nodes with enough idle RAM",
	"sufficient_free_disk":   "No nodes with enough free disk",
	"sufficient_idle_disk":   "No nodes with enough idle disk throughput",
	"queue_state":            "No nodes with a reasonable work queue",
	"capacity_guard":         "The capacity admission guard refused every candidate",
	"cpu_max_per_instance":   "Requested vCPUs exceeds the vCPU limit of every candidate node",
	"is_hypervisor":          "No hypervisor among the candidate nodes",
	"pre_schedule":           "No candidate nodes to schedule on",
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
	ip         string
	hypervisor bool
	tags       []string
	capacity   usage
	// used is the ledger: charged in the same step that places an
	// instance, released when its teardown completes.
	used usage
	// measured is what the node's metrics report: instances count once
	// they reach created, and stop counting when their teardown completes.
	measured usage
}

type event struct {
	Timestamp float64  `json:"timestamp"`
	FQDN      string   `json:"fqdn"`
	Operation string   `json:"operation"`
	Phase     string   `json:"phase"`
	Duration  *float64 `json:"duration"`
	Message   string   `json:"message"`
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
	events   []event
}

type heldAddress struct {
	net    *network
	offset uint32
}

func (i *instance) need() usage {
	u := usage{cpus: i.spec.cpus, memory: i.spec.memory}
	for _, d := range i.spec.disks {
		u.disk += d.size
	}
	return u
}

// apiFQDN is the name events record for work done by the API itself.
const apiFQDN = "sim-api"

func (s *Server) addEvent(i *instance, fqdn, op, phase, msg string) {
	if len(i.events) >= maxEvents {
		i.events = slices.Delete(i.events, 0, 1)
	}
	i.events = append(i.events, event{
		Timestamp: epoch(time.Now()),
		FQDN:      fqdn,
		Operation: op,
		Phase:     phase,
		Message:   msg,
	})
}

func epoch(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

func (s *Server) setState(i *instance, state string) {
	i.state = state
	i.stateUpdated = time.Now()
}

func (s *Server) stageRefusal(stage, detail string) *apiError {
	msg := stageMessage[stage]
	if detail != "" {
		msg += " (" + detail + ")"
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

func congested(n *network) *apiError {
	return &apiError{status: http.StatusInsufficientStorage, msg: "No free addresses on network " + n.uuid}
}

// createInstance is the whole of POST /instances after decoding, run under
// s.mu so that checking capacity, charging it and recording the placement
// are one step: two creates can never both take the last room on a node.
func (s *Server) createInstance(spec *instanceSpec, caller string, scripted *ScriptedAnswer) (*instance, *apiError) {
	ns := caller
	if spec.namespace != "" {
		if !s.namespaceUsable(caller, spec.namespace) {
			return nil, notFound("namespace %s not found", spec.namespace)
		}
		ns = spec.namespace
	}
	if spec.placedOn != "" {
		if _, ok := s.nodeByName[spec.placedOn]; !ok {
			return nil, notFound("node %s not found (placed_on): the nodes are %s", truncate(spec.placedOn), describeNodes(s.cfg))
		}
	}
	nets := make([]*network, len(spec.networks))
	for k, want := range spec.networks {
		n, err := s.findNetwork(want.ref, ns, false)
		if err != nil && err.status != http.StatusNotFound {
			return nil, err // an ambiguous name
		}
		if err != nil || n.namespace != ns {
			return nil, notFound("network %s not found", truncate(want.ref))
		}
		if n.state != stateCreated {
			return nil, &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("network %s is not ready (%s)", n.uuid, n.state)}
		}
		if want.address.IsValid() && !n.prefix.Contains(want.address) {
			return nil, badRequest("network specification requests address %s outside %s, the range of network %s", want.address, n.prefix, n.uuid)
		}
		nets[k] = n
	}

	s.seq++
	now := time.Now()
	i := &instance{
		uuid:         newUUID(),
		seq:          s.seq,
		spec:         spec,
		namespace:    ns,
		state:        stateInitial,
		stateUpdated: now,
		powerState:   "off",
	}
	s.instances[i.uuid] = i
	s.addEvent(i, apiFQDN, "create", "request", "create request from REST API")

	// Addresses are allocated before scheduling, as the real server does;
	// a refusal after this point keeps them until its delete is processed.
	for k, want := range spec.networks {
		n := nets[k]
		if want.address.IsValid() {
			off, err := n.reserve(want.address, i.uuid, now, s.cfg.AddressHalo)
			if err != nil {
				return i, s.failCreate(i, err, "failed to reserve an address on network "+n.uuid)
			}
			i.addrs = append(i.addrs, heldAddress{n, off})
			continue
		}
		off, ok := n.reserveAny(i.uuid, now, s.cfg.AddressHalo)
		if !ok {
			return i, s.failCreate(i, congested(n), "cannot allocate address: no free addresses on network "+n.uuid)
		}
		i.addrs = append(i.addrs, heldAddress{n, off})
		s.addEvent(i, apiFQDN, "create", "network", fmt.Sprintf("allocated address %s on network %s", n.address(off), n.uuid))
	}

	if scripted != nil && scripted.Refuse != "" {
		s.addEvent(i, apiFQDN, "schedule", "scripted", "refusal taken from the --script sequence")
		if scripted.Refuse == stageCongestedNetwork {
			return i, s.failCreate(i, &apiError{status: http.StatusInsufficientStorage, msg: "No free addresses on network"}, "cannot allocate address (scripted)")
		}
		return i, s.failCreate(i, s.stageRefusal(scripted.Refuse, ""), "scheduling failed")
	}

	n, refusal := s.schedule(i)
	if refusal != nil {
		return i, s.failCreate(i, refusal, "scheduling failed")
	}
	need := i.need()
	n.used = n.used.plus(need)
	i.charged = true
	i.node = n.name
	s.addEvent(i, apiFQDN, "schedule", "placed", "placed on "+n.name)
	s.startCreating(i, n)
	return i, nil
}

// failCreate leaves the refused create's record in the error state, holding
// any addresses it was given, until its delete is processed shortly after.
// It never holds capacity: nothing is charged before placement succeeds.
func (s *Server) failCreate(i *instance, err *apiError, why string) *apiError {
	msg := why
	i.errorMessage = &msg
	s.setState(i, stateError)
	if err.hasStage {
		s.addEvent(i, apiFQDN, "schedule", "refused", fmt.Sprintf("schedule has no candidates at stage %s: %s", err.stage, err.msg))
	} else {
		s.addEvent(i, apiFQDN, "create", "refused", err.msg)
	}
	s.after(s.cfg.ErrorCleanup, func() {
		if i.state == stateError {
			s.deleteInstance(i, "deleted after a failed create")
		}
	})
	return err
}

// schedule runs the scheduler's stages in the real server's order and
// returns the node to place on, or the refusal naming the stage that
// eliminated the last candidate. Callers hold s.mu.
func (s *Server) schedule(i *instance) (*node, *apiError) {
	spec := i.spec
	var cands []*node
	if spec.placedOn != "" {
		cands = []*node{s.nodeByName[spec.placedOn]}
	} else {
		cands = slices.Clone(s.nodes)
	}
	s.addEvent(i, apiFQDN, "schedule", "initial candidates", nodeList(cands))
	if len(cands) == 0 {
		return nil, s.stageRefusal("pre_schedule", "")
	}

	cands = filter(cands, func(n *node) bool { return n.hypervisor })
	s.addEvent(i, apiFQDN, "schedule", "are hypervisors", nodeList(cands))
	if len(cands) == 0 {
		return nil, s.stageRefusal("is_hypervisor", "")
	}

	if !spec.affinity.empty() {
		cands = filter(cands, func(n *node) bool { return spec.affinity.satisfiedBy(n.tags) })
		s.addEvent(i, apiFQDN, "schedule", "satisfy hard affinity", nodeList(cands))
		if len(cands) == 0 {
			return nil, &apiError{status: http.StatusConflict, msg: "No node satisfies the hard affinity constraint (" + spec.affinity.String() + ")"}
		}
	}

	need := i.need()
	cands = filter(cands, func(n *node) bool { return need.cpus <= n.capacity.cpus })
	s.addEvent(i, apiFQDN, "schedule", "can host that many vCPUs", nodeList(cands))
	if len(cands) == 0 {
		return nil, s.stageRefusal("cpu_max_per_instance", fmt.Sprintf("asked for %d, the most any node hosts is %d", need.cpus, s.cfg.NodeCPUs))
	}

	// The resource filters read what the nodes report. With the capacity
	// guard modelled, that is the measured usage, which lags placements.
	seen := func(n *node) usage { return n.used }
	if s.guard {
		seen = func(n *node) usage { return n.measured }
	}
	idle := func(f func(usage) int64) int64 {
		best := int64(0)
		for _, n := range cands {
			best = max(best, f(n.capacity)-f(seen(n)))
		}
		return best
	}
	for _, st := range []struct {
		stage, what, unit string
		get               func(usage) int64
	}{
		{"sufficient_idle_cpu", "idle cpu", "vCPUs", func(u usage) int64 { return u.cpus }},
		{"sufficient_idle_memory", "idle ram", "MiB", func(u usage) int64 { return u.memory }},
		{"sufficient_free_disk", "free disk", "GiB", func(u usage) int64 { return u.disk }},
	} {
		most := idle(st.get)
		cands = filter(cands, func(n *node) bool { return st.get(seen(n))+st.get(need) <= st.get(n.capacity) })
		s.addEvent(i, apiFQDN, "schedule", "have enough "+st.what, nodeList(cands))
		if len(cands) == 0 {
			return nil, s.stageRefusal(st.stage, fmt.Sprintf("asked for %d %s, the most any candidate has is %d", st.get(need), st.unit, most))
		}
	}

	// The admission guard checks the exact ledger; it can only disagree
	// with the filters when they read lagging measurements.
	cands = filter(cands, func(n *node) bool { return n.used.plus(need).fitsIn(n.capacity) })
	if len(cands) == 0 {
		return nil, s.stageRefusal("capacity_guard", "the ledger already holds placements the node metrics do not show yet")
	}

	// Spread: the node with the most idle vCPUs, then the first by name.
	best := cands[0]
	for _, n := range cands[1:] {
		if n.capacity.cpus-n.used.cpus > best.capacity.cpus-best.used.cpus {
			best = n
		}
	}
	return best, nil
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

func nodeList(nodes []*node) string {
	names := make([]string, len(nodes))
	for k, n := range nodes {
		names[k] = n.name
	}
	return "candidates: [" + strings.Join(names, ", ") + "]"
}

// startCreating moves a placed instance through creating to created over
// the create time; on created it starts to show in its node's metrics.
func (s *Server) startCreating(i *instance, n *node) {
	s.after(s.cfg.CreateTime/2, func() {
		if i.state == stateInitial {
			s.setState(i, stateCreating)
			s.addEvent(i, n.name, "create", "creating", "instance is being created")
		}
	})
	s.after(s.cfg.CreateTime, func() {
		if i.state != stateInitial && i.state != stateCreating {
			return
		}
		s.setState(i, stateCreated)
		i.powerState = "on"
		if i.charged && !i.measured {
			i.measured = true
			n.measured = n.measured.plus(i.need())
		}
		s.addEvent(i, n.name, "create", "created", "instance started")
	})
}

// deleteInstance marks the instance deleted at once, releases its
// addresses into the deletion halo, and returns its capacity after the
// teardown lag. Callers hold s.mu.
func (s *Server) deleteInstance(i *instance, why string) {
	s.setState(i, stateDeleted)
	i.powerState = "off"
	s.addEvent(i, apiFQDN, "delete", "request", why)
	now := time.Now()
	for _, a := range i.addrs {
		a.net.release(a.offset, i.uuid, now, s.cfg.AddressHalo)
	}
	i.addrs = nil
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
	s.addEvent(i, n.name, "delete", "torn down", "instance destroyed; capacity returned to "+n.name)
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
		return s.namespaces[ns]
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
	return nil, badRequest("%d instances are named %s; use the UUID", len(match), ref)
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
	return nil, badRequest("%d networks are named %s; use the UUID", len(match), ref)
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
