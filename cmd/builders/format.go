package builders

import (
	"encoding/json"
	"math"
	"time"
)

// How the resources' columns and fields show values.

// FormatUnix renders a Unix timestamp as RFC 3339 in UTC, "" for none.
func FormatUnix(ts float64) string {
	if ts <= 0 || math.IsNaN(ts) || math.IsInf(ts, 0) || ts > 1e11 {
		return ""
	}
	sec, frac := math.Modf(ts)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC().Format(time.RFC3339)
}

func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// CompactJSON renders a metadata map as one line of JSON with sorted keys,
// "" when empty.
func CompactJSON(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}
