package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"
)

// The routes sf-client's operator commands use beyond create/show/delete:
// delete-all, console data, snapshots, network events, interfaces,
// addresses and ping, node events and the cluster resource summary.

// readEvents is eventlog.read_events behind the *EventsEndpoint classes:
// newest first, at most limit (default 100), optionally one event_type.
// 2026 validates limit to 1-1000 (PLAN-api-input-validation; the reason
// texts are marshmallow's defaults, the server's own were not read).
func (s *Server) readEvents(events []event, p map[string]any) (any, *apiError) {
	limit := int64(100)
	if v, ok := p["limit"]; ok {
		if s.is2026() {
			num, isNum := v.(json.Number)
			n, err := num.Int64()
			if !isNum || err != nil {
				return nil, badRequest("limit: Not a valid integer.")
			}
			if n < 1 || n > 1000 {
				return nil, badRequest("limit: Must be greater than or equal to 1 and less than or equal to 1000.")
			}
			limit = n
		} else {
			n, err := pyInt(v)
			if err != nil {
				return nil, err
			}
			limit = n
		}
	}
	kind, _ := p["event_type"].(string)
	out := []event{}
	for k := len(events) - 1; k >= 0 && int64(len(out)) < limit; k-- {
		if kind == "" || events[k].Type == kind {
			out = append(out, events[k])
		}
	}
	return out, nil
}

func appendEvent(events []event, fqdn, msg string, extra any) []event {
	if len(events) >= maxEvents {
		events = events[1:]
	}
	return append(events, event{Type: "audit", Timestamp: epoch(time.Now()), FQDN: fqdn, Message: msg, Extra: extra})
}

// deleteAllScope is the namespace check every delete-all endpoint shares
// (InstancesEndpoint.delete, NetworksEndpoint.delete,
// ArtifactsEndpoint.delete at da448b1a): confirm must be JSON true; a
// system caller must name the namespace; anyone else may name only their
// own. Callers hold s.mu.
func (s *Server) deleteAllScope(p map[string]any, caller string) (string, *apiError) {
	if c, ok := p["confirm"].(bool); !ok || !c {
		return "", badRequest("parameter confirm is not set true")
	}
	ns, isStr := p["namespace"].(string)
	if truthy(p["namespace"]) && !s.nsExists(ns) { // @requires_namespace_exist_if_specified
		return "", notFound("namespace not found")
	}
	if caller == adminNamespace {
		if !isStr {
			return "", badRequest("system user must specify parameter namespace")
		}
		return ns, nil
	}
	if truthy(p["namespace"]) && ns != caller {
		return "", &apiError{status: http.StatusUnauthorized, msg: "you cannot delete other namespaces"}
	}
	return caller, nil
}

// nsExists is Namespace.from_db: a deleted namespace still exists.
func (s *Server) nsExists(name string) bool { return s.namespaces[name] != nil }

// handleDeleteAllInstances answers the UUIDs of the namespace's instances
// that are now being deleted; each is deleted as DELETE /instances/{ref}.
func (s *Server) handleDeleteAllInstances(w http.ResponseWriter, r *http.Request, caller string) {
	s.withDeleteAll(w, r, caller, "InstancesEndpoint.delete", []string{"confirm", "namespace"}, func(ns string, _ map[string]any) (int, any) {
		var list []*instance
		for _, i := range s.instances {
			if i.namespace == ns && i.state != stateDeleted {
				list = append(list, i)
			}
		}
		sort.Slice(list, func(a, b int) bool { return list[a].seq < list[b].seq })
		out := []string{}
		for _, i := range list {
			s.addEvent(i, apiFQDN, "delete request via delete all from REST API", nil)
			s.deleteInstance(i, "delete request via delete all from REST API")
			out = append(out, i.uuid)
		}
		return http.StatusOK, out
	})
}

// --- console data (InstanceConsoleDataEndpoint, da448b1a) ---

// consoleText is the simulated serial console: a boot banner, then one
// line per event of the instance.
func consoleText(i *instance) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[    0.000000] Linux version 6.1.0-sim (shakectl sim cluster) #1 SMP\r\n")
	fmt.Fprintf(&b, "[    0.000000] Command line: console=ttyS0 root=/dev/vda1\r\n")
	for k, e := range i.events {
		fmt.Fprintf(&b, "[%5d.%06d] sim: %s\r\n", k+1, 0, e.Message)
	}
	if i.state == stateCreated {
		fmt.Fprintf(&b, "\r\n%s login: ", i.spec.name)
	}
	return b.String()
}

