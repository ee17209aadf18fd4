package namespace

import (
	"testing"
	"time"
)

// FuzzParseExpiry: whatever --expiry accepts is in the future.
func FuzzParseExpiry(f *testing.F) {
	for _, seed := range []string{"720h", "1ns", "-1h", "0s", "2099-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "9999999999h", "tomorrow", "", "2099-13-01T00:00:00Z"} {
		f.Add(seed)
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		got, err := parseExpiry(v, func() time.Time { return now })
		switch {
		case err != nil:
		case v == "" && !got.IsZero():
			t.Fatalf("%q: %v, want never", v, got)
		case v != "" && !got.After(now):
			t.Fatalf("%q: %v is not in the future", v, got)
		}
	})
}
