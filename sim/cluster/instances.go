package cluster

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Instances (shakenfist/instance.py, external_api/instance.py, da448b1a):
// the record, its states, create in InstancesEndpoint.post's order, show,
// list, delete, delete-all, events and the power actions.

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
	// deleteQueued: a delete was asked for and its node has not carried
	// it out yet (queueDelete).
	deleteQueued bool
}

type heldAddress struct {
	net    *network
	offset uint32
}

func (i *instance) need() usage {
	return usage{cpus: int64(math.Ceil(i.spec.cpuN)), memory: int64(math.Ceil(i.spec.memN)), disk: i.spec.diskGiB}
}

func (s *Server) setState(i *instance, state string) {
	i.state = state
	i.stateUpdated = time.Now()
}

// createInstance is the stateful half of POST /instances, in the order
// InstancesEndpoint.post (da448b1a) checks things, run under s.mu so that
// checking capacity, charging it and recording the placement are one step:
// the request becomes a spec, the spec a record, the record gets its
// addresses, and then a node.
func (s *Server) createInstance(body map[string]any, caller string, scripted *ScriptedAnswer) (*instance, *apiError) {
	spec, found, err := s.createSpec(body, caller)
	if err != nil {
		return nil, err
	}
	i := s.recordInstance(spec)
	if err := s.allocateInterfaces(i, found); err != nil {
		return i, err
	}
	return i, s.placeInstance(i, scripted)
}

// createSpec checks the request in InstancesEndpoint.post's order and
// answers the spec and the network each interface joins.
func (s *Server) createSpec(body map[string]any, caller string) (*instanceSpec, []*network, *apiError) {
	spec := &instanceSpec{namespace: caller}
	if ns, _ := body["namespace"].(string); truthy(body["namespace"]) {
		if !s.namespaceUsable(caller, ns) {
			return nil, nil, notFound("namespace not found")
		}
		spec.namespace = ns
	}
	if err := checkName(body["name"]); err != nil {
		return nil, nil, err
	}
	spec.name = body["name"].(string)
	if truthy(body["secure_boot"]) && !truthy(body["uefi"]) {
		return nil, nil, badRequest("secure boot requires UEFI be enabled")
	}
	if truthy(body["placed_on"]) {
		ref, _ := body["placed_on"].(string)
		name, err := s.placedOn(ref)
		if err != nil {
			return nil, nil, err
		}
		spec.placedOn = name
	}
	cd, err := configDrive(body["configdrive"])
	if err != nil {
		return nil, nil, err
	}
	spec.configdrive = cd
	disks, diskGiB, err := checkDisks(body["disk"])
	if err != nil {
		return nil, nil, err
	}
	spec.disks, spec.diskGiB = disks, diskGiB
	nets, err := checkNetworks(body["network"])
	if err != nil {
		return nil, nil, err
	}
	spec.networks = nets
	found, err := s.joinedNetworks(nets, spec.namespace, caller)
	if err != nil {
		return nil, nil, err
	}
	video, err := videoSpec(body["video"])
	if err != nil {
		return nil, nil, err
	}
	spec.video = video
	md, aff, err := s.checkMetadata(body["metadata"])
	if err != nil {
		return nil, nil, err
	}
	spec.metadata, spec.affinity = md, aff
	s.passThrough(spec, body)
	return spec, found, nil
}

// placedOn is the node a placed_on names, if it may take instances.
func (s *Server) placedOn(ref string) (string, *apiError) {
	n := s.findNode(ref)
	if n == nil {
		if s.is2026() { // the 2026 texts name the node (shakenfist-2026.md 1.2)
			return "", notFound("Specified node %s does not exist", truncate(ref))
		}
		return "", notFound("Specified node does not exist")
	}
	if n.deleted { // a node that is not "created"
		if s.is2026() {
			return "", notFound("Specified node %s not ready", n.uuid)
		}
		return "", notFound("Specified node not ready")
	}
	return n.name, nil
}

// configDrive is the config drive type asked for, openstack-disk by
// default.
func configDrive(v any) (string, *apiError) {
	if !truthy(v) {
		return "openstack-disk", nil
	}
	cd, _ := v.(string)
	if cd != "openstack-disk" && cd != "none" {
		return "", badRequest(`invalid config drive type: "%v"`, truncate(fmt.Sprint(v)))
	}
	return cd, nil
}

