package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"

	"github.com/shakenfist/shakectl/sim/router"
)

// Issue 16: the JSON report is held to probe/report/report.v1.schema.json.
// The schema is strict (additionalProperties false), so a field added to
// the report without a schema change fails here.

func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.ReportJSONSchema()))
	if err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// started_at must be a date-time and the histograms base64, not just
	// strings.
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource(report.ReportSchemaFile, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(report.ReportSchemaFile)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, what string, doc []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", what, err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not follow the schema:\n%v", what, err)
	}
}

func reportJSON(t *testing.T, r *report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// goldenValues puts a typed value back for each placeholder the golden
// report's normaliser writes (see normalise in report_test.go), so the
// golden validates as the report it stands for.
var goldenValues = map[string]any{
	"<duration_seconds>": 1.25,
	"<in_flight_peak>":   24,
	"<in_flight>":        0,
	"<open_files_limit>": 1048576,
	"<second>":           0,
	"<sent>":             24,
	"<p50>":              0.002,
	"<p90>":              0.004,
	"<p99>":              0.005,
	"<max>":              0.005,
	// A real HdrHistogram V2 compressed one (a single 1 ms value).
	"<hdr>":         "HISTFAAAACZ42pJpmSzMwMDAzAABMJoRRFybvITB/gNE4Dw/EyAAAP//YWgFag==",
	"<service_hdr>": "HISTFAAAACZ42pJpmSzMwMDAzAABMJoRRFybvITB/gNE4Dw/EyAAAP//YWgFag==",
	"<started_at>":  "2030-01-02T15:04:05.123456789Z",
	"<url>":         "http://127.0.0.1:9090/metrics",
	"<target>":      "http://127.0.0.1:8080",
	"<parked>":      "no flight's first request refused early",
	"<run_id>":      "0123456789ab",
}

var placeholder = regexp.MustCompile(`^<[a-z0-9_]+>$`)

func fillPlaceholders(t *testing.T, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			x[k] = fillPlaceholders(t, vv)
		}
	case []any:
		for i := range x {
			x[i] = fillPlaceholders(t, x[i])
		}
	case string:
		if placeholder.MatchString(x) {
			typed, ok := goldenValues[x]
			if !ok {
				t.Errorf("the golden report holds placeholder %s, which this test cannot type: add it to goldenValues", x)
			}
			return typed
		}
	}
	return v
}

func TestGoldenReportFollowsSchema(t *testing.T) {
	s := reportSchema(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "report.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	filled, err := json.Marshal(fillPlaceholders(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, s, "testdata/report.golden.json", filled)
}

// TestSchemaIsStrict: what the schema must refuse, so that it can fail.
func TestSchemaIsStrict(t *testing.T) {
	s := reportSchema(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "report.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(m map[string]any){
		"unknown top-level field": func(m map[string]any) { m["new_field"] = 1 },
		"unknown outcome field":   func(m map[string]any) { outcome(m, "served")["new_field"] = 1 },
		"unknown outcome":         func(m map[string]any) { m["outcomes"].(map[string]any)["servd"] = outcome(m, "served") },
		"missing requests":        func(m map[string]any) { delete(m, "requests") },
		"negative count":          func(m map[string]any) { outcome(m, "shed")["count"] = -1 },
		"ok with failed status":   func(m map[string]any) { m["checks"].([]any)[0].(map[string]any)["status"] = "failed" },
		"schema of another major": func(m map[string]any) { m["schema"] = "parking-probe/v2" },
		"shards 0":                func(m map[string]any) { m["shards"] = 0 },
		"fractional shard":        func(m map[string]any) { m["shard"] = 1.5 },
		"started_at not a time":   func(m map[string]any) { m["started_at"] = "yesterday" },
		"hdr not base64":          func(m map[string]any) { outcome(m, "served")["hdr"] = "not base64!" },
		"unknown mode":            func(m map[string]any) { m["mode"] = "trickle" },
	} {
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		doc = fillPlaceholders(t, doc)
		edit(doc.(map[string]any))
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(must(json.Marshal(doc))))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(inst) == nil {
			t.Errorf("%s: accepted", name)
		}
	}

	// And the optional issue 16 fields are accepted when well-formed.
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	fillPlaceholders(t, doc)
	doc["schema"], doc["shard"], doc["shards"], doc["run_id"], doc["start_lateness_seconds"] = report.SchemaVersion+".2", 3, 4, "r-7f3a", 0.012
	validate(t, s, "a sharded report", must(json.Marshal(doc)))
}

func outcome(m map[string]any, name string) map[string]any {
	return m["outcomes"].(map[string]any)[name].(map[string]any)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestReportsOfEveryModeFollowSchema runs each load shape against the
// router simulator (with its metrics and statusz, on the virtual clock),
// then merges the three, and validates every report as written, not
// normalised.
func TestReportsOfEveryModeFollowSchema(t *testing.T) {
	s := reportSchema(t)
	synctest.Test(t, func(t *testing.T) {
		cfg := router.DefaultConfig()
		cfg.Workers = 2
		cfg.Actors = 10
		cfg.ParkedRequestMax = 8
		cfg.Seed = 1
		sim, tr := startMem(t, cfg)
		defer sim.Close()
		defer tr.CloseIdleConnections()
		var reports []*report.Report
		var names []string
		for _, o := range []probe.Options{
			{Mode: probe.Burst, Requests: 30},
			{Mode: probe.Closed, Concurrency: 3, Duration: 2 * time.Second},
			{Mode: probe.Open, Rate: 20, Duration: 2 * time.Second},
		} {
			o.Target, o.Actors, o.Seed = "http://router.test", probe.GeneratedActors(10), 7
			o.RoundTripper, o.ScrapeTransport = tr, tr
			o.MetricsURL, o.StatuszURL = "http://metrics.test/metrics", "http://status.test/statusz"
			r, err := probe.Run(context.Background(), o)
			if err != nil {
				t.Fatalf("%s: %v", o.Mode, err)
			}
			if r.Requests == 0 || r.Metrics == nil || r.Statusz == nil {
				t.Fatalf("%s: a report without load or router figures proves little: %+v", o.Mode, r)
			}
			doc := reportJSON(t, r)
			validate(t, s, string(o.Mode)+" report", doc)
			back, err := report.ReadReport(bytes.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			reports = append(reports, back)
			names = append(names, string(o.Mode)+".json")
		}
		if !strings.Contains(string(reportJSON(t, reports[2])), `"send_lateness_hdr"`) {
			t.Error("the open-mode report has no send lateness: the open-mode fields went unchecked")
		}
		m, err := report.Merge(reports, report.CheckConfigOf(reports[0]))
		if err != nil {
			t.Fatal(err)
		}
		m.Sources = names
		validate(t, s, "merged report", reportJSON(t, m))
	})
}
