package cluster

import (
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// Nodes (external_api/node.py, da448b1a): the record, list, show,
// delete, events and the cluster resource summary (/admin/resources).

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
	// processMetrics, when set, is what was written to the node's
	// process_metrics from outside the simulator (a recording's harness
	// playing the resources daemon); nil: the simulator's own.
	processMetrics map[string]float64
}

// nodeMetadata shows a node's simulated tags (for the seed's hard affinity)
// as node metadata, since the real node view has no tags.
func nodeMetadata(tags []string) map[string]any {
	md := map[string]any{}
	if len(tags) > 0 {
		list := make([]any, len(tags))
		for k, t := range tags {
			list[k] = t
		}
		md["tags"] = list
	}
	return md
}

// simRelease is the software release simulated nodes report.
const simRelease = "0.8.0-shakectl-sim"

// nodeView is Node.external_view: the 2024 node has no capacity and no
// tags; tags are the simulator's own, for the seed's hard affinity, and are
// shown as node metadata.
func (s *Server) nodeView(n *node, k int, withMaintainer bool) map[string]any {
	id := n.name
	if s.is2026() {
		id = n.uuid // nodes have UUIDs in 2026 (config.NODE_UUID); the view's exact fields are unverified
	}
	v := map[string]any{
		"uuid": id, "state": nodeState(n), "metadata": n.metadata, "version": nodeVersion,
		"name": n.name, "ip": n.ip, "lastseen": epoch(time.Now()), "release": simRelease,
		"is_etcd_master": k == 0, "is_hypervisor": n.hypervisor,
		"is_network_node": k == 0, "is_eventlog_node": k == 0,
	}
	if withMaintainer {
		v["is_cluster_maintainer"] = k == 0
	}
	return v
}