// joinedNetworks finds the network of each interface asked for: it must
// be ready, in the instance's namespace, and hold any address named.
func (s *Server) joinedNetworks(nets []netSpec, namespace, caller string) ([]*network, *apiError) {
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
		if n.namespace != namespace {
			return nil, notFound("network %s does not exist", n.uuid)
		}
		found[k] = n
	}
	return found, nil
}

// videoSpec is the video card asked for, a cirrus with spice by default.
func videoSpec(v any) (map[string]any, *apiError) {
	if !truthy(v) {
		return map[string]any{"model": "cirrus", "memory": json.Number("16384"), "vdi": "spice"}, nil
	}
	video, _ := v.(map[string]any)
	if _, ok := video["model"]; !ok {
		return nil, badRequest(`video specification requires "model"`)
	}
	if _, ok := video["memory"]; !ok {
		return nil, badRequest(`video specification requires "memory"`)
	}
	if _, ok := video["vdi"]; !ok {
		video["vdi"] = "spice"
	}
	return video, nil
}

// passThrough copies the fields the simulator keeps as they were sent,
// with the server's defaults for the side channels.
func (s *Server) passThrough(spec *instanceSpec, body map[string]any) {
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
}

// recordInstance makes the instance's record, in state initial.
func (s *Server) recordInstance(spec *instanceSpec) *instance {
	s.seq++
	i := &instance{
		uuid:         newUUID(),
		seq:          s.seq,
		spec:         spec,
		namespace:    spec.namespace,
		state:        stateInitial,
		stateUpdated: time.Now(),
		powerState:   "initial",
	}
	s.instances[i.uuid] = i
	s.addEvent(i, apiFQDN, "create request from REST API", nil)
	if spec.affinity.weighted {
		s.addEvent(i, apiFQDN, "instance uses the deprecated weighted affinity form; the magnitude is ignored", nil)
	}
	return i
}

// allocateInterfaces gives the instance its interfaces and their
// addresses. Addresses are allocated before scheduling, as the real server
// does; a refusal after this point keeps them until its delete is
// processed.
func (s *Server) allocateInterfaces(i *instance, found []*network) *apiError {
	now := i.stateUpdated
	for k, want := range i.spec.networks {
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
				return s.failCreate(i, err, "failed to reserve an IP on network "+n.uuid)
			}
			i.addrs = append(i.addrs, heldAddress{n, off})
			ifc.ipv4 = want.address.String()
		default:
			off, ok := n.reserveAny(i.uuid, now, s.cfg.AddressHalo)
			if !ok {
				return s.failCreate(i, congested(), "cannot allocate address: No free addresses on network")
			}
			i.addrs = append(i.addrs, heldAddress{n, off})
			ifc.ipv4 = n.address(off).String()
			s.addEvent(i, apiFQDN, "allocated ip address", map[string]any{"network_uuid": n.uuid, "address": ifc.ipv4})
		}
		if want.float {
			if err := s.floatingNetwork(); err != nil {
				// da448b1a _netdesc_allocate_address: the
				// interface is recorded before the float, and the
				// exception leaves the instance as it was (initial,
				// never placed).
				i.ifaces = append(i.ifaces, ifc)
				s.ifaces[ifc.uuid] = ifc
				return err
			}
			f := s.reserveFloating("interface " + ifc.uuid)
			ifc.floating = &f
		}
		i.ifaces = append(i.ifaces, ifc)
		s.ifaces[ifc.uuid] = ifc
	}
	return nil
}

