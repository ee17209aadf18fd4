package cluster

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"net/netip"
	"time"
)

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