// maxConsoleLength bounds one read of the console.
const maxConsoleLength = 1 << 20

// handleConsoleData answers the last `length` bytes (default 10240) of
// the console log as application/octet-stream, with the real handler's
// misspelt mimetype 'applicaton/octet-stream' (da448b1a).
func (s *Server) handleConsoleData(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "InstanceConsoleDataEndpoint.get", "length")
	if err != nil {
		writeError(w, err)
		return
	}
	length := int64(10240)
	if truthy(p["length"]) {
		var n int64
		ok := false
		switch v := p["length"].(type) {
		case json.Number:
			f, ferr := v.Float64()
			n, ok = int64(f), ferr == nil
		case string:
			_, serr := fmt.Sscanf(strings.TrimSpace(v), "%d", &n)
			ok = serr == nil
		}
		if !ok || (s.is2026() && n < 1) {
			writeError(w, badRequest("length is not an integer"))
			return
		}
		length = min(max(n, 0), maxConsoleLength)
	}
	s.mu.Lock()
	i, ferr := s.findInstance(r.PathValue("ref"), caller)
	var text string
	if ferr == nil {
		s.addEvent(i, apiFQDN, "get console data request from REST API", nil)
		text = consoleText(i)
	}
	s.mu.Unlock()
	if ferr != nil {
		writeError(w, ferr)
		return
	}
	if int64(len(text)) > length {
		text = text[int64(len(text))-length:]
	}
	w.Header().Set("Content-Type", "applicaton/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(text))
}

func (s *Server) handleConsoleDelete(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceConsoleDataEndpoint.delete", nil, func(i *instance, _ map[string]any) (any, *apiError) {
		s.addEvent(i, apiFQDN, "delete console data request from REST API", nil)
		return nil, nil
	})
}

// --- snapshots (external_api/snapshot.py and Instance.snapshot, da448b1a) ---

// maxArtifacts bounds the snapshots a client can make the simulator hold.
const maxArtifacts = 4096

// handleSnapshot is InstanceSnapshotEndpoint.post: the instance must be
// created (406 otherwise); the first disk (all: every disk; device: that
// one) becomes a snapshot artifact named <instance uuid>/<device>, and the
// answer maps each device to its source_url, artifact_uuid and blob_uuid.
func (s *Server) handleSnapshot(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceSnapshotEndpoint.post", []string{"all", "device", "max_versions", "thin"}, func(i *instance, p map[string]any) (any, *apiError) {
		if i.state != stateCreated {
			return nil, &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("instance %s is not ready (%s)", i.uuid, i.state)}
		}
		view := s.instanceView(i)
		devices, _ := view["disks"].([]any)
		if dev, _ := p["device"].(string); dev != "" {
			var keep []any
			for _, d := range devices {
				if d.(map[string]any)["device"] == dev {
					keep = append(keep, d)
				}
			}
			devices = keep
		} else if !truthy(p["all"]) && len(devices) > 0 {
			devices = devices[:1]
		}
		if len(s.artifacts)+len(devices) > maxArtifacts {
			return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("artifact quota exceeded: the simulator holds at most %d snapshots", maxArtifacts)}
		}
		out := map[string]any{}
		for _, d := range devices {
			dm := d.(map[string]any)
			dev := dm["device"].(string)
			size, _ := pyInt(dm["size"])
			s.seq++
			a := &artifactRec{
				uuid: newUUID(), name: i.uuid + "/" + dev, namespace: i.namespace, artifactType: "snapshot",
				sourceURL: "sf://instance/" + i.uuid + "/" + dev, instance: i.uuid,
				seq: s.seq, created: epoch(time.Now()), state: stateCreated, metadata: map[string]any{},
			}
			s.artifacts = append(s.artifacts, a)
			v := s.addVersion(a, s.newBlob(size<<30, nil))
			out[dev] = map[string]any{"source_url": a.sourceURL, "artifact_uuid": a.uuid, "blob_uuid": v.blob}
		}
		s.addEvent(i, apiFQDN, "snapshot", out)
		return out, nil
	})
}