func (s *Server) handleListNodes(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.adminRequest(w, r, caller, "NodesEndpoint.get") {
		return
	}
	s.mu.Lock()
	out := make([]map[string]any, len(s.nodes))
	for k, n := range s.nodes {
		out[k] = s.nodeView(n, k, true)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleShowNode(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.adminRequest(w, r, caller, "NodeEndpoint.get") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found := s.findNode(r.PathValue("ref"))
	k := slices.IndexFunc(s.nodes, func(n *node) bool { return n == found })
	if k < 0 {
		writeError(w, notFound("node not found"))
		return
	}
	writeJSON(w, http.StatusOK, s.nodeView(s.nodes[k], k, false))
}

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

func nodeState(n *node) string {
	if n.deleted {
		return stateDeleted
	}
	return stateCreated
}

// nodeUUID gives a node a stable UUID derived from its name (a name-based,
// version-5-shaped UUID), so runs and restarts agree. 2026 nodes are
// identified by config.NODE_UUID and placements hold it.
func nodeUUID(name string) string {
	sum := sha1.Sum([]byte("shakectl-sim-node:" + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// nodeRef is how an instance's placement names its node: the name in
// 2024, the node UUID in 2026 ("placement['node'] holds a node UUID",
// instance.py InstanceVDIConsoleHelperEndpoint, public 2026 copy).
func (s *Server) nodeRef(n *node) string {
	if s.is2026() {
		return n.uuid
	}
	return n.name
}

// findNode resolves a node by name, and in 2026 also by UUID.
func (s *Server) findNode(ref string) *node {
	if n, ok := s.nodeByName[ref]; ok {
		return n
	}
	if s.is2026() {
		for _, n := range s.nodes {
			if n.uuid == ref {
				return n
			}
		}
	}
	return nil
}

func (s *Server) nodes0() string {
	if len(s.nodes) > 0 {
		return s.nodes[0].name
	}
	return apiFQDN
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

// nodeDaemons are the processes every node's resources daemon finds
// under sf-daemon's main process (daemons/resources.py da448b1a records
// its parent's children and grandchildren, by the name setproctitle gave
// them, non-alphanumerics made "_"), as the real node sf-1 answered
// (client/testdata/sf2024/node/n20-processmetrics): one per daemon main.py
// starts, and "sh", the shell the api daemon runs gunicorn in
// (processutils.execute with shell=True; gunicorn itself is a layer
// further down). The eventlog and cluster daemons' names depend on the
// node's roles (nodeProcesses).
var nodeDaemons = []string{"sf_api", "sf_checksum", "sf_cleaner", "sf_net", "sf_queues", "sf_resources", "sf_sidechannel", "sf_transfers", "sh"}

// daemonsStarted is when the simulated nodes' daemons started: an hour
// before the simulator, so that every one has run a resources pass.
func (s *Server) daemonsStarted() time.Time { return s.start.Add(-time.Hour) }

// processMinAge is how old a process must be before the resources daemon
// records it ("Ignore new processes").
const processMinAge = 60 * time.Second

// nodeProcesses are the process names whose metrics n records, with the
// time each started; callers hold s.mu. The first node has every role:
// it runs the eventlog daemon and holds the cluster maintenance lock
// ("sf-cluster active"); the cluster daemon of every other node waits
// for it ("sf-cluster idle"). The sidechannel daemon forks one monitor
// ("sf-sidechannel-<uuid>") per running instance of the node with the
// sf-agent side channel; the simulator starts it when the instance is
// created.
func (s *Server) nodeProcesses(n *node) map[string]time.Time {
	started := s.daemonsStarted()
	out := map[string]time.Time{}
	for _, p := range nodeDaemons {
		out[p] = started
	}
	if len(s.nodes) > 0 && s.nodes[0] == n {
		out["sf_eventlog"], out["sf_cluster_active"] = started, started
	} else {
		out["sf_cluster_idle"] = started
	}
	for _, i := range s.instances {
		if i.node == n.name && i.state == stateCreated && i.powerState != "off" && i.powerState != "paused" && hasAgentChannel(i) {
			out["sf_sidechannel_"+strings.ReplaceAll(i.uuid, "-", "_")] = i.stateUpdated
		}
	}
	return out
}

// processMetrics is what Node.process_metrics holds: for each process
// older than processMinAge, process_cpu_time_<p>, process_age_<p> and
// process_cpu_fraction_<p> (the time over the age). The fractions are Config.CPUHogs',
// else 0.02 (values of the simulator's choosing: the real node's were
// 0 to 0.015 at rest), and a CPUHogs process no node runs is added. Nil
// when no resources daemon has written the node's metrics
// (Config.NoProcessMetrics).
func (s *Server) processMetrics(n *node) map[string]float64 {
	if s.cfg.NoProcessMetrics {
		return nil
	}
	now := time.Now()
	out := map[string]float64{}
	put := func(p string, age, frac float64) {
		out["process_cpu_time_"+p] = frac * age
		out["process_age_"+p] = age
		out["process_cpu_fraction_"+p] = frac
	}
	for p, started := range s.nodeProcesses(n) {
		age := now.Sub(started)
		if age < processMinAge {
			continue
		}
		frac := 0.02
		if f, ok := s.cfg.CPUHogs[n.name][p]; ok {
			frac = f
		}
		put(p, age.Seconds(), frac)
	}
	for p, f := range s.cfg.CPUHogs[n.name] {
		if _, ok := out["process_age_"+p]; !ok {
			put(p, now.Sub(s.daemonsStarted()).Seconds(), f)
		}
	}
	return out
}

// handleNodeProcessMetrics is NodeProcessMetricsEndpoint.get (admin,
// da448b1a external_api/node.py): 404 "node not found", else the node's
// process metrics (an object; the swagger example's list is wrong).
func (s *Server) handleNodeProcessMetrics(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "NodeProcessMetricsEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	if !s.requireAdmin(w, r, caller) {
		return
	}
	s.mu.Lock()
	n := s.findNode(r.PathValue("ref"))
	out := map[string]float64{} // Node.process_metrics before any is written
	if n != nil && n.processMetrics != nil {
		out = n.processMetrics
	} else if n != nil {
		out = s.processMetrics(n)
	}
	s.mu.Unlock()
	if n == nil {
		writeError(w, notFound("node not found"))
		return
	}
	if out == nil {
		out = map[string]float64{}
	}
	writeJSON(w, http.StatusOK, out)
}

// handleAdminLocks is AdminLocksEndpoint.get (admin): the locks held in
// the cluster right now, keyed by lock; {} when none is (as the real 2024
// server answered with nothing running: client/testdata/sf2024/recorded/
// admin-locks-empty.http, and the captures' l1). A real cluster's locks
// are held by its daemons while they work (the cluster maintenance lock
// for a moment each cleanup pass, an instance's lock while its node
// deletes it); the simulated cluster holds one while it works: an
// instance's delete lock, on its node, until the teardown the delete
// started is over (--teardown-lag).
//
// 2024 (da448b1a external_api/admin.py, etcd.get_existing_locks): etcd's
// keys, "/sflocks/sf/instance/<uuid>" holding {id, line, node, operation,
// pid} as the real server answered it (client/testdata/sf2024/recorded/
// admin-locks-held.http: an "Instance delete" lock of that form beside
// the cluster lock; admin_locks_get_example leaves out id and line).
// line is where da448b1a's lock code records itself as the caller
// (util/callstack.py:15:get_caller()), under the deployed venv's path.
//
// 2026: locks are MariaDB rows (locks.py, code index id 62934017694,
// get_existing_locks = mariadb.get_all_cluster_locks, {key: holder}); a
// holder is ClusterLock.lock_data: node (NODE_NAME, a name in both
// generations), pid, thread, line
// (the caller), operation, id (a random lock id). The cluster lock's key
// is "cluster/" (node.py NodesEndpoint reads existing_locks.get
// ('cluster/'), code index id 62480454688); an instance lock's key
// "instance/<uuid>" is written after it (unverified), and the values of
// thread, line and id are the simulator's; the 2026 admin.py itself was
// not in the index (every stored version returns get_existing_locks() as
// is).
func (s *Server) handleAdminLocks(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "AdminLocksEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	if !s.requireAdmin(w, r, caller) {
		return
	}
	out := map[string]any{}
	s.mu.Lock()
	for _, i := range s.instances {
		// deleteInstance left its capacity charged until the
		// teardown: the node is still deleting it.
		if i.state != stateDeleted || !i.charged {
			continue
		}
		id := strings.ReplaceAll(i.uuid, "-", "")[:16]
		if s.is2026() {
			out["instance/"+i.uuid] = map[string]any{"node": i.node, "pid": os.Getpid(), "thread": 140000000000000 + os.Getpid(),
				"line":      "/usr/lib/python3/dist-packages/shakenfist/instance.py:1544:delete",
				"operation": "Instance delete", "id": id}
		} else {
			out["/sflocks/sf/instance/"+i.uuid] = map[string]any{"id": id,
				"line": "/srv/shakenfist/venv/lib/python3.11/site-packages/shakenfist/util/callstack.py:15:get_caller()",
				"node": i.node, "operation": "Instance delete", "pid": os.Getpid()}
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}
