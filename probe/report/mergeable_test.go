package report

import (
	"strings"
	"testing"
	"time"
)

// Shards of one run released by --start-at on one clock (or inside a
// synctest bubble) start at the same instant: they are different parts of
// the run, not one report given twice. The same shard twice still is.
func TestShardsStartingTogetherAreMergeable(t *testing.T) {
	at := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	shard := func(i int) *Report {
		return &Report{RunInfo: RunInfo{RunID: "r", Shard: &i, Shards: 2}, Target: "http://router:8080", Mode: "burst", StartedAt: at, Requests: 10}
	}
	if err := CheckMergeable([]*Report{shard(0), shard(1)}, []string{"a", "b"}, false); err != nil {
		t.Errorf("two shards that started together: %v", err)
	}
	if err := CheckMergeable([]*Report{shard(1), shard(1)}, []string{"a", "b"}, false); err == nil || !strings.Contains(err.Error(), "a and b are the same run") {
		t.Errorf("one shard twice: %v", err)
	}
}
