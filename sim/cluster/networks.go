package cluster

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"net/netip"
	"sort"
	"time"
)

// Networks (shakenfist/network.py, external_api/network.py, da448b1a):
// the address pool, create, show, list, delete (a cluster operation in
// 2026), delete-all, events, interfaces, addresses and ping.

// network is a virtual network and its address pool. Offsets index the
// netblock: 0 is the network address, 1 the router, the last the broadcast
// address; the rest are the pool.
type network struct {
	uuid       string
	seq        uint64
	name       string
	namespace  string
	prefix     netip.Prefix
	dhcp, nat  bool
	dns        bool
	state      string
	vxid       int
	floatingGW *string
	metadata   map[string]any
	events     []event
	created    float64
	// pendingOp is the 2026 delete operation under way, if any.
	pendingOp *clusterOp

	size   uint32
	inUse  map[uint32]string // offset -> instance uuid
	halo   []haloEntry       // released addresses in release order
	inHalo map[uint32]bool
	cursor uint32
}

type haloEntry struct {
	offset   uint32
	released time.Time
}

// Netblock sizes a network may have: the real server refuses anything
// smaller than /29 (network.py, da448b1a); /8 is as large as the simulator
// will hold.
const (
	minPrefixBits = 8
	maxPrefixBits = 29
)

func newNetwork(prefix netip.Prefix) *network {
	return &network{
		prefix: prefix,
		size:   1 << (32 - prefix.Bits()),
		inUse:  map[uint32]string{},
		inHalo: map[uint32]bool{},
		cursor: 2,
	}
}

func parseNetblock(s string) (netip.Prefix, *apiError) {
	// ipaddress.ip_network(netblock) is strict: host bits set is a
	// ValueError, reported as "cannot parse netblock: <text>".
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return p, badRequest("cannot parse netblock: '%s' does not appear to be an IPv4 or IPv6 network", truncate(s))
	}
	if p.Masked() != p {
		return p, badRequest("cannot parse netblock: %s has host bits set", p)
	}
	if p.Bits() > maxPrefixBits || (p.Addr().Is6() && p.Bits() > 125) {
		return p, badRequest("network is below minimum size of /29")
	}
	if !p.Addr().Is4() || p.Bits() < minPrefixBits {
		// A simulator limit: the real server takes IPv6 and any size.
		return p, badRequest("the simulator only holds IPv4 networks from /%d to /%d", minPrefixBits, maxPrefixBits)
	}
	return p, nil
}

func (n *network) poolSize() int { return int(n.size) - 3 }

func (n *network) usable(off uint32) bool { return off >= 2 && off <= n.size-2 }

func (n *network) address(off uint32) netip.Addr {
	b := n.prefix.Addr().As4()
	v := binary.BigEndian.Uint32(b[:]) + off
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b)
}

func (n *network) offset(a netip.Addr) uint32 {
	base, addr := n.prefix.Addr().As4(), a.As4()
	return binary.BigEndian.Uint32(addr[:]) - binary.BigEndian.Uint32(base[:])
}

// expireHalo makes addresses whose deletion halo has passed usable again.
func (n *network) expireHalo(now time.Time, halo time.Duration) {
	k := 0
	for k < len(n.halo) && now.Sub(n.halo[k].released) >= halo {
		delete(n.inHalo, n.halo[k].offset)
		k++
	}
	n.halo = n.halo[k:]
}

func (n *network) free(now time.Time, halo time.Duration) int {
	n.expireHalo(now, halo)
	return n.poolSize() - len(n.inUse) - len(n.inHalo)
}

// reserveAny takes the next free pool address, or reports the pool
// exhausted (CongestedNetwork).
func (n *network) reserveAny(owner string, now time.Time, halo time.Duration) (uint32, bool) {
	if n.free(now, halo) <= 0 {
		return 0, false
	}
	for range n.poolSize() {
		off := n.cursor
		n.cursor++
		if !n.usable(n.cursor) {
			n.cursor = 2
		}
		if _, used := n.inUse[off]; !used && !n.inHalo[off] {
			n.inUse[off] = owner
			return off, true
		}
	}
	return 0, false
}

