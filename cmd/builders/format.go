package builders

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
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

func Itoa(n int) string { return strconv.Itoa(n) }

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

// CheckEventsLimit refuses an events --limit the server would refuse: a
// 2026 server validates it to 1–1000 (shakenfist-2026.md 2.4), and a 2024
// one took any integer, so the tighter bound holds for both. An unset flag
// leaves the server's default (100).
func CheckEventsLimit(c *cobra.Command, limit int) error {
	if !c.Flags().Changed("limit") || (limit >= 1 && limit <= client.MaxEventsLimit) {
		return nil
	}
	return &cmdutil.UsageError{Msg: fmt.Sprintf("--limit %d is outside 1-%d, the events a server sends at most", limit, client.MaxEventsLimit), Command: c.CommandPath()}
}