// handleListSnapshots is InstanceSnapshotEndpoint.get: one entry per blob
// of each snapshot artifact of the instance, the artifact's view merged
// with its blob's (the blob uuid as blob_uuid).
func (s *Server) handleListSnapshots(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceSnapshotEndpoint.get", nil, func(i *instance, _ map[string]any) (any, *apiError) {
		out := []map[string]any{}
		for _, a := range s.artifacts {
			if a.instance != i.uuid {
				continue
			}
			for _, ver := range a.versions {
				b := s.blobs[ver.blob]
				v := s.artifactView(a)
				v["blob_uuid"], v["size"], v["instances"] = b.uuid, b.size, []string{}
				v["reference_count"], v["fetched_at"], v["depends_on"] = b.refs, b.created, nil
				out = append(out, v)
			}
		}
		return out, nil
	})
}

// handleDeleteAllArtifacts is ArtifactsEndpoint.delete (sf-client's
// namespace clean calls it after the instances and networks).
func (s *Server) handleDeleteAllArtifacts(w http.ResponseWriter, r *http.Request, caller string) {
	s.withDeleteAll(w, r, caller, "ArtifactsEndpoint.delete", []string{"confirm", "namespace"}, func(ns string, _ map[string]any) (int, any) {
		// Artifacts([namespace_exact_filter]) has no active prefilter: every
		// artifact of the namespace, deleted ones too, is named in the answer.
		out := []string{}
		for _, a := range s.artifacts {
			if a.namespace == ns {
				out = append(out, a.uuid)
				s.deleteArtifact(a)
			}
		}
		return http.StatusOK, out
	})
}

// --- networks: events, interfaces, addresses, ping, delete-all ---

// withNetwork runs fn on the network the path names, under the lock.
func (s *Server) withNetwork(w http.ResponseWriter, r *http.Request, caller, handler string, accepted []string, fn func(n *network, p map[string]any) (any, *apiError)) {
	answerOne(s, w, r, handler, accepted, func() (*network, *apiError) {
		return s.findNetwork(r.PathValue("ref"), caller, true)
	}, fn)
}

func (s *Server) handleNetworkEvents(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNetwork(w, r, caller, "NetworkEventsEndpoint.get", []string{"event_type", "limit"}, func(n *network, p map[string]any) (any, *apiError) {
		return s.readEvents(n.events, p)
	})
}

// handleNetworkInterfaces is NetworkInterfacesEndpoint.get: the views of
// the interfaces on the network.
func (s *Server) handleNetworkInterfaces(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNetwork(w, r, caller, "NetworkInterfacesEndpoint.get", nil, func(n *network, _ map[string]any) (any, *apiError) {
		var list []*iface
		for _, f := range s.ifaces {
			if f.network == n.uuid {
				list = append(list, f)
			}
		}
		sort.Slice(list, func(a, b int) bool {
			ia, ib := s.instances[list[a].instance], s.instances[list[b].instance]
			if ia.seq != ib.seq {
				return ia.seq < ib.seq
			}
			return list[a].order < list[b].order
		})
		out := []any{}
		for _, f := range list {
			out = append(out, interfaceView(f))
		}
		return out, nil
	})
}

// handleNetworkAddresses is NetworkAddressesEndpoint.get: every
// reservation of the network's IPAM (ipam.py da448b1a): the network,
// gateway and broadcast addresses, instance addresses and the deletion
// halo, each {address, user, when, type, comment}.
func (s *Server) handleNetworkAddresses(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNetwork(w, r, caller, "NetworkAddressesEndpoint.get", nil, func(n *network, _ map[string]any) (any, *apiError) {
		n.expireHalo(time.Now(), s.cfg.AddressHalo)
		created := n.created
		res := func(off uint32, user any, typ string, when float64) map[string]any {
			return map[string]any{"address": n.address(off).String(), "user": user, "when": when, "type": typ, "comment": ""}
		}
		out := []map[string]any{
			res(0, []string{"network", n.uuid}, "network", created),
			res(n.size-1, []string{"network", n.uuid}, "broadcast", created),
			res(1, []string{"network", n.uuid}, "gateway", created),
		}
		offs := make([]uint32, 0, len(n.inUse))
		for off := range n.inUse {
			offs = append(offs, off)
		}
		sort.Slice(offs, func(a, b int) bool { return offs[a] < offs[b] })
		for _, off := range offs {
			out = append(out, res(off, []string{"instance", n.inUse[off]}, "instance", created))
		}
		for _, h := range n.halo {
			out = append(out, res(h.offset, nil, "deletion-halo", epoch(h.released)))
		}
		return out, nil
	})
}