// reserve takes a specific address the client asked for.
func (n *network) reserve(a netip.Addr, owner string, now time.Time, halo time.Duration) (uint32, *apiError) {
	off := n.offset(a)
	if !n.usable(off) {
		return 0, badRequest("address %s is the network, router or broadcast address of %s", a, n.prefix)
	}
	n.expireHalo(now, halo)
	if _, used := n.inUse[off]; used || n.inHalo[off] {
		return 0, &apiError{status: http.StatusConflict, msg: fmt.Sprintf("address %s in use", a)}
	}
	n.inUse[off] = owner
	return off, nil
}

// release returns an address to the pool once its deletion halo passes.
func (n *network) release(off uint32, owner string, now time.Time, halo time.Duration) {
	if n.inUse[off] != owner {
		return
	}
	delete(n.inUse, off)
	if halo > 0 {
		n.inHalo[off] = true
		n.halo = append(n.halo, haloEntry{off, now})
	}
}

// holders counts the live instances holding an address on the network,
// error-state records included.
func (n *network) holders() int {
	owners := map[string]bool{}
	for _, o := range n.inUse {
		owners[o] = true
	}
	return len(owners)
}

// networkView is Network.external_view.
func networkView(n *network) map[string]any {
	var gw any
	if n.floatingGW != nil {
		gw = *n.floatingGW
	}
	return map[string]any{
		"uuid": n.uuid, "state": n.state, "metadata": n.metadata, "version": networkVersion,
		"name": n.name, "namespace": n.namespace, "netblock": n.prefix.String(),
		"provide_dhcp": n.dhcp, "provide_nat": n.nat, "provide_dns": n.dns,
		"floating_gateway": gw, "vxlan_id": n.vxid,
	}
}
func (n *network) listing() (uint64, string, bool) {
	return n.seq, n.namespace, n.state != stateDeleted
}

// maxLiveNetworks bounds the networks a client can make the simulator hold.
const maxLiveNetworks = 4096

func (s *Server) handleListNetworks(w http.ResponseWriter, r *http.Request, caller string) {
	listVisible(s, w, r, caller, "NetworksEndpoint.get", s.networks, networkView)
}

func (s *Server) handleCreateNetwork(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "NetworksEndpoint.post", "netblock", "provide_dhcp", "provide_nat", "name", "namespace", "provide_dns")
	if err != nil {
		writeError(w, err)
		return
	}
	ns := caller
	if truthy(p["namespace"]) {
		ns, _ = p["namespace"].(string)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.nsLive(ns):
		writeError(w, notFound("namespace not found"))
		return
	case ns != caller && caller != adminNamespace:
		writeError(w, &apiError{status: http.StatusUnauthorized, msg: "only admins can create resources in a different namespace"})
		return
	}
	nb, _ := p["netblock"].(string)
	prefix, err := parseNetblock(nb)
	if err != nil {
		writeError(w, err)
		return
	}
	if s.liveNetworks() >= maxLiveNetworks {
		writeError(w, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("network quota exceeded: the simulator holds at most %d networks", maxLiveNetworks)})
		return
	}
	n := newNetwork(prefix)
	name, _ := p["name"].(string)
	n.uuid, n.name, n.namespace, n.state = newUUID(), name, ns, stateInitial
	n.metadata = map[string]any{}
	// NetworksEndpoint.post (da448b1a): a false provide_dhcp and a false
	// provide_nat are each turned into true ("if not provide_dhcp:
	// provide_dhcp = True"; the real server answered provide_dhcp true
	// for false in the captures' n2); provide_dns defaults to false. The
	// 2026 handler's provide_dhcp is unverified: the simulator keeps it
	// as sent.
	n.dhcp = truthy(p["provide_dhcp"]) || !s.is2026()
	n.nat = true
	n.dns = truthy(p["provide_dns"])
	s.floatSeq++
	gw := fmt.Sprintf("192.168.%d.%d", 10+s.floatSeq/250, s.floatSeq%250+2)
	n.floatingGW = &gw
	s.seq++
	s.vxid++
	n.seq, n.vxid = s.seq, s.vxid
	n.created = epoch(time.Now())
	n.events = appendEvent(n.events, apiFQDN, "create request from REST API", nil)
	s.networks[n.uuid] = n
	if s.cfg.NetworkDeployTime == 0 {
		n.state = stateCreated
	}
	view := networkView(n)
	s.after(s.cfg.NetworkDeployTime, func() {
		if n.state == stateInitial {
			n.state = stateCreated
		}
	})
	writeJSON(w, http.StatusOK, view)
}

