package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The scheduler: Scheduler.find_candidates' filters in their order
// (da448b1a), the seed's hard affinity, and the 507 refusals naming the
// stage that eliminated the last candidate.

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

// stageMessage2026 is the scheduler's message in 2026:
// _log_and_raise_on_error's f'No nodes remaining at scheduling stage
// {stage}' (scheduler.py, public copy read with #4241 565e36e6e); the
// guard has its own text, built in guardMessage.
func stageMessage2026(stage string) string {
	return "No nodes remaining at scheduling stage " + stage
}

// guardMessage is the capacity guard's text when every ranked candidate
// refused the placement (test_capacity_error.py @565e36e6e).
func guardMessage(candidates int) string {
	return fmt.Sprintf("no node had capacity for this instance, %d candidates refused it", candidates)
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

// schedulable is how much of a node the scheduler lets instances take
// (scheduler.py _has_sufficient_cpu/_ram/_disk, da448b1a).
func schedulable(cfg Config) usage {
	memMax := float64(cfg.NodeMemoryMiB)
	mem := min(memMax-cfg.RAMReservationGiB*1024, memMax*cfg.RAMOvercommit)
	return usage{
		cpus:   int64(float64(cfg.NodeCPUs) * cfg.CPUOvercommit),
		memory: max(0, int64(mem)),
		disk:   max(0, int64(cfg.NodeDiskGiB-cfg.MinFreeDiskGiB)),
	}
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

// hardAffinity is an instance's affinity: the hard require_* lists (the
// seed's; 2024 simulator and 2026), 2026's soft prefer_* lists, and
// whether the deprecated weighted form was used.
type hardAffinity struct {
	with, without         []string
	preferWith, preferOut []string
	weighted              bool
}

// pyDescription is _hard_affinity_description (scheduler.py, 2026):
// "require_with_tag=['gpu'], require_without_tag=['db']", each list sorted
// and shown as Python shows it, empty lists left out.
func (a hardAffinity) pyDescription() string {
	var parts []string
	for _, l := range []struct {
		name string
		tags []string
	}{{"require_with_tag", a.with}, {"require_without_tag", a.without}} {
		if len(l.tags) == 0 {
			continue
		}
		sorted := sortedCopy(l.tags)
		reprs := make([]string, len(sorted))
		for k, t := range sorted {
			reprs[k] = pyRepr(t)
		}
		parts = append(parts, l.name+"=["+strings.Join(reprs, ", ")+"]")
	}
	return strings.Join(parts, ", ")
}

// pyRepr is Python's repr() of a str made of printable ASCII.
func pyRepr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// preferenceScore counts the soft preferences a node's tags meet.
func (a hardAffinity) preferenceScore(tags []string) int {
	has := map[string]bool{}
	for _, t := range tags {
		has[t] = true
	}
	score := 0
	for _, t := range a.preferWith {
		if has[t] {
			score++
		}
	}
	for _, t := range a.preferOut {
		if !has[t] {
			score++
		}
	}
	return score
}

func (a hardAffinity) empty() bool { return len(a.with) == 0 && len(a.without) == 0 }

func (a hardAffinity) String() string {
	var parts []string
	if len(a.with) > 0 {
		parts = append(parts, "require_with_tag "+strings.Join(a.with, ","))
	}
	if len(a.without) > 0 {
		parts = append(parts, "require_without_tag "+strings.Join(a.without, ","))
	}
	return strings.Join(parts, "; ")
}

func (a hardAffinity) satisfiedBy(tags []string) bool {
	has := map[string]bool{}
	for _, t := range tags {
		has[t] = true
	}
	for _, t := range a.with {
		if !has[t] {
			return false
		}
	}
	for _, t := range a.without {
		if has[t] {
			return false
		}
	}
	return true
}
