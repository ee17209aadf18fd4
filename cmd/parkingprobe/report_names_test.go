package parkingprobe_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/parkingprobe"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/probe/report"
)

// The report names the probe's options in its checks' details as the
// flags the user typed, in the JSON report of a run and of a merge: the
// report library writes {Field} placeholders, the command renders them.
func TestReportNamesTheFlagsTheUserTyped(t *testing.T) {
	t.Parallel()
	s := startSimRouter(t) // 20 actors: 80 of the 100 asked for are unknown
	out := filepath.Join(t.TempDir(), "run.json")
	r, _, errOut := runJSON(t, "--target", s.URL(), "--actors", "100", "--seed", "3", "--requests", "40", "--out", out)
	want := map[string]string{
		report.CheckRejectedMatchesShed: "no --metrics-url",
		report.CheckActiveDrains:        "no --metrics-url or --statusz-url",
	}
	for name, detail := range want {
		if c := checkOf(t, r, name); c.Detail != detail {
			t.Errorf("run: %s %q, want %q (%s)", name, c.Detail, detail, errOut)
		}
	}
	notFound := "the router does not know some of the 100 actors: check --actors (or --actors-file) against the actors the router has, and --atespace"
	if c := checkOf(t, r, report.CheckReachedParking); !strings.HasSuffix(c.Detail, notFound) {
		t.Errorf("run: reached_parking %q, want it to end %q", c.Detail, notFound)
	}

	f, stdout, stderr := probeTestFactory(t, context.Background())
	root.Run(f, []string{"parking-probe", "merge", out, "-o", "json"})
	merged, err := report.ReadReport(strings.NewReader(stdout.String()))
	if err != nil {
		t.Fatalf("merge: %v\n%s", err, stderr)
	}
	for name, detail := range want {
		if c := checkOf(t, merged, name); c.Detail != detail {
			t.Errorf("merge: %s %q, want %q", name, c.Detail, detail)
		}
	}
}

// Every text of the report that advises on an option, rendered with
// parking-probe's own flag table: the words users read, flag by flag.
func TestReportTextsRenderedWithTheFlagTable(t *testing.T) {
	t.Parallel()
	evaluated := func(r *report.Report) *report.Report {
		if r.Outcomes == nil {
			r.Outcomes = map[string]*report.OutcomeStats{}
		}
		r.Evaluate(report.CheckConfig{OptionName: parkingprobe.FlagName})
		return r
	}
	detail := func(r *report.Report, name string) string {
		for _, c := range r.Checks {
			if c.Name == name {
				return c.Detail
			}
		}
		t.Fatalf("no check %s", name)
		return ""
	}

	behind := evaluated(&report.Report{Mode: report.ModeOpen, Requests: 10, Load: report.LoadInfo{Scheduled: 100}})
	if d := detail(behind, report.CheckSenderOnSchedule); !strings.HasSuffix(d, ": this machine, not the router, limited the run; send less per process (--rate, or --shards over several machines)") {
		t.Errorf("sender_on_schedule %q", d)
	}

	for _, c := range []struct{ addressing, body, want string }{
		{"host {actor}.{atespace}.actors.resources.substrate.ate.dev", "invalid header ate-target-actor: expected <atespace>/<actor>",
			"use --addressing ate-target-actor (or -H 'ate-target-actor: {atespace}/{actor}')"},
		{"header ate-target-actor: {atespace}/{actor}", "invalid header ate-target-actor: expected <atespace>/<actor>",
			"check that -H value (or --addressing) and --atespace"},
		{"header ate-target-actor: {atespace}/{actor}", `invalid host "t": expected <actor>.<atespace>.actors.resources.substrate.ate.dev`,
			"use --addressing atespace (or --host-template)"},
	} {
		r := evaluated(&report.Report{Requests: 10, Load: report.LoadInfo{Addressing: c.addressing}, Outcomes: map[string]*report.OutcomeStats{
			report.NotFound.String(): {Count: 10, Details: map[string]int64{c.body: 10}}},
			Metrics: &report.MetricsReport{Before: &report.RouterMetrics{AtenetRouter: true}}})
		if d := detail(r, report.CheckReachedParking); !strings.HasSuffix(d, c.want) {
			t.Errorf("%s, %s: reached_parking %q, want it to end %q", c.addressing, c.body, d, c.want)
		}
	}
	for body, want := range map[string]string{
		`invalid host "a.b": expected <actor_name>.<atespace>.actors.resources.substrate.ate.dev`: "change --host-template to '{actor}.{atespace}.actors.resources.substrate.ate.dev' (the default) and name the atespace with --atespace",
		`invalid actor_id "a"`: "change --host-template (PR #221 wants '{actor}.actors.resources.substrate.ate.dev', --host-template pr221)",
		`invalid host "a.b"`:   "change --host-template or --atespace",
		`actor "x" not found`:  "the router knows none of the actors: check --atespace, the actor names and the Host form (--host-template)",
	} {
		r := evaluated(&report.Report{Requests: 10, Outcomes: map[string]*report.OutcomeStats{
			report.NotFound.String(): {Count: 10, Details: map[string]int64{body: 10}}},
			Metrics: &report.MetricsReport{Before: &report.RouterMetrics{AtenetRouter: true}}})
		if d := detail(r, report.CheckReachedParking); !strings.HasSuffix(d, want) {
			t.Errorf("%s: reached_parking %q, want it to end %q", body, d, want)
		}
	}
	unknown := evaluated(&report.Report{Requests: 10, Outcomes: map[string]*report.OutcomeStats{report.Other.String(): {Count: 10}}})
	if d := detail(unknown, report.CheckReachedParking); !strings.Contains(d, "(the atenet router or agentgateway): no --metrics-url or --statusz-url answered as one,") {
		t.Errorf("reached_parking %q", d)
	}

	late, one := 0.012, 1
	sharded := evaluated(&report.Report{RunInfo: report.RunInfo{Schema: report.SchemaVersion, RunID: "abc", Shard: &one, Shards: 4, StartLatenessSeconds: &late}})
	var text strings.Builder
	if err := report.WriteText(&text, sharded, nil); err != nil || !strings.Contains(text.String(), "shard 1 of 4 of run abc, started 12ms after --start-at\n") {
		t.Errorf("%v\n%s", err, text.String())
	}
}
