package router

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The captures in testdata/atenet-router-6210ad86 are what the real router
// at upstream main 6210ad86 sent in each situation (SOURCES.md). Each
// situation is rehearsed on --model main-2026-08, and what the simulator
// sends is compared with them: status and body bytes, the atenet_router_*
// families (names, types, HELP, label sets and counts), target_info's
// labels, and the statusz JSON's keys, order, types and parking card.

const captureDir = "testdata/atenet-router-6210ad86"

// captureAtespace and captureHost are the captures' atespace and Host.
const captureAtespace = "demo-ns"

func captureHost(actor string) string { return actor + "." + captureAtespace + HostSuffix }

// main202608Config is today's router at its defaults, in the captures'
// atespace, with the flags every captured run was given.
func main202608Config() Config {
	cfg := DefaultConfig()
	cfg.Listen, cfg.MetricsListen, cfg.StatusListen = "", "", ""
	cfg.Model = ModelMain202608
	ApplyMain202608Defaults(&cfg, func(string) bool { return false })
	cfg.Atespace = captureAtespace
	cfg.Seed = 1
	return cfg
}

// situation is one capture folder: how to configure the simulator, and
// what to send (each answer is named as the capture's *.http file).
type situation struct {
	name string
	edit func(*Config)
	run  func(h *harness) map[string]result
}

// getRoot asks for / on the actor's Host, as the captures' client did.
func (h *harness) getRoot(host string) result {
	req, err := http.NewRequest(http.MethodGet, h.s.URL()+"/", nil)
	if err != nil {
		return result{err: err}
	}
	req.Host = host
	resp, err := h.client.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{code: resp.StatusCode, body: string(b), header: resp.Header, err: err}
}

func one(actor string) func(h *harness) map[string]result {
	return func(h *harness) map[string]result { return map[string]result{"r": h.getRoot(captureHost(actor))} }
}

var situations = []situation{
	{"served", func(c *Config) {
		c.ParkedRequestBudget = 3 * time.Second
		c.Hold = map[string]Hold{"actor-0001": {For: time.Second}}
	}, one("actor-0001")},
	{"budget", func(c *Config) {
		c.ParkedRequestBudget = 3 * time.Second
		c.Hold = map[string]Hold{"actor-0010": {}}
	}, one("actor-0010")},
	{"budget-newtext", func(c *Config) {
		c.ParkedRequestBudget = 2 * time.Second
		c.Hold = map[string]Hold{"actor-0010": {}}
		c.PoolFullMessage = "no worker has room for the actor"
	}, one("actor-0010")},
	{"budget-fp", func(c *Config) {
		c.ParkedRequestBudget = 2 * time.Second
		c.Hold = map[string]Hold{"actor-0010": {}}
		c.PoolFullCode = FailedPrecondition
	}, one("actor-0010")},
	{"lotfull", func(c *Config) {
		c.ParkedRequestBudget = 3 * time.Second
		c.ParkedRequestMax = 1
		c.Hold = map[string]Hold{"actor-0010": {}}
	}, func(h *harness) map[string]result {
		// actor-0001 runs already: ateapi resumed it, not this router.
		if err := h.s.ResumeActor(context.Background(), "actor-0001"); err != nil {
			h.t.Fatal(err)
		}
		parked := make(chan result, 1)
		go func() { parked <- h.getRoot(captureHost("actor-0010")) }()
		synctest.Wait()
		shed := h.getRoot(captureHost("actor-0020"))
		running := h.getRoot(captureHost("actor-0001"))
		return map[string]result{"parked": <-parked, "running": running, "shed": shed}
	}},
	{"code-NotFound", func(c *Config) { c.ParkedRequestBudget = 2 * time.Second; c.NotFound = []string{"actor-0001"} }, one("actor-0001")},
	{"code-PermissionDenied", func(c *Config) { c.ParkedRequestBudget = 2 * time.Second; c.Deny = []string{"actor-0001"} }, one("actor-0001")},
	{"code-Unauthenticated", func(c *Config) { c.ParkedRequestBudget = 2 * time.Second; c.Unauth = []string{"actor-0001"} }, one("actor-0001")},
	{"code-DeadlineExceeded", func(c *Config) { c.ParkedRequestBudget = 2 * time.Second; c.Slow = []string{"actor-0001"} }, one("actor-0001")},
	{"code-Internal", func(c *Config) { c.ParkedRequestBudget = 2 * time.Second; c.Fail = []string{"actor-0001"} }, one("actor-0001")},
	{"code-Unavailable", func(c *Config) {
		c.ParkedRequestBudget = 2 * time.Second
		c.ControlPlaneUnavailable = []Window{{Start: 0, Duration: time.Hour}}
	}, one("actor-0001")},
	{"code-Aborted", func(c *Config) {
		c.ParkedRequestBudget = 2 * time.Second
		c.Abort = map[string]int{"actor-0001": 0}
	}, one("actor-0001")},
	{"disabled", func(c *Config) {
		c.ParkedRequestBudget = 3 * time.Second
		c.ParkedRequestMax = 0
		c.Hold = map[string]Hold{HoldEveryActor: {}}
	}, func(h *harness) map[string]result {
		return map[string]result{"r": h.getRoot(captureHost("actor-0010")), "ok": h.getRoot(captureHost("actor-0001"))}
	}},
	{"disabled-unavail", func(c *Config) {
		c.ParkedRequestMax = 0
		c.ControlPlaneUnavailable = []Window{{Start: 0, Duration: time.Hour}}
	}, one("actor-0001")},
	{"badhost", nil, func(h *harness) map[string]result {
		return map[string]result{"r": h.getRoot("actor-0001.actors.resources.substrate.ate.dev")}
	}},
}

