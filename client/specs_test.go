package client

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseDiskSpec(t *testing.T) {
	good := map[string]DiskRequest{
		"20":                      {Size: 20},
		"20@debian:12":            {Size: 20, Base: "debian:12"},
		"8@https://u@h/img.qcow2": {Size: 8, Base: "https://u@h/img.qcow2"},
		"1048576":                 {Size: MaxDiskGiB},
	}
	for in, want := range good {
		got, err := ParseDiskSpec(in)
		if err != nil || got != want {
			t.Errorf("ParseDiskSpec(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":               "no size",
		"@debian":        "no size",
		"0":              "at least 1 GiB",
		"-5":             "not a whole number",
		"20.5":           "not a whole number",
		"1e3":            "not a whole number",
		" 20":            "not a whole number",
		"20G":            "not a whole number",
		"20@":            "empty base",
		"20@deb ian":     "white space",
		"20@deb\x1bian":  "control character",
		"99999999999999": "too large",
		"1048577":        "too large",
		"٣":              "not a whole number", // Arabic-Indic digit three
	}
	for in, want := range bad {
		_, err := ParseDiskSpec(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDiskSpec(%q) error = %v; want it to say %q", in, err, want)
		}
	}
}

func TestParseNetworkSpec(t *testing.T) {
	good := map[string]NetworkRequest{
		"net1":              {NetworkUUID: "net1"},
		"net1@10.0.0.5":     {NetworkUUID: "net1", Address: "10.0.0.5"},
		"net1@fd00::5":      {NetworkUUID: "net1", Address: "fd00::5"},
		"net1@FD00:0:0::05": {NetworkUUID: "net1", Address: "fd00::5"},
		"6d3b3c84-93e8-4ad7-9c30-2d0c0fd3d6b1@192.168.1.9": {NetworkUUID: "6d3b3c84-93e8-4ad7-9c30-2d0c0fd3d6b1", Address: "192.168.1.9"},
	}
	for in, want := range good {
		got, err := ParseNetworkSpec(in)
		if err != nil || got != want {
			t.Errorf("ParseNetworkSpec(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                   "no network",
		"@10.0.0.5":          "no network",
		"net1@":              "not an IP address",
		"net1@10.0.0":        "not an IP address",
		"net1@10.0.0.256":    "not an IP address",
		"net1@host.example":  "not an IP address",
		"net1@fe80::1%eth0":  "not an IP address",
		"net1@10.0.0.5@x":    "not an IP address",
		"net 1":              "white space",
		"net\n1@10.0.0.1":    "white space",
		"net1@10.0.0.5/24":   "not an IP address",
		"net\x001@10.0.0.5":  "control character",
		"net\xff1@10.0.0.5":  "invalid UTF-8",
		"net1@ 10.0.0.5":     "not an IP address",
		"net1@010.000.0.005": "not an IP address",
	}
	for in, want := range bad {
		_, err := ParseNetworkSpec(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseNetworkSpec(%q) error = %v; want it to say %q", in, err, want)
		}
	}
}

func TestParseMetadata(t *testing.T) {
	got, err := ParseMetadata([]string{"k=v", `tags=["a","b"]`, "empty=", "eq=a=b", `affinity={"require_with_tag":["ssd"]}`, `other=["not","parsed"]`})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"k":        "v",
		"tags":     []any{"a", "b"},
		"empty":    "",
		"eq":       "a=b",
		"affinity": map[string]any{"require_with_tag": []any{"ssd"}},
		"other":    `["not","parsed"]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	if m, err := ParseMetadata(nil); m != nil || err != nil {
		t.Errorf("no -m: got %v, %v; want nil, nil so the field is omitted", m, err)
	}

	bad := map[string]string{
		"novalue":                      "want KEY=VALUE",
		"=v":                           "empty key",
		"a b=c":                        "white space",
		`tags=a,b`:                     `tags must be JSON, e.g. tags=["web","prod"]`,
		`tags=[1,2]`:                   "tags must be JSON",
		`tags={"a":1}`:                 "tags must be JSON",
		`tags=["a"] ["b"]`:             "tags must be JSON",
		`tags=`:                        "tags must be JSON",
		`affinity=["ssd"]`:             "affinity must be JSON",
		`affinity={"require_with_tag"`: "affinity must be JSON",
	}
	for in, want := range bad {
		_, err := ParseMetadata([]string{in})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMetadata(%q) error = %v; want it to say %q", in, err, want)
		}
	}
	if _, err := ParseMetadata([]string{"k=1", "k=2"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("duplicate key: %v", err)
	}
}

// Hostile inputs shared by the fuzz targets: empty parts, separators only,
// huge numbers, control and invalid bytes, terminal escapes, JSON bombs.
var hostile = []string{
	"", "@", "@@", "=", "==", "20@", "@x", "-1", "+1", "0x10", "1_000", "١٢", "9223372036854775808",
	"20@\x1b]0;pwned\x07", "net\x00@1.1.1.1", "\xff\xfe", "net@::ffff:1.2.3.4", "net@1.2.3.4%25eth0",
	strings.Repeat("9", 400), strings.Repeat("@", 300), "tags=" + strings.Repeat("[", 5000),
	`tags=["a\u0000"]`, `affinity={"a":` + strings.Repeat(`{"a":`, 200), "k=\n", "\u202ek=v",
}

func FuzzParseDiskSpec(f *testing.F) {
	for _, s := range append(hostile, "20", "20@debian:12", "8@https://a@b/c") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDiskSpec(s)
		if err != nil {
			checkOneLine(t, err)
			return
		}
		if d.Size < 1 || d.Size > MaxDiskGiB {
			t.Fatalf("%q: accepted size %d", s, d.Size)
		}
		if d.Base != "" && !strings.HasSuffix(s, "@"+d.Base) {
			t.Fatalf("%q: base %q is not what followed the first @", s, d.Base)
		}
		if strings.ContainsFunc(d.Base, func(r rune) bool { return r < 0x20 || r == ' ' }) {
			t.Fatalf("%q: base with space or control character accepted", s)
		}
	})
}

func FuzzParseNetworkSpec(f *testing.F) {
	for _, s := range append(hostile, "net1", "net1@10.0.0.5", "n@fd00::1") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseNetworkSpec(s)
		if err != nil {
			checkOneLine(t, err)
			return
		}
		if n.NetworkUUID == "" || strings.Contains(n.NetworkUUID, "@") {
			t.Fatalf("%q: accepted network %q", s, n.NetworkUUID)
		}
		if n.Address != "" {
			if _, err := netip.ParseAddr(n.Address); err != nil {
				t.Fatalf("%q: accepted address %q that does not parse", s, n.Address)
			}
		}
	})
}

func FuzzParseMetadata(f *testing.F) {
	for _, s := range append(hostile, "k=v", `tags=["a"]`, `affinity={"require_without_tag":["gpu"]}`) {
		f.Add(s, "x=y")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		m, err := ParseMetadata([]string{a, b})
		if err != nil {
			checkOneLine(t, err)
			return
		}
		if len(m) != 2 {
			t.Fatalf("%q %q: %d keys", a, b, len(m))
		}
		// The request body must encode: the server gets valid JSON.
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("%q %q: metadata does not encode: %v", a, b, err)
		}
		if tags, ok := m["tags"]; ok {
			if _, ok := tags.([]any); !ok {
				t.Fatalf("tags accepted as %T", tags)
			}
		}
	})
}

func checkOneLine(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r\x1b\x00") || !utf8.ValidString(msg) {
		t.Fatalf("error is not one clean line: %q", msg)
	}
}
