package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
)

// MaxDiskGiB bounds a disk size given on the command line; anything larger
// is a typo (or an overflow), not a disk.
const MaxDiskGiB = 1 << 20

// ParseDiskSpec reads sf-client's -d argument, "SIZE[@BASE]": SIZE is a
// positive whole number of GiB, BASE an optional image (a name such as
// "debian:12" or a URL, which may itself contain "@", so only the first "@"
// splits).
func ParseDiskSpec(s string) (DiskRequest, error) {
	sizeText, base, hasBase := strings.Cut(s, "@")
	size, err := parseSize(sizeText)
	if err != nil {
		return DiskRequest{}, fmt.Errorf("invalid disk %q: %s (want SIZE[@BASE], e.g. 20@debian:12)", s, err)
	}
	if hasBase {
		if base == "" {
			return DiskRequest{}, fmt.Errorf("invalid disk %q: empty base image after @ (want SIZE[@BASE], e.g. 20@debian:12)", s)
		}
		if bad := badRune(base); bad != "" {
			return DiskRequest{}, fmt.Errorf("invalid disk %q: base image contains %s", s, bad)
		}
	}
	return DiskRequest{Size: size, Base: base}, nil
}

func parseSize(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("no size")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("size %q is not a whole number of GiB", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > MaxDiskGiB {
		return 0, fmt.Errorf("size %s GiB is too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("size must be at least 1 GiB")
	}
	return n, nil
}

// ParseNetworkSpec reads sf-client's -n argument, "NET[@ADDR]": a network's
// uuid or name, and optionally the IP address the interface should get.
func ParseNetworkSpec(s string) (NetworkRequest, error) {
	netRef, addr, hasAddr := strings.Cut(s, "@")
	if netRef == "" {
		return NetworkRequest{}, fmt.Errorf("invalid network %q: no network name or uuid (want NET[@ADDR], e.g. net1@10.0.0.5)", s)
	}
	if bad := badRune(netRef); bad != "" {
		return NetworkRequest{}, fmt.Errorf("invalid network %q: the network name contains %s", s, bad)
	}
	if !hasAddr {
		return NetworkRequest{NetworkUUID: netRef}, nil
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil || ip.Zone() != "" {
		return NetworkRequest{}, fmt.Errorf("invalid network %q: %q is not an IP address (want NET[@ADDR], e.g. net1@10.0.0.5)", s, addr)
	}
	return NetworkRequest{NetworkUUID: netRef, Address: ip.String()}, nil
}

// jsonMetadataKeys are the metadata keys whose values are JSON, because the
// server reads structure from them: "tags" (a list of strings) and
// "affinity" (an object: integer weights per tag on shakenfist da448b1a,
// which only rank nodes; hard require_with_tag/require_without_tag rules on
// servers that follow shakenfist's capacity_refusals.md, 0c24a714).
var jsonMetadataKeys = map[string]func(any) bool{
	"tags": func(v any) bool {
		list, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range list {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	},
	"affinity": func(v any) bool {
		_, ok := v.(map[string]any)
		return ok
	},
}

var jsonMetadataExample = map[string]string{
	"tags":     `tags=["web","prod"]`,
	"affinity": `affinity={"prefer_with_tag":["fastdisk"]}`,
}

// ParseMetadata reads -m arguments, "KEY=VALUE" each. Values are strings,
// except "tags" (a JSON array of strings) and "affinity" (a JSON object).
// A key given twice is an error rather than a silent overwrite.
func ParseMetadata(kvs []string) (map[string]any, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("invalid metadata %q: want KEY=VALUE", kv)
		}
		if key == "" {
			return nil, fmt.Errorf("invalid metadata %q: empty key", kv)
		}
		if bad := badRune(key); bad != "" {
			return nil, fmt.Errorf("invalid metadata %q: the key contains %s", kv, bad)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("metadata key %q given twice", key)
		}
		check, isJSON := jsonMetadataKeys[key]
		if !isJSON {
			out[key] = val
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(val)))
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() || !check(v) {
			return nil, fmt.Errorf("invalid metadata %q: %s must be JSON, e.g. %s", kv, key, jsonMetadataExample[key])
		}
		out[key] = v
	}
	return out, nil
}

// badRune names the first character that has no place in a name: white
// space or a control character (which could also rewrite a terminal when
// the error is printed).
func badRune(s string) string {
	for _, r := range s {
		switch {
		case r == unicode.ReplacementChar:
			return "invalid UTF-8"
		case unicode.IsSpace(r):
			return "white space"
		case unicode.IsControl(r):
			return "a control character"
		}
	}
	return ""
}

// parseKV reads sf-client's long-form specs, "key=value,key=value"
// (client-python 6c25293c commandline/instance.py: each element split on
// "=", exactly two parts). A key outside allowed, or given twice, is
// refused here, as the 2026 server refuses unknown keys.
func parseKV(what, s string, allowed []string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return nil, &UsageError{Field: what, Problem: "empty specification"}
	}
	for _, elem := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(elem, "=")
		if !ok || strings.Contains(v, "=") || k == "" {
			return nil, &UsageError{Field: what, Problem: fmt.Sprintf("%q should be key=value", elem)}
		}
		if bad := badRune(k + v); bad != "" {
			return nil, &UsageError{Field: what, Problem: fmt.Sprintf("%q contains %s", elem, bad)}
		}
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			return nil, &UsageError{Field: what, Problem: fmt.Sprintf("unknown key %q (known: %s)", k, strings.Join(allowed, ", "))}
		}
		if _, dup := out[k]; dup {
			return nil, &UsageError{Field: what, Problem: fmt.Sprintf("key %q given twice", k)}
		}
		out[k] = v
	}
	return out, nil
}