// capturedAnswer reads a capture's *.http: the status and the body bytes.
func capturedAnswer(t *testing.T, path string) (int, string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	resp, err := http.ReadResponse(bufio.NewReader(f), nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return resp.StatusCode, string(b)
}

func TestMain202608MatchesCaptures(t *testing.T) {
	for _, sit := range situations {
		t.Run(sit.name, func(t *testing.T) {
			dir := filepath.Join(captureDir, sit.name)
			synctest.Test(t, func(t *testing.T) {
				cfg := main202608Config()
				if sit.edit != nil {
					sit.edit(&cfg)
				}
				h := startMem(t, cfg)
				defer h.close()
				got := sit.run(h)

				files, _ := filepath.Glob(filepath.Join(dir, "*.http"))
				if len(files) != len(got) {
					t.Errorf("%d answers, the capture has %d", len(got), len(files))
				}
				for _, f := range files {
					name := strings.TrimSuffix(filepath.Base(f), ".http")
					r, ok := got[name]
					if !ok {
						t.Errorf("no rehearsal of %s", name)
						continue
					}
					compareAnswer(t, sit.name+"/"+name, f, r)
				}
				compareMetrics(t, filepath.Join(dir, "metrics.prom"), h.scrape())
				_, body := h.rawGet(h.s.StatusURL() + "?format=json")
				compareStatusz(t, filepath.Join(dir, "statusz.json"), []byte(body))
			})
		})
	}
}

func compareAnswer(t *testing.T, what, file string, r result) {
	t.Helper()
	code, body := capturedAnswer(t, file)
	if r.err != nil {
		t.Errorf("%s: %v; the real router answered %d %q", what, r.err, code, body)
		return
	}
	if code == http.StatusOK {
		// The 200 is the front's stand-in worker, not the router: only
		// the status is the router's doing.
		if r.code != code {
			t.Errorf("%s: %d, the real router routed it (200)", what, r.code)
		}
		return
	}
	// An Aborted body ends with ateapi's own description, which is the
	// fake ateapi's text in the capture and the simulator's in ours.
	body = strings.Replace(body, "fake ateapi: Aborted", MsgConcurrent, 1)
	if r.code != code || r.body != body {
		t.Errorf("%s:\n got %d %q\nreal %d %q", what, r.code, r.body, code, body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("%s: Content-Type %q, want text/plain", what, ct)
	}
}

// seriesKey is a series' labels (without le and the per-process
// service_instance_id) written out, with a template name normalised: the
// simulator has one template, "sim-actor", the captured router "demo-tmpl".
func seriesKey(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		v := l.GetValue()
		switch l.GetName() {
		case "le":
			continue
		case "service_instance_id", "telemetry_sdk_version":
			v = "*"
		case "ate_template_name":
			if v != "" {
				v = "<template>"
			}
		}
		parts = append(parts, l.GetName()+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// seriesCount is what the situation fixes about a series: a histogram's
// count, a counter's or gauge's value.
func seriesCount(f *dto.MetricFamily, m *dto.Metric) string {
	switch f.GetType() {
	case dto.MetricType_HISTOGRAM:
		return fmt.Sprint(m.GetHistogram().GetSampleCount())
	case dto.MetricType_COUNTER:
		return fmt.Sprint(m.GetCounter().GetValue())
	case dto.MetricType_GAUGE:
		return fmt.Sprint(m.GetGauge().GetValue())
	}
	return "?"
}

func familySummary(fams map[string]*dto.MetricFamily) map[string]string {
	out := map[string]string{}
	for name, f := range fams {
		if !strings.HasPrefix(name, "atenet_router_") && name != "target_info" {
			continue
		}
		var series []string
		for _, m := range f.GetMetric() {
			series = append(series, "{"+seriesKey(m)+"} "+seriesCount(f, m))
		}
		slices.Sort(series)
		out[name] = f.GetType().String() + " # " + f.GetHelp() + "\n  " + strings.Join(series, "\n  ")
	}
	return out
}

func compareMetrics(t *testing.T, file string, sim map[string]*dto.MetricFamily) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	real, err := parser.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	want, got := familySummary(real), familySummary(sim)
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("/metrics lacks %s; the real router exported\n%s", name, w)
		} else if g != w {
			t.Errorf("%s:\n got %s\nreal %s", name, g, w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("/metrics exports %s, which the real router had not yet:\n%s", name, g)
		}
	}
}

// jsonKind names a JSON value's type.
func jsonKind(raw json.RawMessage) string {
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0:
		return "none"
	case t[0] == '"':
		return "string"
	case t[0] == '{':
		return "object"
	case t[0] == '[':
		return "array"
	case t[0] == 't' || t[0] == 'f':
		return "bool"
	case t[0] == 'n':
		return "null"
	}
	return "number"
}

// objectKeys lists an object's keys in order, with each value.
func objectKeys(t *testing.T, b []byte) ([]string, map[string]json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %.80q", b)
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
		vals[k] = v
	}
	return keys, vals
}