// placeInstance schedules the instance (or refuses it as the --script
// sequence says), charges the node and starts creating.
func (s *Server) placeInstance(i *instance, scripted *ScriptedAnswer) *apiError {
	if scripted != nil && scripted.Refuse != "" {
		s.addEvent(i, apiFQDN, "schedule failed, insufficient resources", map[string]any{"message": "refusal taken from the simulator's script"})
		if scripted.Refuse == stageCongestedNetwork {
			return s.failCreate(i, congested(), "cannot allocate address: No free addresses on network")
		}
		return s.failCreate(i, s.stageRefusal(scripted.Refuse), "scheduling failed")
	}
	n, refusal := s.schedule(i)
	if refusal != nil {
		s.addEvent(i, apiFQDN, "schedule failed, insufficient resources", map[string]any{"message": refusal.msg})
		if refusal.hasStage { // the seed's audit event
			s.addEvent(i, apiFQDN, "schedule has no candidates at stage "+refusal.stage, nil)
		}
		return s.failCreate(i, refusal, "scheduling failed")
	}
	n.used = n.used.plus(i.need())
	i.charged = true
	i.node = n.name
	n.events = appendEvent(n.events, n.name, "instance placed", map[string]any{"instance_uuid": i.uuid})
	s.startCreating(i, n)
	return nil
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

// queueDelete is Instance.enqueue_delete_remote (da448b1a; enqueue_delete
// in 2026): the API queues the delete for the instance's node and
// answers at once; the node carries it out Config.DeleteTime later, and
// until then the instance keeps its state, addresses, interfaces and
// capacity (the captures' recording ran no node daemon, so its deleted
// instances stayed as they were). Asking again queues nothing more.
// Callers hold s.mu.
func (s *Server) queueDelete(i *instance, why string) {
	if s.cfg.DeleteTime == 0 {
		s.deleteInstance(i, why)
		return
	}
	if i.deleteQueued {
		return
	}
	i.deleteQueued = true
	s.after(s.cfg.DeleteTime, func() {
		if i.state != stateDeleted {
			s.deleteInstance(i, why)
		}
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

// ambiguousName is the 400 for a name two live objects share, as
// from_db_by_ref raises it (shakenfist da448b1a baseobject.py, through
// external_api/base.py and instance.py with the caller's namespace).
func ambiguousName(kind, ref, caller string) *apiError {
	return badRequest(`multiple %ss have the name "%s" in namespace "%s"`, kind, ref, caller)
}

// namespaceVersion etc. are the object schema versions at da448b1a.
const (
	namespaceVersion = 5
	instanceVersion  = 14
	networkVersion   = 6
	interfaceVersion = 3
	nodeVersion      = 7
)

// instanceView is Instance.external_view; callers hold s.mu.
//
// 2024: disk_spec as sent, with "disk_base": null added to a disk whose
// base is util_general.noneish (da448b1a external_api/instance.py; the
// captures' s-create-web1), and nothing added to one with a base (the
// real node's n02-create-vm1). 2026 (instance.py, code index id 59117373307,
// instance_get_example; shakenfist-2026.md 2.3, 2.4): the node and
// requested_placement are node UUIDs; disk_spec holds the four keys the
// diskspec schema has (size, base, bus, type; bus null and type "disk"
// unless sent); and the view adds last_cluster_operation (the
// simulator's instances have none: null), references_to and
// references_from (the simulator boots no instance from a blob, so it
// records no reference: {}).
func (s *Server) instanceView(i *instance) map[string]any {
	sp := i.spec
	disks := make([]any, len(sp.disks))
	devices := make([]any, 0, len(sp.disks))
	for k, d := range sp.disks {
		c := make(map[string]any, len(d)+2)
		for dk, dv := range d {
			c[dk] = dv
		}
		if s.is2026() {
			for _, dk := range []string{"size", "base", "bus"} {
				if _, ok := c[dk]; !ok {
					c[dk] = nil
				}
			}
			if _, ok := c["type"]; !ok {
				c["type"] = "disk"
			}
		} else if base, _ := c["base"].(string); noneish(base) {
			c["disk_base"] = nil
		}
		disks[k] = c
		bus := defaultDiskBus
		if b, ok := d["bus"].(string); ok && b != "" {
			bus = b
		}
		devices = append(devices, map[string]any{
			"device": diskDevice(bus, k), "bus": bus, "size": d["size"], "blob_uuid": nil, "snapshot_ignores": false,
		})
	}
	ifaces := make([]any, 0, len(i.ifaces))
	for _, f := range i.ifaces {
		ifaces = append(ifaces, interfaceView(f))
	}
	var node any
	if n := s.nodeByName[i.node]; n != nil {
		node = s.nodeRef(n)
	}
	var errMsg any
	if i.errorMessage != nil {
		errMsg = *i.errorMessage
	}
	md := i.spec.metadata
	if md == nil {
		md = map[string]any{}
	}
	v := map[string]any{
		"uuid": i.uuid, "state": i.state, "metadata": md, "version": instanceVersion,
		"cpus": sp.cpus, "memory": sp.memory, "disk_spec": disks, "name": sp.name, "namespace": i.namespace,
		"ssh_key": sp.sshKey, "user_data": sp.userData, "video": sp.video, "uefi": sp.uefi,
		"configdrive": sp.configdrive, "nvram_template": sp.nvram, "secure_boot": sp.secureBoot,
		"machine_type": machineType(sp), "side_channels": sp.sideChannels,
		"agent_state": s.agentState(i), "agent_start_time": nil, "agent_system_boot_time": nil,
		"error_message": errMsg, "node": node, "power_state": i.powerState,
		"console_port": nil, "vdi_port": nil, "vdi_tls_port": nil,
		"interfaces": ifaces, "disks": devices,
	}
	if n := s.nodeByName[sp.placedOn]; n != nil {
		v["requested_placement"] = s.nodeRef(n)
	}
	if s.is2026() {
		v["last_cluster_operation"] = nil
		v["references_to"] = map[string]any{}
		v["references_from"] = map[string]any{}
	}
	return v
}

func machineType(sp *instanceSpec) string {
	if truthy(sp.secureBoot) {
		return "q35"
	}
	return "pc"
}

// diskDevice is instance._get_disk_device.
func diskDevice(bus string, index int) string {
	switch bus {
	case "virtio":
		return "vd" + string(rune('a'+index%26))
	case "nvme":
		return fmt.Sprintf("nvme%d", index%10)
	}
	return "sd" + string(rune('a'+index%26))
}

func (i *instance) listing() (uint64, string, bool) {
	return i.seq, i.namespace, i.state != stateDeleted
}

func (s *Server) handleListInstances(w http.ResponseWriter, r *http.Request, caller string) {
	listVisible(s, w, r, caller, "InstancesEndpoint.get", s.instances, s.instanceView)
}

func (s *Server) handleCreateInstance(w http.ResponseWriter, r *http.Request, caller string) {
	scripted := s.nextScripted()
	if scripted != nil && scripted.Status != 0 {
		_, _ = io.Copy(io.Discard, r.Body)
		for k, v := range scripted.Headers {
			w.Header().Set(k, v)
		}
		writeJSON(w, scripted.Status, scripted.cannedBody())
		return
	}
	p, err := s.params(r, "InstancesEndpoint.post", instancesPostArgs...)
	if err == nil && s.is2026() {
		err = validateCreate2026(p)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	inst, err := s.createInstance(p, caller, scripted)
	var view map[string]any
	if err == nil {
		view = s.instanceView(inst)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

// unplaced is the first test of @api_base.redirect_instance_request
// (da448b1a base.py; the same in the 2026 copy, code index id
// 62501837835), the decorator of the routes a node answers for its
// instances (console data get and delete, vdiconsolehelper, the six power
// actions, screenshot, snapshot): an instance the scheduler never placed
// has no placement node, and the decorator returns None before the
// handler runs, so the server answers 200 null whatever the handler would
// have said. The captures' e1-e3, v4 and v6 recorded it for an instance
// refused at scheduling.
func unplaced(i *instance) bool { return i.node == "" }

// requireInstanceActive is @api_base.requires_instance_active (da448b1a
// base.py; 2026 instance.py, code index id 59117373307): 406 "instance
// <uuid> is not ready (<state>)" for an instance in any state but
// created, checked before the handler's own checks (an agent operation's
// "instance agent not ready"); the captures' x1 recorded it.
func requireInstanceActive(i *instance) *apiError {
	if i.state != stateCreated {
		return &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("instance %s is not ready (%s)", i.uuid, i.state)}
	}
	return nil
}

// withInstance runs fn on the instance the path names, under the lock,
// after the body passed params' check.
func (s *Server) withInstance(w http.ResponseWriter, r *http.Request, caller, handler string, accepted []string, fn func(i *instance, p map[string]any) (any, *apiError)) {
	answerOne(s, w, r, handler, accepted, func() (*instance, *apiError) {
		return s.findInstance(r.PathValue("ref"), caller)
	}, fn)
}

func (s *Server) handleShowInstance(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceEndpoint.get", []string{"namespace"}, func(i *instance, _ map[string]any) (any, *apiError) {
		return s.instanceView(i), nil
	})
}

// handleDeleteInstance answers with the instance as it was; the delete then
// runs (on a real server as a queued task).
func (s *Server) handleDeleteInstance(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceEndpoint.delete", []string{"namespace"}, func(i *instance, p map[string]any) (any, *apiError) {
		if ns, ok := p["namespace"].(string); ok && ns != "" {
			if !s.nsLive(ns) {
				return nil, notFound("namespace not found")
			}
			if ns != i.namespace {
				return nil, notFound("instance not in namespace")
			}
		}
		if i.state == stateDeleted {
			return nil, notFound("instance not found")
		}
		view := s.instanceView(i)
		s.addEvent(i, apiFQDN, "delete request from REST API", nil)
		s.queueDelete(i, "delete request from REST API")
		return view, nil
	})
}

func (s *Server) handleInstanceEvents(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceEventsEndpoint.get", []string{"event_type", "limit"}, func(i *instance, p map[string]any) (any, *apiError) {
		return s.readEvents(i.events, p)
	})
}