// Disk buses and types the server accepts (da448b1a instance.py: bus in
// sata, scsi, usb, virtio, nvme; 2026 diskspec: type disk or cdrom).
var (
	diskBuses = map[string]bool{"sata": true, "scsi": true, "usb": true, "virtio": true, "nvme": true}
	diskTypes = map[string]bool{"disk": true, "cdrom": true}
)

// ParseDiskSpecLong reads -D/--diskspec: "size=8,base=debian:12,bus=virtio,
// type=disk" with the 2026 diskspec keys (size, base, bus, type). A disk
// needs a size or a base.
func ParseDiskSpecLong(s string) (DiskRequest, error) {
	kv, err := parseKV("diskspec", s, []string{"size", "base", "bus", "type"})
	if err != nil {
		return DiskRequest{}, err
	}
	var d DiskRequest
	if v, ok := kv["size"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxDiskGiB {
			return DiskRequest{}, &UsageError{Field: "diskspec", Problem: fmt.Sprintf("size %q is not a whole number of GiB", v)}
		}
		d.Size = n
	}
	d.Base, d.Bus, d.Type = kv["base"], kv["bus"], kv["type"]
	if d.Size == 0 && (d.Base == "" || d.Base == "none") {
		return DiskRequest{}, &UsageError{Field: "diskspec", Problem: "a disk needs a size or a base image"}
	}
	if d.Bus != "" && !diskBuses[d.Bus] {
		return DiskRequest{}, &UsageError{Field: "diskspec", Problem: fmt.Sprintf("bus %q is not one of nvme, sata, scsi, usb, virtio", d.Bus)}
	}
	if d.Type != "" && !diskTypes[d.Type] {
		return DiskRequest{}, &UsageError{Field: "diskspec", Problem: fmt.Sprintf("type %q is not disk or cdrom", d.Type)}
	}
	return d, nil
}

// nicModel is the 2026 networkspec's model pattern.
func nicModel(m string) bool {
	if len(m) < 1 || len(m) > 32 {
		return false
	}
	for _, r := range m {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// ParseNetworkSpecLong reads -N/--networkspec: "network_uuid=net1,
// address=10.0.0.5,macaddress=…,model=virtio,float=true" (the 2026
// networkspec keys; network_uuid required). float is true for "true" or
// "True", as sf-client reads it, and false for "false"/"False".
func ParseNetworkSpecLong(s string) (NetworkRequest, error) {
	kv, err := parseKV("networkspec", s, []string{"network_uuid", "address", "macaddress", "model", "float"})
	if err != nil {
		return NetworkRequest{}, err
	}
	n := NetworkRequest{NetworkUUID: kv["network_uuid"], MACAddress: kv["macaddress"], Model: kv["model"]}
	if n.NetworkUUID == "" {
		return NetworkRequest{}, &UsageError{Field: "networkspec", Problem: "network_uuid is required"}
	}
	if a, ok := kv["address"]; ok && a != "none" {
		ip, err := netip.ParseAddr(a)
		if err != nil || ip.Zone() != "" {
			return NetworkRequest{}, &UsageError{Field: "networkspec", Problem: fmt.Sprintf("address %q is not an IP address (or none)", a)}
		}
		n.Address = ip.String()
	} else if ok {
		n.Address = a
	}
	if n.Model != "" && !nicModel(n.Model) {
		return NetworkRequest{}, &UsageError{Field: "networkspec", Problem: fmt.Sprintf("model %q is not 1-32 of A-Z a-z 0-9 . _ -", n.Model)}
	}
	switch f, ok := kv["float"]; {
	case !ok:
	case f == "true" || f == "True":
		n.Float = true
	case f == "false" || f == "False":
	default:
		return NetworkRequest{}, &UsageError{Field: "networkspec", Problem: fmt.Sprintf("float %q is not true or false", f)}
	}
	return n, nil
}

// ParseFloatedSpec reads -f/--floated: NET[@ADDR] like -n, with a floating
// address (sf-client: "As for --networkspec, but with implied float").
func ParseFloatedSpec(s string) (NetworkRequest, error) {
	n, err := ParseNetworkSpec(s)
	if err != nil {
		return NetworkRequest{}, err
	}
	n.Float = true
	return n, nil
}

// VDI kinds the 2026 videospec accepts.
var videoVDI = map[string]bool{"vnc": true, "spice": true, "spiceconcurrent": true, "spicedebug": true}

// ParseVideoSpec reads -V/--videospec: "model=qxl,memory=65536,vdi=spice",
// starting from sf-client's default {"model": "cirrus", "memory": 16384}
// so that a spec may change one field.
func ParseVideoSpec(s string) (VideoSpec, error) {
	kv, err := parseKV("videospec", s, []string{"model", "memory", "vdi"})
	if err != nil {
		return VideoSpec{}, err
	}
	v := VideoSpec{Model: "cirrus", Memory: 16384, VDI: kv["vdi"]}
	if m, ok := kv["model"]; ok {
		if m == "" {
			return VideoSpec{}, &UsageError{Field: "videospec", Problem: "empty model"}
		}
		v.Model = m
	}
	if m, ok := kv["memory"]; ok {
		n, err := strconv.Atoi(m)
		if err != nil || n <= 0 {
			return VideoSpec{}, &UsageError{Field: "videospec", Problem: fmt.Sprintf("memory %q is not a positive whole number of KiB", m)}
		}
		v.Memory = n
	}
	if v.VDI != "" && !videoVDI[v.VDI] {
		return VideoSpec{}, &UsageError{Field: "videospec", Problem: fmt.Sprintf("vdi %q is not one of vnc, spice, spiceconcurrent, spicedebug", v.VDI)}
	}
	return v, nil
}
