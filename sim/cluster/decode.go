package cluster

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// maxBodyBytes bounds every request body: nothing a client sends may make
// the simulator hold more than this per request (a simulator limit; the
// real server has none of its own).
const maxBodyBytes = 1 << 20

// apiError is an answer other than success: status, the error text, and
// for the seed contract's scheduling 507s the stage and transient fields.
type apiError struct {
	status    int
	msg       string
	stage     string
	hasStage  bool
	transient bool
	header    http.Header
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, a ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) *apiError {
	return &apiError{status: http.StatusNotFound, msg: fmt.Sprintf(format, a...)}
}

// instanceSpec is a POST /instances body that passed the API's checks. The
// values the real server stores as sent (cpus, memory, disk entries, video,
// ...) are kept as sent, so the instance view echoes them.
type instanceSpec struct {
	name         string
	cpus, memory any     // as sent; the API does not type-check them
	cpuN, memN   float64 // their numeric values, for the scheduler
	disks        []map[string]any
	diskGiB      int64
	networks     []netSpec
	sshKey       any
	userData     any
	placedOn     string
	namespace    string
	video        any
	uefi         any
	configdrive  string
	nvram        any
	secureBoot   any
	sideChannels any
	metadata     map[string]any
	affinity     hardAffinity
}

type netSpec struct {
	ref     string
	address netip.Addr // invalid when the pool should pick
	none    bool       // address "none": an interface without an address
	mac     string
	model   string
	float   bool
}

// instancesPostArgs are InstancesEndpoint.post's keyword arguments
// (shakenfist/external_api/instance.py, da448b1a).
var instancesPostArgs = []string{"name", "cpus", "memory", "network", "disk", "ssh_key", "user_data",
	"placed_on", "namespace", "video", "uefi", "configdrive", "metadata", "nvram_template",
	"secure_boot", "side_channels"}

// diskBuses are the buses instance._get_disk_device knows (da448b1a);
// "ide" is refused separately, after the bus check, as the server does.
var diskBuses = []string{"sata", "scsi", "usb", "virtio", "nvme"}

// defaultDiskBus is config.DISK_BUS's default.
const defaultDiskBus = "virtio"

// checkName is the hostname check of InstancesEndpoint.post.
func checkName(v any) *apiError {
	name, ok := v.(string)
	if !ok {
		// validators.hostname() refuses it, then `'.' in name` raises.
		return badRequest("argument of type '%s' is not iterable", pyType(v))
	}
	if !dnsLabel.MatchString(name) || strings.Contains(name, ".") || len(name) > 63 {
		return badRequest("instance name %s is not useable as a DNS and Linux host name. "+
			"That is, less than 63 characters and in the character set: a-z, A-Z, 0-9, or hyphen (-).", truncate(name))
	}
	return nil
}

// checkDisks follows the disk loop of InstancesEndpoint.post: a non-empty
// list of objects with a known bus; IDE is refused after every disk's bus
// was checked. It sums the sizes the scheduler counts (int(size) of every
// disk with a size).
func checkDisks(v any) ([]map[string]any, int64, *apiError) {
	list, _ := v.([]any)
	if !truthy(v) {
		return nil, 0, badRequest("instance must specify at least one disk")
	}
	if list == nil {
		return nil, 0, badRequest("disk specification should contain JSON objects")
	}
	var disks []map[string]any
	var total int64
	for _, d := range list {
		m, ok := d.(map[string]any)
		if !ok {
			return nil, 0, badRequest("disk specification should contain JSON objects")
		}
		bus := defaultDiskBus
		if truthy(m["bus"]) {
			b, _ := m["bus"].(string)
			bus = b
			if !oneOf(b, diskBuses) && b != "ide" {
				return nil, 0, badRequest("invalid disk bus %v", truncate(fmt.Sprint(m["bus"])))
			}
		}
		_ = bus
		if base, ok := m["base"]; ok && base != nil {
			if _, isStr := base.(string); !isStr {
				return nil, 0, badRequest("'%s' object has no attribute 'startswith'", pyType(base))
			}
		}
		if size, ok := m["size"]; ok && size != nil {
			n, err := pyInt(size)
			if err != nil {
				return nil, 0, err
			}
			total += n
		}
		disks = append(disks, m)
	}
	for _, d := range disks {
		if d["bus"] == "ide" {
			return nil, 0, badRequest("IDE disks are no longer supported")
		}
	}
	return disks, total, nil
}