// The flags whose values the simulator models: they must read as the real
// router's in the same situation.
var modelledFlags = []string{"mode", "namespace", "atenet-router", "parked-request-budget", "parked-request-max",
	"parked-request-retry-interval", "parked-request-retry-factor", "parked-request-retry-jitter",
	"extproc-max-requests", "route-timeout", "drain-delay", "drain-timeout", "drain-complete-file"}

func compareStatusz(t *testing.T, file string, sim []byte) {
	t.Helper()
	real, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(sim, []byte("}\n")) || bytes.Count(sim, []byte("\n")) != 1 {
		t.Errorf("statusz is not compact JSON with one trailing newline: %.120q", sim)
	}
	rk, rv := objectKeys(t, real)
	sk, sv := objectKeys(t, sim)
	if !slices.Equal(rk, sk) {
		t.Errorf("statusz keys\n got %v\nreal %v", sk, rk)
	}
	for _, k := range rk {
		if a, b := jsonKind(rv[k]), jsonKind(sv[k]); a != b {
			t.Errorf("statusz %s is a %s, the real router's a %s", k, b, a)
		}
	}
	if !bytes.Equal(rv["parking"], sv["parking"]) {
		t.Errorf("statusz parking\n got %s\nreal %s", sv["parking"], rv["parking"])
	}
	var rf, sf map[string]string
	if err := json.Unmarshal(rv["flags"], &rf); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sv["flags"], &sf); err != nil {
		t.Errorf("statusz flags are not all strings: %v", err)
	}
	for k := range sf {
		if _, ok := rf[k]; !ok {
			t.Errorf("statusz flag %q, which the real router does not have", k)
		}
	}
	for _, k := range modelledFlags {
		if sf[k] != rf[k] {
			t.Errorf("statusz flag %s = %q, the real router's %q", k, sf[k], rf[k])
		}
	}
	var rq, sq []map[string]json.RawMessage
	_ = json.Unmarshal(rv["queries"], &rq)
	if err := json.Unmarshal(sv["queries"], &sq); err != nil {
		t.Fatal(err)
	}
	if len(rq) != len(sq) {
		t.Fatalf("statusz lists %d queries, the real router %d", len(sq), len(rq))
	}
	for i := range rq {
		for k, v := range rq[i] {
			if jsonKind(v) != jsonKind(sq[i][k]) {
				t.Errorf("query %d: %s is %s, want %s", i, k, sq[i][k], v)
			}
		}
		if len(sq[i]) != len(rq[i]) {
			t.Errorf("query %d has keys %v, want those of %v", i, sq[i], rq[i])
		}
		for _, k := range []string{"host", "path", "method", "action"} {
			if !bytes.Equal(rq[i][k], sq[i][k]) {
				t.Errorf("query %d: %s = %s, the real router's %s", i, k, sq[i][k], rq[i][k])
			}
		}
		if (string(rq[i]["target"]) == `"-"`) != (string(sq[i]["target"]) == `"-"`) {
			t.Errorf("query %d: target %s, the real router's %s", i, sq[i]["target"], rq[i]["target"])
		}
	}
}