// handlePowerAction answers 200 null as the real handlers (which return
// None) do, also for an instance never placed (unplaced): 406 unless
// created (@requires_instance_active), 409 for
// reboot/pause/unpause of a powered-off instance (Instance.reboot etc.
// find no libvirt domain); poweron and poweroff are idempotent (da448b1a).
// 2026 (tests/external_api/test_instance_power.py @12f0a5ee): power on of
// a paused instance is a 409 that says to unpause it, and a power on or
// off the hypervisor fails is a 500 naming the failure (PowerFault).
func (s *Server) handlePowerAction(action, handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		s.withInstance(w, r, caller, handler, nil, func(i *instance, _ map[string]any) (any, *apiError) {
			if unplaced(i) {
				return nil, nil
			}
			if err := requireInstanceActive(i); err != nil {
				return nil, err
			}
			verb := map[string]string{"rebootsoft": "reboot", "reboothard": "reboot", "pause": "pause", "unpause": "unpause"}[action]
			if verb != "" && i.powerState == "off" {
				return nil, &apiError{status: http.StatusConflict, msg: "Invalid lifecycle state: you cannot " + verb + " a powered off instance"}
			}
			if s.is2026() {
				if action == "poweron" && i.powerState == "paused" {
					return nil, &apiError{status: http.StatusConflict, msg: "Invalid lifecycle state: you cannot power on a paused instance; unpause it instead"}
				}
				if s.cfg.PowerFault != "" && (action == "poweron" || action == "poweroff") {
					what := map[string]string{"poweron": "power on", "poweroff": "power off"}[action]
					return nil, &apiError{status: http.StatusInternalServerError, msg: "instance failed to " + what + ": " + s.cfg.PowerFault}
				}
			}
			switch action {
			case "poweron", "rebootsoft", "reboothard", "unpause":
				i.powerState = "on"
			case "poweroff":
				i.powerState = "off"
			case "pause":
				i.powerState = "paused"
			}
			s.addEvent(i, i.node, action+" request from REST API", nil)
			return nil, nil
		})
	}
}