// handleNetworkPing is NetworkPingEndpoint.get: the network must be
// created (406); the address must parse (400 invalid address) and lie in
// the netblock (400); the answer is ping -c 10's output as lines. An
// address held by an instance (or the gateway) answers; others do not.
func (s *Server) handleNetworkPing(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNetwork(w, r, caller, "NetworkPingEndpoint.get", nil, func(n *network, _ map[string]any) (any, *apiError) {
		if n.state != stateCreated {
			return nil, &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("network %s is not ready (%s)", n.uuid, n.state)}
		}
		raw := r.PathValue("address")
		a, err := netip.ParseAddr(raw)
		if err != nil {
			return nil, badRequest("invalid address")
		}
		if !n.prefix.Contains(a) {
			return nil, badRequest("ping request for address outside network block")
		}
		n.events = appendEvent(n.events, apiFQDN, "ping request from REST API", nil)
		off := uint32(0)
		base := n.prefix.Masked().Addr().As4()
		b := a.As4()
		off = (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) - (uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3]))
		_, held := n.inUse[off]
		lines := []string{fmt.Sprintf("PING %s (%s) 56(84) bytes of data.", a, a)}
		if held || off == 1 {
			for k := 1; k <= 10; k++ {
				lines = append(lines, fmt.Sprintf("64 bytes from %s: icmp_seq=%d ttl=64 time=0.%03d ms", a, k, 40+k))
			}
			lines = append(lines, "", fmt.Sprintf("--- %s ping statistics ---", a),
				"10 packets transmitted, 10 received, 0% packet loss, time 9012ms",
				"rtt min/avg/max/mdev = 0.041/0.045/0.050/0.003 ms", "")
		} else {
			for k := 1; k <= 3; k++ {
				lines = append(lines, fmt.Sprintf("From 10.0.0.1 icmp_seq=%d Destination Host Unreachable", k))
			}
			lines = append(lines, "", fmt.Sprintf("--- %s ping statistics ---", a),
				"10 packets transmitted, 0 received, +3 errors, 100% packet loss, time 9205ms", "")
		}
		return map[string]any{"stdout": lines, "stderr": []string{""}}, nil
	})
}

// handleDeleteAllNetworks is NetworksEndpoint.delete: every active network
// of the namespace; one still holding interfaces goes to delete-wait with
// clean_wait, and is otherwise left alone, which makes the answer a 403
// whose "error" is the object {"deleted": [...], "unable": [...]}. 2024
// answers the deleted UUIDs; 2026 answers 202 with one operation handle
// per network, {"network_uuid", "op_type", "op_uuid"} (PLAN-network-facade
// phase 7, shakenfist-2026.md 2.5).
func (s *Server) handleDeleteAllNetworks(w http.ResponseWriter, r *http.Request, caller string) {
	s.withDeleteAll(w, r, caller, "NetworksEndpoint.delete", []string{"confirm", "namespace", "clean_wait"}, func(ns string, p map[string]any) (int, any) {
		var list []*network
		for _, n := range s.networks {
			if n.namespace == ns && (n.state == stateInitial || n.state == stateCreated) {
				list = append(list, n)
			}
		}
		sort.Slice(list, func(a, b int) bool { return list[a].seq < list[b].seq })
		deleted, unable := []string{}, []string{}
		handles := []map[string]any{}
		for _, n := range list {
			if n.holders() > 0 && !truthy(p["clean_wait"]) {
				unable = append(unable, n.uuid)
				continue
			}
			if op := s.deleteNetwork(n); op != nil {
				handles = append(handles, map[string]any{"network_uuid": n.uuid, "op_type": op.opType, "op_uuid": op.uuid})
			}
			deleted = append(deleted, n.uuid)
		}
		switch {
		case len(unable) > 0:
			return http.StatusForbidden, map[string]any{"error": map[string]any{"deleted": deleted, "unable": unable}, "status": http.StatusForbidden}
		case s.is2026():
			return http.StatusAccepted, handles
		}
		return http.StatusOK, deleted
	})
}

