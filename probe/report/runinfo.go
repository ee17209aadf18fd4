package report

import (
	"fmt"
	"slices"
	"strings"
)

// RunInfo names a report: its schema, the run it belongs to, and which shard
// of that run it is, so that the shards' reports merge into one. It is
// embedded first in Report, so its fields lead the JSON document.
type RunInfo struct {
	// Schema is SchemaVersion; "parking-probe merge" refuses a major
	// version it does not know, and reads a report without one as v1.
	Schema string `json:"schema"`
	// RunID is shared by every shard of one command line: see RunID.
	RunID string `json:"run_id,omitempty"`
	// Shard is this report's shard index (nil in a merged report), Shards
	// the shard count of the run (1 when not sharded).
	Shard  *int `json:"shard,omitempty"`
	Shards int  `json:"shards,omitempty"`
	// StartLatenessSeconds is how long after --start-at the load started
	// (a burst's release); in a merged report the latest shard's.
	StartLatenessSeconds *float64 `json:"start_lateness_seconds,omitempty"`
	// StartSpreadSeconds, in a merged report, is the time between the
	// first and the last shard's start.
	StartSpreadSeconds *float64 `json:"start_spread_seconds,omitempty"`
}

// routerWideChecks compare the router's own figures with the probe's
// counts. A shard's scrapes see every shard's load, so it cannot judge
// them against its own part; merge judges them on the whole run.
var routerWideChecks = []string{CheckRejectedMatchesShed, CheckActiveDrains, CheckWaitMatchesBudgetExhausted}

// leaveRouterChecksToMerge skips, in one shard's report, the checks only
// the merged run can judge.
func (r *Report) leaveRouterChecksToMerge() {
	if r.Shards <= 1 || r.Shard == nil {
		return
	}
	for i, c := range r.Checks {
		if c.Status != CheckSkipped && slices.Contains(routerWideChecks, c.Name) {
			r.Checks[i] = skipped(c.Name, fmt.Sprintf("shard %d of %d: the router's figures include every shard's load; parking-probe merge judges this on the whole run", *r.Shard, r.Shards))
		}
	}
}

// shardLine tells, in text output, which run and shard a report is and
// how its start went against --start-at; "" for an unsharded run.
func (r *Report) shardLine() string {
	if r.Shards <= 1 {
		return ""
	}
	var b strings.Builder
	if r.Shard != nil {
		fmt.Fprintf(&b, "shard %d of %d of run %s", *r.Shard, r.Shards, r.RunID)
	} else {
		fmt.Fprintf(&b, "all %d shards of run %s", r.Shards, r.RunID)
	}
	if l := r.StartLatenessSeconds; l != nil {
		b.WriteString(r.say(", started %s after {StartAt}", fmtSec(*l)))
	}
	if s := r.StartSpreadSeconds; s != nil {
		fmt.Fprintf(&b, " (starts spread over %s)", fmtSec(*s))
	}
	return b.String()
}