// handleDeleteAllInstances answers the UUIDs of the namespace's instances
// (every namespace's for "system": namespaceFilter) that are now being
// deleted; each is deleted as DELETE /instances/{ref}.
//
// 2024 (da448b1a InstancesEndpoint.delete): instance.Instances with no
// state prefilter, so instances already deleted whose records are still
// kept are named again (not deleted again), in etcd's key order (by
// UUID), as the captures' da5 and da7 show. 2026 (instance.py, code index
// id 59117373307: instance.Instances(namespace=namespace)): which states
// that selects is unverified; the simulator names the live ones, oldest
// first.
func (s *Server) handleDeleteAllInstances(w http.ResponseWriter, r *http.Request, caller string) {
	s.withDeleteAll(w, r, caller, "InstancesEndpoint.delete", []string{"confirm", "namespace"}, func(ns string, _ map[string]any) (int, any) {
		var list []*instance
		for _, i := range s.instances {
			if namespaceFilter(ns, i.namespace) && (i.state != stateDeleted || !s.is2026()) {
				list = append(list, i)
			}
		}
		if s.is2026() {
			sort.Slice(list, func(a, b int) bool { return list[a].seq < list[b].seq })
		} else {
			sort.Slice(list, func(a, b int) bool { return list[a].uuid < list[b].uuid })
		}
		out := []string{}
		for _, i := range list {
			out = append(out, i.uuid)
			if i.state == stateDeleted {
				continue
			}
			s.addEvent(i, apiFQDN, "delete request via delete all from REST API", nil)
			s.queueDelete(i, "delete request via delete all from REST API")
		}
		return http.StatusOK, out
	})
}