func (s *Server) liveNetworks() int {
	live := 0
	for _, n := range s.networks {
		if n.state != stateDeleted {
			live++
		}
	}
	return live
}

func (s *Server) handleShowNetwork(w http.ResponseWriter, r *http.Request, caller string) {
	s.showOne(w, r, "NetworkEndpoint.get", []string{"namespace"}, func() (map[string]any, *apiError) {
		n, err := s.findNetwork(r.PathValue("ref"), caller, true)
		if err != nil {
			return nil, err
		}
		return networkView(n), nil
	})
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
			out = append(out, orderedInterfaceView(f))
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
		if !s.is2026() {
			// 2024 reads the reservations from etcd by key, prefix and
			// address (ipam.py da448b1a in_use: get_prefix sorted by key
			// ascending), so in the addresses' text order: the real
			// node's n17d answered network, gateway, instance, broadcast.
			sort.SliceStable(out, func(a, b int) bool { return out[a]["address"].(string) < out[b]["address"].(string) })
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

// handleDeleteNetwork answers, in 2024, 200 with the network as it was
// (state delete-wait when interfaces remain) or 200 null for one already
// deleted; in 2026, 202 with the operation handle, or 404 "network is
// deleted" for a dead network (_delete_network).
func (s *Server) handleDeleteNetwork(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "NetworkEndpoint.delete", "namespace")
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.findNetwork(r.PathValue("ref"), caller, true)
	if err != nil {
		writeError(w, err)
		return
	}
	if ns, ok := p["namespace"].(string); ok && ns != "" && ns != n.namespace {
		writeError(w, notFound("network not in namespace"))
		return
	}
	if s.is2026() {
		if n.state == stateDeleted || n.state == stateError {
			writeError(w, notFound("network is deleted"))
			return
		}
		if op := n.pendingOp; op != nil { // a delete already under way
			writeJSON(w, http.StatusAccepted, map[string]any{"op_type": op.opType, "op_uuid": op.uuid})
			return
		}
		op := s.deleteNetwork(n)
		writeJSON(w, http.StatusAccepted, map[string]any{"op_type": op.opType, "op_uuid": op.uuid})
		return
	}
	if n.state == stateDeleted {
		writeJSON(w, http.StatusOK, nil)
		return
	}
	view := networkView(n)
	s.deleteNetwork(n)
	view["state"] = n.state
	if n.state != stateDeleteWait {
		view["state"] = stateCreated
	}
	writeJSON(w, http.StatusOK, view)
}

// deleteNetwork starts deleting a network: in 2024 at once (as the
// network node's task), in 2026 as a net_op the caller can follow, which
// it returns. A network still holding interfaces goes to delete-wait and
// is deleted (its operation completed) when the last goes. Callers hold
// s.mu.
func (s *Server) deleteNetwork(n *network) *clusterOp {
	n.events = appendEvent(n.events, apiFQDN, "delete request from REST API", nil)
	if !s.is2026() {
		if n.holders() > 0 {
			n.state = stateDeleteWait
			return nil
		}
		s.afterOrNow(s.cfg.NetworkDeployTime, func() { n.state = stateDeleted })
		return nil
	}
	s.pruneOps()
	s.seq++
	op := &clusterOp{uuid: newUUID(), opType: "net_op", state: opQueued, targetType: "network", target: n.uuid,
		namespace: n.namespace, tasks: []string{"network_delete"}, seq: s.seq}
	op.created = epoch(time.Now())
	s.ops[op.uuid] = op
	fail := s.opErrors > 0
	if fail {
		s.opErrors--
	}
	n.pendingOp = op
	s.afterOrNow(s.cfg.NetworkDeployTime, func() {
		switch {
		case fail:
			msg := "network delete failed on the network node (simulated: one of the network operation errors the simulator was told to make)"
			op.state, op.errorMessage = opError, &msg
			n.pendingOp = nil
			n.events = appendEvent(n.events, apiFQDN, "delete failed", map[string]any{"op_uuid": op.uuid})
		case n.holders() > 0:
			op.state = opExecuting
			n.state = stateDeleteWait
		default:
			op.state = opComplete
			n.pendingOp = nil
			n.state = stateDeleted
		}
	})
	return op
}

// finishNetworkDelete deletes a delete-wait network once its last
// interface has gone, completing its operation; callers hold s.mu.
func (s *Server) finishNetworkDelete(n *network) {
	if n.state == stateDeleteWait && n.holders() == 0 {
		n.state = stateDeleted
		if op := n.pendingOp; op != nil {
			op.state = opComplete
			n.pendingOp = nil
		}
	}
}

// errorObject is an error body whose "error" is not a string: sent as
// sf_api.error sends any error, json.dumps without a trailing newline.
type errorObject struct{ body pyObject }

// handleDeleteAllNetworks is NetworksEndpoint.delete: every active network
// of the namespace (every namespace's for "system": namespaceFilter); one still holding interfaces goes to delete-wait with
// clean_wait, and is otherwise left alone, which makes the answer a 403
// whose "error" is the object {"deleted": [...], "unable": [...]}. 2024
// answers the deleted UUIDs; 2026 answers 202 with one operation handle
// per network, {"network_uuid", "op_type", "op_uuid"} (PLAN-network-facade
// phase 7, shakenfist-2026.md 2.5).
func (s *Server) handleDeleteAllNetworks(w http.ResponseWriter, r *http.Request, caller string) {
	s.withDeleteAll(w, r, caller, "NetworksEndpoint.delete", []string{"confirm", "namespace", "clean_wait"}, func(ns string, p map[string]any) (int, any) {
		var list []*network
		for _, n := range s.networks {
			if namespaceFilter(ns, n.namespace) && (n.state == stateInitial || n.state == stateCreated) {
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
			// sf_api.error with an object for a message: json.dumps with
			// no newline (recorded/node-net-delete-all-inuse.http).
			return http.StatusForbidden, errorObject{pyObject{{"error", pyObject{{"deleted", deleted}, {"unable", unable}}}, {"status", http.StatusForbidden}}}
		case s.is2026():
			return http.StatusAccepted, handles
		}
		return http.StatusOK, deleted
	})
}

// handleRouteAddress is NetworkRouteAddressEndpoint.post (da448b1a
// external_api/network.py): the network must be the caller's and created
// (406 "network X is not ready (S)", requires_network_active); an address
// of the floating network is reserved for it (api_util.assign_routed_ip)
// and answered as a JSON string; the route itself is the network node's.
// The 2026 handler is the same (network.py, code index id 62470511013).
func (s *Server) handleRouteAddress(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNetwork(w, r, caller, "NetworkRouteAddressEndpoint.post", nil, func(n *network, _ map[string]any) (any, *apiError) {
		if e := networkActive(n); e != nil {
			return nil, e
		}
		if e := s.floatingNetwork(); e != nil {
			return nil, e
		}
		addr := s.reserveFloating("network " + n.uuid)
		n.events = appendEvent(n.events, apiFQDN, "route request from REST API", nil)
		return addr, nil
	})
}

// handleUnrouteAddress is NetworkUnrouteAddressEndpoint.delete: 404
// "address not routed" for an address the floating network has not
// reserved, 403 "address not routed by this network" for another
// holder's; 200 null.
//
// 2024 (da448b1a): the reservation's holder is stored as a JSON list and
// compared with the network's unique_label(), a tuple, which never
// equal, so every reserved address is a 403, the network's own routed
// ones too (the captures' r8 and sfc-q8): on a 2024 server no routed
// address can be deleted. 2026 compares (user_type, str(user_uuid))
// (code index id 62470511013), so the route is removed.
func (s *Server) handleUnrouteAddress(w http.ResponseWriter, r *http.Request, caller string) {
	s.withNetwork(w, r, caller, "NetworkUnrouteAddressEndpoint.delete", nil, func(n *network, _ map[string]any) (any, *apiError) {
		if e := networkActive(n); e != nil {
			return nil, e
		}
		if e := s.floatingNetwork(); e != nil {
			return nil, e
		}
		addr := r.PathValue("address")
		holder, ok := s.floatingHeld[addr]
		switch {
		case !ok:
			return nil, notFound("address not routed")
		case holder != "network "+n.uuid || !s.is2026():
			return nil, &apiError{status: http.StatusForbidden, msg: "address not routed by this network"}
		}
		delete(s.floatingHeld, addr)
		n.events = appendEvent(n.events, apiFQDN, "unroute request from REST API", nil)
		return nil, nil
	})
}

// networkActive is @requires_network_active (base.py da448b1a).
func networkActive(n *network) *apiError {
	if n.state != stateCreated {
		return &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("network %s is not ready (%s)", n.uuid, n.state)}
	}
	return nil
}
