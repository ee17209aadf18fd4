package cluster

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
)

// maxBodyBytes bounds every request body: nothing a client sends may make
// the simulator hold more than this per request.
const maxBodyBytes = 1 << 20

// Limits on list lengths and sizes keep the accounting's sums far from
// overflow whatever a client sends.
const (
	maxDisks       = 32
	maxInterfaces  = 32
	maxDiskGiB     = 1 << 30
	maxMemoryMiB   = 1 << 40
	maxCPUs        = 1 << 20
	maxStringBytes = 64 << 10
)

// apiError is an answer other than success: status, the error text, and
// for scheduling 507s the stage and transient fields.
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

func unmarshalStrict(data []byte, dst any) *apiError {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return describeJSONError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("unexpected data after the JSON object")
	}
	return nil
}

func describeJSONError(err error) *apiError {
	var (
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return badRequest("malformed JSON at byte %d: %s", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("malformed JSON: the body ends in the middle of a value")
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return badRequest("the request body must be a JSON %s, not %s", jsonKind(typeErr.Type), typeErr.Value)
		}
		return badRequest("field %q must be %s, not %s", typeErr.Field, article(jsonKind(typeErr.Type)), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return badRequest("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return badRequest("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}

func article(kind string) string {
	if strings.ContainsAny(kind[:1], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}

// createRequest is POST /instances as the wire contract spells it. Pointer
// fields tell "absent" from "zero".
type createRequest struct {
	Name      *string                    `json:"name"`
	CPUs      *int64                     `json:"cpus"`
	Memory    *int64                     `json:"memory"`
	Disk      []diskRequest              `json:"disk"`
	Network   []networkRequest           `json:"network"`
	SSHKey    *string                    `json:"ssh_key"`
	UserData  *string                    `json:"user_data"`
	PlacedOn  *string                    `json:"placed_on"`
	Namespace *string                    `json:"namespace"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
}

type diskRequest struct {
	Size *int64  `json:"size"`
	Base *string `json:"base"`
	Bus  *string `json:"bus"`
	Type *string `json:"type"`
}

type networkRequest struct {
	NetworkUUID *string `json:"network_uuid"`
	Address     *string `json:"address"`
	Model       *string `json:"model"`
}

// instanceSpec is a validated create request.
type instanceSpec struct {
	name      string
	cpus      int64
	memory    int64
	disks     []diskSpec
	networks  []netSpec
	sshKey    *string
	userData  *string
	placedOn  string
	namespace string
	metadata  map[string]any
	affinity  hardAffinity
}

type diskSpec struct {
	size int64
	base *string
	bus  *string
	kind string
}

type netSpec struct {
	ref     string
	address netip.Addr // invalid when the pool should pick
}

type hardAffinity struct {
	with, without []string
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

var (
	diskBuses = []string{"virtio", "scsi", "sata", "nvme"}
	diskTypes = []string{"disk", "cdrom"}
	nicModels = []string{"virtio", "e1000", "rtl8139", "ne2k_pci"}
)

// parseCreate decodes and validates a create body. Everything here is a 400
// (or 413): nothing about the cluster's state is consulted.
func parseCreate(data []byte) (*instanceSpec, *apiError) {
	var req createRequest
	if err := unmarshalStrict(data, &req); err != nil {
		return nil, err
	}
	spec := &instanceSpec{}

	if req.Name == nil {
		return nil, badRequest("name is required")
	}
	if !dnsLabel.MatchString(*req.Name) {
		return nil, badRequest("instance name %q is not usable as a DNS host name: 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen, no dots", truncate(*req.Name))
	}
	spec.name = *req.Name

	switch {
	case req.CPUs == nil:
		return nil, badRequest("cpus is required")
	case *req.CPUs < 1:
		return nil, badRequest("cpus must be at least 1, not %d", *req.CPUs)
	case *req.CPUs > maxCPUs:
		return nil, badRequest("cpus %d is not a plausible vCPU count", *req.CPUs)
	}
	spec.cpus = *req.CPUs

	switch {
	case req.Memory == nil:
		return nil, badRequest("memory is required (MiB)")
	case *req.Memory < 1:
		return nil, badRequest("memory must be at least 1 MiB, not %d", *req.Memory)
	case *req.Memory > maxMemoryMiB:
		return nil, badRequest("memory %d MiB is not a plausible size", *req.Memory)
	}
	spec.memory = *req.Memory

	if len(req.Disk) == 0 {
		return nil, badRequest("instance must specify at least one disk")
	}
	if len(req.Disk) > maxDisks {
		return nil, badRequest("at most %d disks, not %d", maxDisks, len(req.Disk))
	}
	for i, d := range req.Disk {
		ds := diskSpec{kind: "disk"}
		if d.Type != nil {
			if !oneOf(*d.Type, diskTypes) {
				return nil, badRequest("disk %d: type %q is not one of %s", i+1, truncate(*d.Type), strings.Join(diskTypes, ", "))
			}
			ds.kind = *d.Type
		}
		switch {
		case d.Size == nil && ds.kind == "disk":
			return nil, badRequest("disk %d: size is required (GiB)", i+1)
		case d.Size != nil && *d.Size < 1:
			return nil, badRequest("disk %d: size must be at least 1 GiB, not %d", i+1, *d.Size)
		case d.Size != nil && *d.Size > maxDiskGiB:
			return nil, badRequest("disk %d: size %d GiB is not a plausible size", i+1, *d.Size)
		case d.Size != nil:
			ds.size = *d.Size
		}
		if d.Bus != nil {
			if *d.Bus == "ide" {
				return nil, badRequest("disk %d: IDE disks are no longer supported", i+1)
			}
			if !oneOf(*d.Bus, diskBuses) {
				return nil, badRequest("disk %d: invalid disk bus %q: want one of %s", i+1, truncate(*d.Bus), strings.Join(diskBuses, ", "))
			}
		}
		if err := nonEmpty(fmt.Sprintf("disk %d: base", i+1), d.Base); err != nil {
			return nil, err
		}
		ds.base, ds.bus = d.Base, d.Bus
		spec.disks = append(spec.disks, ds)
	}

	if len(req.Network) > maxInterfaces {
		return nil, badRequest("at most %d network interfaces, not %d", maxInterfaces, len(req.Network))
	}
	for i, n := range req.Network {
		if n.NetworkUUID == nil {
			return nil, badRequest("network specification %d is missing network_uuid", i+1)
		}
		if err := nonEmpty(fmt.Sprintf("network %d: network_uuid", i+1), n.NetworkUUID); err != nil {
			return nil, err
		}
		ns := netSpec{ref: *n.NetworkUUID}
		if n.Address != nil {
			addr, err := netip.ParseAddr(*n.Address)
			if err != nil || !addr.Is4() {
				return nil, badRequest("network %d: address %q is not an IPv4 address", i+1, truncate(*n.Address))
			}
			ns.address = addr
		}
		if n.Model != nil && !oneOf(*n.Model, nicModels) {
			return nil, badRequest("network %d: model %q is not one of %s", i+1, truncate(*n.Model), strings.Join(nicModels, ", "))
		}
		spec.networks = append(spec.networks, ns)
	}

	for _, f := range []struct {
		name string
		v    *string
	}{{"ssh_key", req.SSHKey}, {"user_data", req.UserData}, {"placed_on", req.PlacedOn}, {"namespace", req.Namespace}} {
		if err := nonEmpty(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if req.UserData != nil {
		if _, err := base64.StdEncoding.DecodeString(*req.UserData); err != nil {
			return nil, badRequest("user_data must be base64 encoded")
		}
	}
	if req.SSHKey != nil && !strings.HasPrefix(*req.SSHKey, "ssh-") && !strings.HasPrefix(*req.SSHKey, "ecdsa-") && !strings.HasPrefix(*req.SSHKey, "sk-") {
		return nil, badRequest("ssh_key does not look like an OpenSSH public key (ssh-ed25519 AAAA...)")
	}
	spec.sshKey, spec.userData = req.SSHKey, req.UserData
	if req.PlacedOn != nil {
		spec.placedOn = *req.PlacedOn
	}
	if req.Namespace != nil {
		if !dnsLabel.MatchString(*req.Namespace) {
			return nil, badRequest("namespace %q is not a valid namespace name", truncate(*req.Namespace))
		}
		spec.namespace = *req.Namespace
	}

	md, aff, err := parseMetadata(req.Metadata)
	if err != nil {
		return nil, err
	}
	spec.metadata, spec.affinity = md, aff
	return spec, nil
}

// parseMetadata checks the keys shakectl gives meaning to (tags, affinity)
// and keeps everything else as the client sent it.
func parseMetadata(raw map[string]json.RawMessage) (map[string]any, hardAffinity, *apiError) {
	var aff hardAffinity
	md := map[string]any{}
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		if k == "" || len(k) > 255 {
			return nil, aff, badRequest("metadata keys must be 1 to 255 characters")
		}
		switch k {
		case "tags":
			var tags []string
			if err := unmarshalStrict(v, &tags); err != nil || tags == nil {
				return nil, aff, badRequest("metadata tags must be a list of strings")
			}
			md[k] = tags
			continue
		case "affinity":
			a, err := parseAffinity(v)
			if err != nil {
				return nil, aff, err
			}
			aff = a
		}
		var val any
		if err := unmarshalStrict(v, &val); err != nil {
			return nil, aff, badRequest("metadata %q: %s", truncate(k), err.msg)
		}
		md[k] = val
	}
	return md, aff, nil
}

func parseAffinity(raw json.RawMessage) (hardAffinity, *apiError) {
	var a hardAffinity
	var m map[string]json.RawMessage
	if err := unmarshalStrict(raw, &m); err != nil || m == nil {
		return a, badRequest("metadata affinity must be an object, e.g. {\"require_with_tag\": [\"ssd\"]}")
	}
	for _, k := range sortedKeys(m) {
		switch k {
		case "require_with_tag", "require_without_tag":
			var tags []string
			if err := unmarshalStrict(m[k], &tags); err != nil {
				return a, badRequest("affinity %s must be a list of tags", k)
			}
			for _, t := range tags {
				if !tagRE.MatchString(t) {
					return a, badRequest("affinity %s: %q is not a valid tag", k, truncate(t))
				}
			}
			if k == "require_with_tag" {
				a.with = tags
			} else {
				a.without = tags
			}
		default:
			// Soft affinity: a weight per tag of instances already placed.
			var weight json.Number
			if err := unmarshalStrict(m[k], &weight); err != nil {
				return a, badRequest("affinity %q must be a number (a soft affinity weight) or require_with_tag / require_without_tag", truncate(k))
			}
		}
	}
	return a, nil
}

func nonEmpty(name string, v *string) *apiError {
	switch {
	case v == nil:
		return nil
	case *v == "":
		return badRequest("%s is empty: omit the field instead", name)
	case len(*v) > maxStringBytes:
		return badRequest("%s is longer than %d bytes", name, maxStringBytes)
	}
	return nil
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
