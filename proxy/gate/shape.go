package gate

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// stageResource is what each transient stage measures, and so which part
// of a create's shape a refusal there is about (shakenfist
// capacity_refusals.md at 0c24a714, "Which refusals are transient").
// queue_state and capacity_guard say nothing about one resource: they hold
// every create. A transient stage not listed here (a newer server's) is
// not gated: such creates replay as they do without the gate.
var stageResource = map[string]resource{
	"sufficient_idle_cpu":    resCPUs,
	"sufficient_idle_memory": resMemory,
	"sufficient_free_disk":   resDisk,
	"sufficient_idle_disk":   resDisk,
	"queue_state":            resAny,
	"capacity_guard":         resAny,
}

type resource int

const (
	resAny resource = iota
	resCPUs
	resMemory
	resDisk
)

func (r resource) unit() string {
	switch r {
	case resCPUs:
		return "vCPUs"
	case resMemory:
		return "MiB of memory"
	case resDisk:
		return "GiB of disk"
	}
	return ""
}

// Shape is what a create asks of the cluster, read from the body the
// client sent: "cpus", "memory" (MiB) and the sum of the "disk" sizes
// (GiB), as the server's scheduler reads them, and the candidate nodes it
// restricts itself to ("placed_on", hard affinity). A refusal of a create
// restricted to some nodes says nothing of one that may go anywhere.
type Shape struct {
	cpus, memory, disk float64
	where              string // "" for any node; else placed_on and the hard affinity
}

func (s Shape) ask(r resource) float64 {
	switch r {
	case resCPUs:
		return s.cpus
	case resMemory:
		return s.memory
	case resDisk:
		return s.disk
	}
	return 0
}

// ShapeOf reads a create's shape from its body. ok is false for a body
// that is not a create the scheduler could weigh (not a JSON object, cpus
// or memory not numbers): such a request is never held, and the server
// answers it as it would have.
func ShapeOf(body []byte) (Shape, bool) {
	var b struct {
		CPUs     json.RawMessage   `json:"cpus"`
		Memory   json.RawMessage   `json:"memory"`
		Disk     []json.RawMessage `json:"disk"`
		PlacedOn json.RawMessage   `json:"placed_on"`
		Metadata struct {
			Affinity json.RawMessage `json:"affinity"`
		} `json:"metadata"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&b); err != nil {
		return Shape{}, false
	}
	var s Shape
	var ok bool
	if s.cpus, ok = jsonNumber(b.CPUs, false); !ok {
		return Shape{}, false
	}
	if s.memory, ok = jsonNumber(b.Memory, false); !ok {
		return Shape{}, false
	}
	if s.disk, ok = diskSize(b.Disk); !ok {
		return Shape{}, false
	}
	var where []string
	if p := canonical(b.PlacedOn); p != "" && p != "null" {
		where = append(where, "placed_on="+p)
	}
	if a := canonical(b.Metadata.Affinity); a != "" && a != "null" && hasHardAffinity(b.Metadata.Affinity) {
		where = append(where, "affinity="+a)
	}
	s.where = strings.Join(where, " ")
	return s, true
}

// diskSize is the sum of the disks' sizes; a disk without one takes the
// base image's size, which the body does not say.
func diskSize(disks []json.RawMessage) (float64, bool) {
	var sum float64
	for _, raw := range disks {
		var d struct {
			Size json.RawMessage `json:"size"`
		}
		if json.Unmarshal(raw, &d) != nil {
			return 0, false
		}
		if len(d.Size) == 0 || string(d.Size) == "null" {
			continue
		}
		n, ok := jsonNumber(d.Size, true) // the server takes int("8") too
		if !ok {
			return 0, false
		}
		sum += n
	}
	return sum, true
}

// canonical is raw JSON re-encoded (object keys sorted, no spaces), so
// two clients spelling one placement differently restrict alike.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(bytes.TrimSpace(raw))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// hasHardAffinity reports whether an affinity object restricts the
// candidate nodes (require_with_tag, require_without_tag); soft weights
// only rank them.
func hasHardAffinity(raw []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return true // not understood: assume it restricts, which holds less
	}
	_, with := m["require_with_tag"]
	_, without := m["require_without_tag"]
	return with || without
}

func jsonNumber(raw json.RawMessage, allowString bool) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return 0, false
	}
	var f float64
	var err error
	switch v := v.(type) {
	case json.Number:
		f, err = v.Float64()
	case string:
		if !allowString {
			return 0, false
		}
		f, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
	default:
		return 0, false
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
