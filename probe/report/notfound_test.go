package report

import (
	"strings"
	"testing"
)

// Issue 28, item 12: a run in which a large share of the answers are
// not_found fails reached_parking, naming the likely cause, even though
// some answers reached the parking path.
func TestManyNotFoundFailsReachedParking(t *testing.T) {
	run := func(served, notFound int64, detail string) Check {
		r := &Report{Requests: served + notFound, Outcomes: map[string]*OutcomeStats{
			Served.String(): {Count: served},
		}, Metrics: &MetricsReport{Before: &RouterMetrics{AtenetRouter: true}}}
		r.Load.Actors = 200
		if notFound > 0 {
			r.Outcomes[NotFound.String()] = &OutcomeStats{Count: notFound, Details: map[string]int64{detail: notFound}}
		}
		return r.checkReachedParking()
	}
	for _, c := range []struct {
		served, notFound int64
		detail           string
		ok               bool
		want             string
	}{
		{968, 1032, `actor "default/actor-0150" not found`, false, "1032 of 2000 answers (51.6%) were not_found, more than 20%: the router does not know some of the 200 actors: check ActorCount"},
		{10, 90, "invalid host", false, "change HostTemplate"},
		{900, 100, `actor "x" not found`, true, "came from the parking path"},
		{1000, 0, "", true, "came from the parking path"},
	} {
		got := run(c.served, c.notFound, c.detail)
		if got.OK != c.ok || !strings.Contains(got.Detail, c.want) {
			t.Errorf("served %d, not_found %d: ok %v %q; want ok %v and %q", c.served, c.notFound, got.OK, got.Detail, c.ok, c.want)
		}
	}
}
