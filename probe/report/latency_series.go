package report

import (
	"cmp"
	"slices"
)

// LatencyOverTime is each outcome's latency against the time its answer
// arrived, one point per kept sample (X and Y in seconds from the start of
// the run), in the order of AllOutcomes, for the plot's latency-over-time
// panel. An outcome with more than perOutcome samples keeps every k-th in
// time order, so a rare outcome keeps all its points next to a common one.
// A report read back from JSON, or merged, has no samples: nil.
func LatencyOverTime(r *Report, perOutcome int) []OutcomeSeries {
	by := map[Outcome][]Point{}
	for _, s := range r.samples {
		done := s.Sent + s.Latency
		by[s.Outcome] = append(by[s.Outcome], Point{X: done.Seconds(), Y: s.Latency.Seconds()})
	}
	var out []OutcomeSeries
	for _, o := range AllOutcomes() {
		pts := by[o]
		if len(pts) == 0 {
			continue
		}
		slices.SortStableFunc(pts, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
		if perOutcome > 0 && len(pts) > perOutcome {
			kept := make([]Point, 0, perOutcome)
			for i := range perOutcome {
				kept = append(kept, pts[i*len(pts)/perOutcome])
			}
			pts = kept
		}
		out = append(out, OutcomeSeries{Outcome: o.String(), Count: r.Count(o), Points: pts})
	}
	return out
}
