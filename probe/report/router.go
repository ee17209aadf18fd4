package report

import (
	"encoding/json"
	"math"
	"strings"
	"time"
)

// The router's own view of a run, as the engine scraped it: its metrics
// and its status card, and the deltas the checks compare with the probe's
// counts.

// RouterMetrics is what one scrape of the router's /metrics said. A nil
// field means the metric was absent (an OpenTelemetry instrument that has
// recorded nothing is not exported, so absent reads as zero in deltas).
type RouterMetrics struct {
	ParkingActive        *float64 `json:"parking_active"`
	ParkingRejectedTotal *float64 `json:"parking_rejected_total"`
	// ParkingWait is the wait histogram per outcome label.
	ParkingWait map[string]WaitStats `json:"parking_wait,omitempty"`
	// AtenetRouter says the exposition is the atenet router's: a series
	// named atenet_router_*, or otel_scope_name or service_name
	// "atenet-router". A router that has parked nothing yet exports no
	// parking series, but its route duration and target_info are there.
	AtenetRouter bool `json:"atenet_router,omitempty"`
	// Dataplane names whose exposition it is: DataplaneAtenet or
	// DataplaneAgentgateway (whose gauge then fills ParkingActive), ""
	// for neither.
	Dataplane string `json:"dataplane,omitempty"`
}

// The dataplanes a /metrics exposition can be told apart as.
const (
	DataplaneAtenet       = "atenet-router"
	DataplaneAgentgateway = "agentgateway"
)

// Dataplane is whose metrics the run scraped: DataplaneAtenet,
// DataplaneAgentgateway, or "" (no metrics, or neither's).
func (r *Report) Dataplane() string {
	if r.Metrics == nil {
		return ""
	}
	for _, s := range []*RouterMetrics{r.Metrics.After, r.Metrics.Before} {
		if s != nil && s.Dataplane != "" {
			return s.Dataplane
		}
	}
	for _, s := range []*RouterMetrics{r.Metrics.After, r.Metrics.Before} {
		if s != nil && s.AtenetRouter {
			return DataplaneAtenet
		}
	}
	return ""
}

// WaitStats is one outcome's series of the wait histogram.
type WaitStats struct {
	Count      float64 `json:"count"`
	SumSeconds float64 `json:"sum_seconds"`
	// Buckets are cumulative counts by upper bound in seconds.
	Buckets []Bucket `json:"buckets,omitempty"`
}

// Bucket is a cumulative histogram bucket.
type Bucket struct {
	LE    float64 `json:"le"`
	Count float64 `json:"count"`
}

// MarshalJSON writes +Inf bounds as the string "+Inf", which JSON numbers
// cannot hold.
func (b Bucket) MarshalJSON() ([]byte, error) {
	le := any(b.LE)
	if math.IsInf(b.LE, 1) {
		le = "+Inf"
	}
	return json.Marshal(struct {
		LE    any     `json:"le"`
		Count float64 `json:"count"`
	}{le, b.Count})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (b *Bucket) UnmarshalJSON(data []byte) error {
	var raw struct {
		LE    json.RawMessage `json:"le"`
		Count float64         `json:"count"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	b.Count = raw.Count
	if string(raw.LE) == `"+Inf"` {
		b.LE = math.Inf(1)
		return nil
	}
	return json.Unmarshal(raw.LE, &b.LE)
}

// StatuszParking is the "Request Parking" card of the router's /statusz.
type StatuszParking struct {
	Enabled   *bool    `json:"enabled"`
	Active    *float64 `json:"active"`
	MaxParked *float64 `json:"max_parked"`
	// MaxWait is kept as the router wrote it (a duration string or seconds).
	MaxWait json.RawMessage `json:"max_wait,omitempty"`
}

// MaxPlausibleLot bounds the counts a parking card may show: the lot is
// an int flag, and no router parks more than this.
const MaxPlausibleLot = 1 << 31

// Impossible says what in the card no router could show (a negative or
// fractional count, a lot beyond MaxPlausibleLot, more parked than the lot
// with parking on, a max_wait that is no duration), or "" when nothing.
func (p *StatuszParking) Impossible() string {
	if p == nil {
		return ""
	}
	var bad []string
	for _, c := range []struct {
		name string
		v    *float64
	}{{"active", p.Active}, {"max_parked", p.MaxParked}} {
		if v := c.v; v != nil && (math.IsNaN(*v) || *v < 0 || *v != math.Trunc(*v) || *v > MaxPlausibleLot) {
			bad = append(bad, c.name+" "+formatFloat(*v))
		}
	}
	if len(bad) == 0 && p.Active != nil && p.MaxParked != nil && *p.MaxParked > 0 && *p.Active > *p.MaxParked && p.Enabled != nil && *p.Enabled {
		bad = append(bad, "active "+formatFloat(*p.Active)+" above max_parked "+formatFloat(*p.MaxParked))
	}
	if len(p.MaxWait) > 0 && string(p.MaxWait) != "null" {
		if _, ok := p.MaxWaitDuration(); !ok {
			bad = append(bad, "max_wait "+string(p.MaxWait))
		}
	}
	return strings.Join(bad, ", ")
}

// MaxWaitDuration reads max_wait as PR #221 writes it (a Go duration
// string, "30s") or as a number of seconds.
func (p *StatuszParking) MaxWaitDuration() (time.Duration, bool) {
	if p == nil || len(p.MaxWait) == 0 {
		return 0, false
	}
	var s string
	if json.Unmarshal(p.MaxWait, &s) == nil {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return 0, false
		}
		return d, true
	}
	var f float64
	if json.Unmarshal(p.MaxWait, &f) == nil && f > 0 && f < float64(math.MaxInt64/int64(time.Second)) {
		return time.Duration(f * float64(time.Second)), true
	}
	return 0, false
}

// ComputeDeltas derives the run's deltas from the before and after scrapes;
// a metric missing from a scrape counts as zero there (OpenTelemetry does
// not export an instrument before its first measurement).
func (m *MetricsReport) ComputeDeltas() {
	m.RejectedDelta, m.WaitDelta = nil, nil
	if m.Before == nil || m.After == nil {
		return
	}
	d := val(m.After.ParkingRejectedTotal) - val(m.Before.ParkingRejectedTotal)
	m.RejectedDelta = &d
	for outcome, after := range m.After.ParkingWait {
		before := m.Before.ParkingWait[outcome]
		w := WaitStats{Count: after.Count - before.Count, SumSeconds: after.SumSeconds - before.SumSeconds}
		for _, b := range after.Buckets {
			c := b.Count
			for _, bb := range before.Buckets {
				if bb.LE == b.LE {
					c -= bb.Count
				}
			}
			w.Buckets = append(w.Buckets, Bucket{LE: b.LE, Count: c})
		}
		if w.Count == 0 {
			continue
		}
		if m.WaitDelta == nil {
			m.WaitDelta = map[string]WaitStats{}
		}
		m.WaitDelta[outcome] = w
	}
	switch {
	case m.After.ParkingWait["budget_exhausted"].Count > 0:
		m.WaitBudgetLabel = "budget_exhausted"
	case m.After.ParkingWait["error"].Count > 0:
		m.WaitBudgetLabel = "error"
	}
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