// pyInt is Python's int() of a JSON value, with its error texts (a
// TypeError is a 400 through generic_wrapper; a ValueError is uncaught, 500).
func pyInt(v any) (int64, *apiError) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil || math.Abs(f) > 1<<53 {
			return 0, badRequest("cannot convert %s to an integer the simulator can count", truncate(v.String()))
		}
		return int64(f), nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, &apiError{status: http.StatusInternalServerError, msg: fmt.Sprintf("server error: ValueError(\"invalid literal for int() with base 10: '%s'\")", truncate(v))}
		}
		return n, nil
	}
	return 0, badRequest("int() argument must be a string, a bytes-like object or a real number, not '%s'", pyType(v))
}

// checkMetadata is _validate_instance_metadata for every key of a create's
// metadata. In the seed's contract (not legacy), affinity may also carry the
// hard constraints require_with_tag / require_without_tag as tag lists; every
// other affinity value is a soft weight that int() must accept.
func (s *Server) checkMetadata(v any) (map[string]any, hardAffinity, *apiError) {
	if s.is2026() {
		return checkMetadata2026(v)
	}
	return checkMetadata(v, s.cfg.LegacyRefusals)
}

func checkMetadata(v any, legacy bool) (map[string]any, hardAffinity, *apiError) {
	var aff hardAffinity
	if !truthy(v) {
		return map[string]any{}, aff, nil
	}
	md, ok := v.(map[string]any)
	if !ok {
		return nil, aff, badRequest("metadata must be a dictionary")
	}
	for _, k := range sortedKeys(md) {
		val := md[k]
		if !truthy(val) {
			return nil, aff, badRequest("no value specified")
		}
		switch k {
		case "tags":
			if _, ok := val.([]any); !ok {
				return nil, aff, badRequest(`value for "tags" key should be a JSON list`)
			}
		case "affinity":
			a, ok := val.(map[string]any)
			if !ok {
				return nil, aff, badRequest(`value for "affinity" key should be a valid JSON dictionary`)
			}
			for _, ak := range sortedKeys(a) {
				if !legacy && (ak == "require_with_tag" || ak == "require_without_tag") {
					tags, err := tagList(a[ak])
					if err != nil {
						return nil, aff, badRequest("affinity %s must be a list of tags", ak)
					}
					if ak == "require_with_tag" {
						aff.with = tags
					} else {
						aff.without = tags
					}
					continue
				}
				if _, err := pyInt(a[ak]); err != nil {
					if err.status == http.StatusInternalServerError {
						return nil, aff, badRequest("affinity dictionary values should be integers")
					}
					return nil, aff, err
				}
			}
		}
	}
	return md, aff, nil
}

func tagList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a list")
	}
	out := make([]string, 0, len(list))
	for _, t := range list {
		s, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("not a string")
		}
		out = append(out, s)
	}
	return out, nil
}