// --- nodes: events and the resource summary ---

// handleNodeEvents is NodeEventsEndpoint.get (admin): the node's events,
// as read_events gives them; at da448b1a the node is not looked up, so an
// unknown one has no events rather than a 404. A real node records its
// metrics as periodic "resources" events (sf-client's node resources reads
// the newest one's extra); the simulator's newest event is always one,
// with the node's metrics now.
func (s *Server) handleNodeEvents(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "NodeEventsEndpoint.get", "event_type", "limit")
	if err != nil {
		writeError(w, err)
		return
	}
	if !s.requireAdmin(w, r, caller) {
		return
	}
	s.mu.Lock()
	var out any = []event{}
	if n := s.findNode(r.PathValue("ref")); n != nil {
		out, err = s.readEvents(append(slices.Clone(n.events), s.resourcesEvent(n)), p)
	} else {
		_, err = s.readEvents(nil, p)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// handleAdminResources is Scheduler.summarize_resources (scheduler.py
// da448b1a), routed in 2026: totals and per hypervisor node (keyed by node
// UUID, as 2026 metrics are) what is still available.
func (s *Server) handleAdminResources(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.adminRequest(w, r, caller, "AdminResourcesEndpoint.get") {
		return
	}
	s.mu.Lock()
	total := map[string]any{"cpu_available": int64(0), "ram_available": int64(0)}
	per := map[string]any{}
	var cpuSum, ramSum int64
	counts := map[string][2]int{}
	for _, i := range s.instances {
		if i.charged {
			c := counts[i.node]
			c[0]++
			if i.state == stateCreated {
				c[1]++
			}
			counts[i.node] = c
		}
	}
	for _, n := range s.nodes {
		if !n.hypervisor {
			continue
		}
		cpuAvail := n.capacity.cpus - n.measured.cpus
		ramMax := int64(float64(s.cfg.NodeMemoryMiB) * s.cfg.RAMOvercommit)
		ramAvail := ramMax - n.measured.memory
		cpuSum += cpuAvail
		ramSum += ramAvail
		per[s.nodeRef(n)] = map[string]any{
			"cpu_max_per_instance": n.cpuMaxPerInstance, "cpu_available": cpuAvail,
			"cpu_load_1": 0.0, "cpu_load_5": 0.0, "cpu_load_15": 0.0,
			"ram_max_per_instance": int64(s.cfg.NodeMemoryMiB) - int64(s.cfg.RAMReservationGiB*1024),
			"ram_max":              ramMax, "ram_available": ramAvail,
			"disk_available":  n.capacity.disk - n.measured.disk,
			"instances_total": counts[n.name][0], "instances_active": counts[n.name][1],
		}
	}
	total["cpu_available"], total["ram_available"] = cpuSum, ramSum
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"total": total, "per_node": per})
}

// resourcesEvent is a node's metrics in the keys the scheduler reads
// (Scheduler.refresh_metrics / summarize_resources, scheduler.py
// da448b1a): vCPUs and MiB as measured, disk_free_instances in bytes.
// Callers hold s.mu.
func (s *Server) resourcesEvent(n *node) event {
	total, active := 0, 0
	for _, i := range s.instances {
		if i.charged && i.node == n.name {
			total++
			if i.state == stateCreated {
				active++
			}
		}
	}
	free := max(0, int64(s.cfg.NodeDiskGiB)-n.measured.disk)
	return event{Type: "resources", Timestamp: epoch(time.Now()), FQDN: n.name, Message: "Updated node resources", Extra: map[string]any{
		"cpu_max": s.cfg.NodeCPUs, "cpu_max_per_instance": n.cpuMaxPerInstance,
		"cpu_total_instance_vcpus": n.measured.cpus, "cpu_load_1": 0.0, "cpu_load_5": 0.0, "cpu_load_15": 0.0,
		"memory_max": s.cfg.NodeMemoryMiB, "memory_available": max(0, int64(s.cfg.NodeMemoryMiB)-n.measured.memory),
		"memory_total_instance_actual": n.measured.memory, "disk_free_instances": free << 30,
		"instances_total": total, "instances_active": active, "node_queue_waiting": 0, "is_hypervisor": n.hypervisor,
	}}
}

