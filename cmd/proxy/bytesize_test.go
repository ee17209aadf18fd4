package proxy

import "testing"

// --replay-memory takes the sizes its help names, and its value prints back
// as it parses (the default reads 64Mi in --help).
func TestByteSizeParsesAndPrintsBack(t *testing.T) {
	for in, want := range map[string]int64{
		"64Mi": 64 << 20, "64MiB": 64 << 20, "1Gi": 1 << 30, "500M": 500_000_000, "1048576": 1 << 20, "1000": 1000,
	} {
		var b ByteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
			continue
		}
		var back ByteSize
		if err := back.Set(b.String()); err != nil || back != b {
			t.Errorf("%q prints as %q, which reads back as %d, %v", in, b.String(), back, err)
		}
	}
	// 0 is a size; --replay-memory's range refuses it (numflag).
	for _, bad := range []string{"-1", "1e9", "lots", ""} {
		var b ByteSize
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted as %d", bad, b)
		}
	}
}