// checkNetworks is the shape part of _netdesc_safety_checks; the lookups
// happen under the lock in createInstance.
func checkNetworks(v any) ([]netSpec, *apiError) {
	if !truthy(v) {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, badRequest("network specification should contain JSON objects")
	}
	var out []netSpec
	for _, n := range list {
		m, ok := n.(map[string]any)
		if !ok {
			return nil, badRequest("network specification should contain JSON objects")
		}
		if _, ok := m["network_uuid"]; !ok {
			return nil, badRequest("network specification is missing network_uuid")
		}
		ref, _ := m["network_uuid"].(string)
		ns := netSpec{ref: ref}
		if a, ok := m["address"]; ok && truthy(a) {
			s, _ := a.(string)
			if noneish(s) {
				ns.none = true
			} else {
				addr, err := netip.ParseAddr(s)
				if err != nil {
					return nil, badRequest("network specification requests an address outside the range of the network")
				}
				ns.address = addr
			}
		}
		ns.mac, _ = m["macaddress"].(string)
		ns.model, _ = m["model"].(string)
		ns.float = truthy(m["float"])
		out = append(out, ns)
	}
	return out, nil
}

// noneish is util_general.noneish: the strings that mean "no value".
func noneish(s string) bool {
	switch strings.ToLower(s) {
	case "", "none", "null", "false":
		return true
	}
	return false
}

func oneOf(s string, list []string) bool {
	for _, v := range list {
		if s == v {
			return true
		}
	}
	return false
}

