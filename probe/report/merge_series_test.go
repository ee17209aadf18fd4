package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Reports without series points merge into "series": [], not null.
func TestMergedSeriesIsAnArrayEvenWhenEmpty(t *testing.T) {
	start := time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	got := mergeSeries(start, []*Report{{StartedAt: start}, {StartedAt: start}})
	b, err := json.Marshal(struct {
		Series []SeriesPoint `json:"series"`
	}{got})
	if err != nil || !strings.Contains(string(b), `"series":[]`) {
		t.Errorf("merged series = %s (%v), want []", b, err)
	}
}

// A merged report's resends are the shards' resends added up, as its
// requests are: a resend counted by one shard is not lost in the merge.
func TestMergeAddsUpResends(t *testing.T) {
	var reports []*Report
	for i, resends := range []int64{3, 0, 4} {
		r, err := ReadReport(strings.NewReader(string(shardReport(t, i, 3))))
		if err != nil {
			t.Fatal(err)
		}
		r.Resends = resends
		reports = append(reports, r)
	}
	m, err := Merge(reports, CheckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Resends != 7 {
		t.Errorf("merged resends %d, want 7", m.Resends)
	}
}