func nodeState(n *node) string {
	if n.deleted {
		return stateDeleted
	}
	return stateCreated
}

// handleDeleteNode is NodeEndpoint.delete (admin, da448b1a): the node is
// marked deleted and its view, now deleted, is the answer. The simulator
// then never schedules on it; instances already there stay.
func (s *Server) handleDeleteNode(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.adminRequest(w, r, caller, "NodeEndpoint.delete") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.findNode(r.PathValue("ref"))
	if n == nil {
		writeError(w, notFound("node not found"))
		return
	}
	n.events = appendEvent(n.events, apiFQDN, "delete request from REST API", nil)
	n.deleted = true
	k := 0
	for i, x := range s.nodes {
		if x == n {
			k = i
		}
	}
	writeJSON(w, http.StatusOK, s.nodeView(n, k, false))
}

// handleAddInterface is InstanceInterfacesEndpoint.post (sf-client's
// instance add-interface, da448b1a): a networkspec as "network"; refused
// 406 for a deleted or failed instance; the network checks and address
// allocation of a create (404, 406, 409, 507); the answer is the new
// interface, ordered after the last.
func (s *Server) handleAddInterface(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceInterfacesEndpoint.post", []string{"network"}, func(i *instance, p map[string]any) (any, *apiError) {
		if i.state == stateDeleted || strings.HasSuffix(i.state, "-error") {
			return nil, &apiError{status: http.StatusNotAcceptable, msg: "instance in invalid state for hot plug"}
		}
		specs, err := checkNetworks([]any{p["network"]})
		if err != nil {
			return nil, err
		}
		want := specs[0]
		n, err := s.findNetwork(want.ref, caller, false)
		if err != nil && err.status != http.StatusNotFound {
			return nil, err
		}
		switch {
		case err != nil:
			return nil, notFound("network %s not found", truncate(want.ref))
		case want.address.IsValid() && !n.prefix.Contains(want.address):
			return nil, badRequest("network specification requests an address outside the range of the network")
		case n.state != stateCreated:
			return nil, &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("network %s is not ready (%s)", n.uuid, n.state)}
		case n.namespace != i.namespace:
			return nil, notFound("network %s does not exist", n.uuid)
		case len(i.ifaces) >= maxInterfaces:
			return nil, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("interface quota exceeded: the simulator gives an instance at most %d interfaces", maxInterfaces)}
		}
		order := 0
		if len(i.ifaces) > 0 {
			order = i.ifaces[len(i.ifaces)-1].order + 1
		}
		ifc := &iface{uuid: newUUID(), state: stateCreated, network: n.uuid, instance: i.uuid,
			mac: want.mac, model: want.model, order: order, metadata: map[string]any{}}
		if ifc.mac == "" {
			ifc.mac = randomMAC()
		}
		if ifc.model == "" {
			ifc.model = "virtio"
		}
		now := time.Now()
		switch {
		case want.none:
		case want.address.IsValid():
			off, err := n.reserve(want.address, i.uuid, now, s.cfg.AddressHalo)
			if err != nil {
				return nil, err
			}
			i.addrs = append(i.addrs, heldAddress{n, off})
			ifc.ipv4 = want.address.String()
		default:
			off, ok := n.reserveAny(i.uuid, now, s.cfg.AddressHalo)
			if !ok {
				return nil, congested()
			}
			i.addrs = append(i.addrs, heldAddress{n, off})
			ifc.ipv4 = n.address(off).String()
		}
		if want.float {
			s.floatSeq++
			f := fmt.Sprintf("192.168.%d.%d", 10+s.floatSeq/250, s.floatSeq%250+2)
			ifc.floating = &f
		}
		i.ifaces = append(i.ifaces, ifc)
		s.ifaces[ifc.uuid] = ifc
		s.addEvent(i, apiFQDN, "hot plug interface request from REST API", map[string]any{"interface_uuid": ifc.uuid})
		return interfaceView(ifc), nil
	})
}

// maxInterfaces bounds one instance's interfaces.
const maxInterfaces = 64
