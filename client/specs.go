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
// servers that follow seed 004).
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
	"affinity": `affinity={"fastdisk":10}`,
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
