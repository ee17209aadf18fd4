package cluster

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Network interfaces (networkinterface.py, external_api/interface.py):
// the record, an instance's interfaces, show, and hot-plug.

// iface is a network interface (shakenfist/networkinterface.py, version 3).
type iface struct {
	uuid, state, network, instance, mac, ipv4, model string
	floating                                         *string
	order                                            int
	metadata                                         map[string]any
}

func interfaceView(f *iface) map[string]any {
	var ipv4, floating any
	if f.ipv4 != "" {
		ipv4 = f.ipv4
	}
	if f.floating != nil {
		floating = *f.floating
	}
	return map[string]any{
		"uuid": f.uuid, "state": f.state, "metadata": f.metadata, "version": interfaceVersion,
		"network_uuid": f.network, "instance_uuid": f.instance, "macaddr": f.mac, "ipv4": ipv4,
		"order": f.order, "model": f.model, "floating": floating,
	}
}

// interfaceFieldOrder is NetworkInterface.external_view's key order
// (baseobject's uuid, state, metadata, version, then its own), as a real
// node's interface lists show it (recorded/node-instance-interfaces.http).
var interfaceFieldOrder = []string{"uuid", "state", "metadata", "version", "network_uuid", "instance_uuid",
	"macaddr", "ipv4", "order", "model", "floating"}

// orderedInterfaceView is interfaceView in the server's key order.
func orderedInterfaceView(f *iface) pyObject {
	v := interfaceView(f)
	out := make(pyObject, 0, len(interfaceFieldOrder))
	for _, k := range interfaceFieldOrder {
		out = append(out, pyField{k, v[k]})
	}
	return out
}

func (s *Server) handleInstanceInterfaces(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceInterfacesEndpoint.get", nil, func(i *instance, _ map[string]any) (any, *apiError) {
		out := []any{}
		for _, f := range i.ifaces {
			out = append(out, orderedInterfaceView(f))
		}
		return out, nil
	})
}

func (s *Server) handleShowInterface(w http.ResponseWriter, r *http.Request, caller string) {
	s.showOne(w, r, "InterfaceEndpoint.get", nil, func() (map[string]any, *apiError) {
		f, err := s.findInterface(r.PathValue("ref"), caller)
		if err != nil {
			return nil, err
		}
		return interfaceView(f), nil
	})
}

func (s *Server) findInterface(ref, caller string) (*iface, *apiError) {
	f, ok := s.ifaces[ref]
	if !ok {
		return nil, notFound("interface not found")
	}
	if i := s.instances[f.instance]; i == nil || !visible(caller, i.namespace) {
		return nil, notFound("interface not found")
	}
	return f, nil
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
			if err := s.floatingNetwork(); err != nil {
				// The interface was recorded before the float
				// failed, and stays.
				i.ifaces = append(i.ifaces, ifc)
				s.ifaces[ifc.uuid] = ifc
				return nil, err
			}
			f := s.reserveFloating("interface " + ifc.uuid)
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

// floatingNetwork is network.floating_network(), which every call that
// needs a floating address makes first: with Config.NoFloatingNetwork
// (a 2024 cluster whose floating network record nobody has created yet),
// the first call creates the record and fails as da448b1a does, 500
// AttributeError: the function creates the record but returns what it
// read before it, None, and the caller reads its .ipam (the captures'
// j7; the second float, j8, worked). Callers hold s.mu.
func (s *Server) floatingNetwork() *apiError {
	if s.cfg.NoFloatingNetwork && !s.floatingMade {
		s.floatingMade = true
		return &apiError{status: http.StatusInternalServerError, msg: `server error: AttributeError("'NoneType' object has no attribute 'ipam'")`}
	}
	return nil
}

// reserveFloating takes the next address of the floating network for
// holder (an interface or a routed network); the simulator's floating
// network is 192.168.10.0 onwards and never runs out. Callers hold s.mu.
func (s *Server) reserveFloating(holder string) string {
	if s.floatingHeld == nil {
		s.floatingHeld = map[string]string{}
	}
	for {
		s.floatSeq++
		f := fmt.Sprintf("192.168.%d.%d", 10+s.floatSeq/250, s.floatSeq%250+2)
		if _, taken := s.floatingHeld[f]; !taken {
			s.floatingHeld[f] = holder
			return f
		}
	}
}

// handleFloatInterface is InterfaceFloatEndpoint.post (da448b1a
// external_api/interface.py): the interface's floating address is
// reserved at once (api_util.assign_floating_ip) and the network node
// plumbs it later; 200 null. As the real one, it does not refuse an
// interface that already floats: it reserves another address.
func (s *Server) handleFloatInterface(w http.ResponseWriter, r *http.Request, caller string) {
	answerOne(s, w, r, "InterfaceFloatEndpoint.post", nil, func() (*iface, *apiError) {
		return s.findInterface(r.PathValue("ref"), caller)
	}, func(f *iface, _ map[string]any) (any, *apiError) {
		if err := s.floatingNetwork(); err != nil {
			return nil, err
		}
		addr := s.reserveFloating("interface " + f.uuid)
		f.floating = &addr
		return nil, nil
	})
}

// handleDefloatInterface is InterfaceDefloatEndpoint.post: 200 null. The
// real server frees the address in the network node's task; the simulator
// does it at once (when is unverified).
func (s *Server) handleDefloatInterface(w http.ResponseWriter, r *http.Request, caller string) {
	answerOne(s, w, r, "InterfaceDefloatEndpoint.post", nil, func() (*iface, *apiError) {
		return s.findInterface(r.PathValue("ref"), caller)
	}, func(f *iface, _ map[string]any) (any, *apiError) {
		if f.floating != nil {
			delete(s.floatingHeld, *f.floating)
			f.floating = nil
		}
		return nil, nil
	})
}
