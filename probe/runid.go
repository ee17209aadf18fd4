package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// RunID is the id every shard of one command line computes alone, with no
// coordination: the first 12 hex digits of SHA-256 over the seed,
// --start-at, the target (and URL or Host template), the mode and its whole
// unsharded load (requests, concurrency, rate, duration), the actors,
// the distribution and the shard count. Two command lines that differ in
// any of these get different ids. Call it on validated options, before the
// load is cut into this shard's part.
func (o *Options) RunID() string {
	start := ""
	if !o.StartAt.IsZero() {
		start = o.StartAt.UTC().Format(time.RFC3339Nano)
	}
	actors := strconv.Itoa(o.ActorCount) + "+" + strings.Join(o.Actors, ",")
	key := strings.Join([]string{
		report.SchemaName, strconv.FormatUint(o.Seed, 10), start, o.Target, o.URLTemplate, o.HostTemplate, o.Atespace,
		string(o.Mode), strconv.Itoa(o.Requests), strconv.Itoa(o.Concurrency),
		strconv.FormatFloat(o.Rate, 'g', -1, 64), o.Duration.String(),
		actors, o.Distribution.String(), strconv.Itoa(max(o.Shard.Count, 1)),
	}, "\x00")
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:6])
}

// runInfo is what a single run's report says about itself; start is when
// its load started.
func (o *Options) runInfo(start time.Time) report.RunInfo {
	idx := o.Shard.Index
	ri := report.RunInfo{Schema: report.SchemaVersion, RunID: o.runID, Shard: &idx, Shards: max(o.Shard.Count, 1)}
	if !o.StartAt.IsZero() && !start.IsZero() {
		late := max(start.Sub(o.StartAt), 0).Seconds()
		ri.StartLatenessSeconds = &late
	}
	return ri
}