// truncate keeps hostile input from filling an error message.
func truncate(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

// binaryAffinityKeys are the 2026 binary affinity form's keys.
var binaryAffinityKeys = []string{"require_with_tag", "require_without_tag", "prefer_with_tag", "prefer_without_tag"}

// checkMetadata2026 validates a create's metadata as the 2026 server
// does (shakenfist-2026.md 2.3): tags a list; affinity either the binary
// form, each key a list of non-empty tag strings, or the deprecated
// weighted form {"tag": integer} (accepted, magnitude ignored, an audit
// event recorded); booleans and a mix of the forms are refused. The 400
// texts name the parameter as the validation layer does; their reasons
// are the simulator's own.
func checkMetadata2026(v any) (map[string]any, hardAffinity, *apiError) {
	var aff hardAffinity
	if v == nil {
		return map[string]any{}, aff, nil
	}
	md, ok := v.(map[string]any)
	if !ok {
		return nil, aff, badRequest("metadata: Not a valid mapping type.")
	}
	for _, k := range sortedKeys(md) {
		val := md[k]
		if !truthy(val) {
			return nil, aff, badRequest("metadata.%s: no value specified", truncate(k))
		}
		switch k {
		case "tags":
			if _, ok := val.([]any); !ok {
				return nil, aff, badRequest("metadata.tags: Not a valid list.")
			}
		case "affinity":
			a, ok := val.(map[string]any)
			if !ok {
				return nil, aff, badRequest("metadata.affinity: Not a valid mapping type.")
			}
			binary, weighted := 0, 0
			for _, ak := range sortedKeys(a) {
				if oneOf(ak, binaryAffinityKeys) {
					binary++
					list, ok := a[ak].([]any)
					if !ok {
						return nil, aff, badRequest("metadata.affinity.%s: Not a valid list.", ak)
					}
					tags := make([]string, 0, len(list))
					for n, t := range list {
						ts, ok := t.(string)
						if !ok || ts == "" {
							return nil, aff, badRequest("metadata.affinity.%s[%d]: a tag must be a non-empty string", ak, n)
						}
						tags = append(tags, ts)
					}
					switch ak {
					case "require_with_tag":
						aff.with = tags
					case "require_without_tag":
						aff.without = tags
					case "prefer_with_tag":
						aff.preferWith = tags
					case "prefer_without_tag":
						aff.preferOut = tags
					}
					continue
				}
				weighted++
				num, isNum := a[ak].(json.Number)
				if _, err := num.Int64(); !isNum || err != nil {
					return nil, aff, badRequest("metadata.affinity.%s: a weighted affinity value must be an integer", truncate(ak))
				}
			}
			if binary > 0 && weighted > 0 {
				return nil, aff, badRequest("metadata.affinity: use either the binary form (require_with_tag, require_without_tag, prefer_with_tag, prefer_without_tag) or the deprecated weighted form, not both")
			}
			aff.weighted = weighted > 0
		}
	}
	return md, aff, nil
}

// validateCreate2026 is the typed part of the 2026 POST /instances schema
// (shakenfist-2026.md 2.3, from PLAN-api-input-validation): cpus and memory
// unsigned integers; diskspecs of size, base, bus and type only, each with
// a size or a base; networkspecs with network_uuid and a model matching
// ^[A-Za-z0-9._-]{1,32}$; a videospec's vdi one of four. Each 400 names
// the parameter ("disk[0].size: Not a valid integer." is the documented
// example); the other reason texts are marshmallow's defaults.
func validateCreate2026(body map[string]any) *apiError {
	for _, k := range []string{"cpus", "memory"} {
		v, ok := body[k]
		if !ok {
			return badRequest("%s: Missing data for required field.", k)
		}
		if err := unsignedInt(k, v); err != nil {
			return err
		}
	}
	if d, ok := body["disk"]; ok {
		list, ok := d.([]any)
		if !ok {
			return badRequest("disk: Not a valid list.")
		}
		for n, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				return badRequest("disk[%d]: Not a valid mapping type.", n)
			}
			for _, k := range sortedKeys(m) {
				if !oneOf(k, []string{"size", "base", "bus", "type"}) {
					return badRequest("disk[%d].%s: Unknown field.", n, truncate(k))
				}
			}
			size := int64(0)
			if v, ok := m["size"]; ok && v != nil {
				if err := unsignedInt(fmt.Sprintf("disk[%d].size", n), v); err != nil {
					return err
				}
				size, _ = v.(json.Number).Int64()
			}
			base, _ := m["base"].(string)
			if v, ok := m["base"]; ok && v != nil {
				if _, isStr := v.(string); !isStr {
					return badRequest("disk[%d].base: Not a valid string.", n)
				}
			}
			if size == 0 && (base == "" || strings.EqualFold(base, "none")) {
				return badRequest("disk[%d]: a disk needs a size or a base", n)
			}
			if t, ok := m["type"]; ok && t != nil && t != "disk" && t != "cdrom" {
				return badRequest("disk[%d].type: Must be one of: disk, cdrom.", n)
			}
		}
	}
	if nw, ok := body["network"]; ok {
		list, ok := nw.([]any)
		if !ok {
			return badRequest("network: Not a valid list.")
		}
		for n, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				return badRequest("network[%d]: Not a valid mapping type.", n)
			}
			for _, k := range sortedKeys(m) {
				if !oneOf(k, []string{"network_uuid", "macaddress", "address", "model", "float"}) {
					return badRequest("network[%d].%s: Unknown field.", n, truncate(k))
				}
			}
			if _, ok := m["network_uuid"]; !ok {
				return badRequest("network[%d].network_uuid: Missing data for required field.", n)
			}
			if v, ok := m["model"]; ok && v != nil {
				if ms, _ := v.(string); !modelRE.MatchString(ms) {
					return badRequest("network[%d].model: String does not match expected pattern.", n)
				}
			}
		}
	}
	if v, ok := body["video"].(map[string]any); ok {
		if vdi, ok := v["vdi"]; ok && !oneOf(fmt.Sprint(vdi), []string{"vnc", "spice", "spiceconcurrent", "spicedebug"}) {
			return badRequest("video.vdi: Must be one of: vnc, spice, spiceconcurrent, spicedebug.")
		}
	}
	return nil
}

var modelRE = lazyRegexp(`^[A-Za-z0-9._-]{1,32}$`)

// unsignedInt is the schema's unsignedinteger.
func unsignedInt(name string, v any) *apiError {
	num, ok := v.(json.Number)
	if !ok {
		return badRequest("%s: Not a valid integer.", name)
	}
	n, err := num.Int64()
	if err != nil {
		return badRequest("%s: Not a valid integer.", name)
	}
	if n < 0 {
		return badRequest("%s: Must be greater than or equal to 0.", name)
	}
	return nil
}
