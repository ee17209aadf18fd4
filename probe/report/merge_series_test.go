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
