package probe

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/probe/report"
)

// Recorded answers of every Substrate dataplane and version, in
// testdata/routers (answers.tsv cites each row's source, SOURCES.md says
// more): upstream main 6210ad86 as captured, PR #221 and main 86e138f6 as
// recorded, the seed's texts, and the router after #1229 and agentgateway
// (5f96588b7 and later main) as their sources write them, not run. The outcome of each is judged from what happened
// (its status, its body's form and how long it took against the park
// budget), never from one version's wording.

const routersDir = "testdata/routers"

// recorded is one recorded answer: the response as sent and how long it
// took.
type recorded struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
}

func readRecorded(t *testing.T, file string) recorded {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(routersDir, file))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	rec := recorded{status: resp.StatusCode, header: resp.Header, body: body}
	if s, err := os.ReadFile(filepath.Join(routersDir, strings.TrimSuffix(file, ".http")+".secs")); err == nil {
		f, err := strconv.ParseFloat(strings.TrimSpace(string(s)), 64)
		if err != nil {
			t.Fatalf("%s.secs: %v", file, err)
		}
		rec.took = time.Duration(f * float64(time.Second))
	}
	return rec
}

func (r recorded) answer() Answer { return Answer{Status: r.status, Header: r.header, Body: r.body} }

// statuszBudget is the park budget the statusz.json beside file shows.
func statuszBudget(t *testing.T, file string) time.Duration {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(routersDir, filepath.Dir(file), "statusz.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseStatusz(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	d, ok := p.MaxWaitDuration()
	if !ok {
		t.Fatalf("%s: no max_wait", file)
	}
	return d
}

// TestRecordedRouterAnswers: each version's recorded answer gets its
// outcome. A refusal after the budget is budget_exhausted whatever ateapi
// wrote after "unavailable" (no free workers, no worker has room, its
// Unavailable or Aborted); the same refusal at once (parking off, main)
// is unavailable; the lot's "router at capacity" is shed, quoted or not.
func TestRecordedRouterAnswers(t *testing.T) {
	table, err := os.ReadFile(filepath.Join(routersDir, "answers.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for line := range strings.Lines(string(table)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("bad row %q: want file, budget, outcome and source", line)
		}
		rows++
		file, budgetText, wantName, source := f[0], f[1], f[2], f[3]
		if !strings.HasPrefix(source, "run here: ") && !strings.HasPrefix(source, "from source, not run: ") && !strings.HasPrefix(source, "from the design, not run: ") {
			t.Errorf("%s: source %q says neither that it ran here nor that it was written from source", file, source)
		}
		want, ok := report.ParseOutcome(wantName)
		if !ok {
			t.Fatalf("%s: unknown outcome %q", file, wantName)
		}
		t.Run(file, func(t *testing.T) {
			var budget time.Duration
			if budgetText == "statusz" {
				budget = statuszBudget(t, file)
			} else if budget, err = time.ParseDuration(budgetText); err != nil {
				t.Fatal(err)
			}
			rec := readRecorded(t, file)
			rd := Read(rec.answer())
			if got := rd.Judge(rec.took, budget); got != want {
				t.Errorf("%d %q after %s (budget %s) = %s, want %s", rec.status, rec.body, rec.took, budget, got, want)
			}
			if want != report.Served && !rd.Router {
				t.Errorf("%q is the router's own body, not read as one", rec.body)
			}
		})
	}
	if rows < 56 {
		t.Errorf("only %d rows in answers.tsv", rows)
	}
}

// replayRouter serves one capture folder of testdata/routers/6210ad86 on
// the in-memory network of a synctest bubble: each load request gets the
// next of files, after the time it took to the real router (on the
// virtual clock); /statusz is the captured card; /metrics is the captured
// exposition once an answer went out, and before that the same without
// the parking series (which a fresh router does not export).
func replayRouter(t *testing.T, folder string, files ...string) Options {
	t.Helper()
	dir := filepath.Join("6210ad86", folder)
	var answers []recorded
	for _, f := range files {
		answers = append(answers, readRecorded(t, filepath.Join(dir, f)))
	}
	statusz, err := os.ReadFile(filepath.Join(routersDir, dir, "statusz.json"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(routersDir, dir, "metrics.prom"))
	if err != nil {
		t.Fatal(err)
	}
	var before bytes.Buffer
	for line := range strings.Lines(string(after)) {
		if !strings.Contains(line, "atenet_router_parking_") {
			before.WriteString(line)
		}
	}
	var mu sync.Mutex
	next := 0
	var answered atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/statusz":
			w.Header().Set("Content-Type", "application/json")
			w.Write(statusz)
			return
		case "/metrics":
			w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8; escaping=underscores")
			if answered.Load() {
				w.Write(after)
			} else {
				w.Write(before.Bytes())
			}
			return
		}
		mu.Lock()
		a := answers[next%len(answers)]
		next++
		mu.Unlock()
		time.Sleep(a.took)
		for k, vs := range a.header {
			w.Header()[k] = vs
		}
		w.WriteHeader(a.status)
		w.Write(a.body)
		answered.Store(true)
	})
	return memTarget(t, h)
}

// memTarget serves h as router.test on the bubble's in-memory network and
// returns options that probe it, its metrics and its statusz.
func memTarget(t *testing.T, h http.Handler) Options {
	t.Helper()
	tr := memnet.Transport(memServe(t, "router.test:80", h))
	t.Cleanup(tr.CloseIdleConnections)
	return Options{
		Target: "http://router.test", Mode: Burst, Seed: 1, Requests: 1,
		Actors: []string{"actor-0010"}, Atespace: "demo-ns",
		RoundTripper: tr, ScrapeTransport: tr,
		MetricsURL: "http://router.test/metrics", StatuszURL: "http://router.test/statusz",
	}
}

func runReplay(t *testing.T, o Options) *report.Report {
	t.Helper()
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func noFailedChecks(t *testing.T, r *report.Report) {
	t.Helper()
	for _, c := range r.Checks {
		if c.Status == report.CheckFailed {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
}

// Issue 33, items 1 and 2: 6210ad86 parks a full pool, ateapi's
// Unavailable and its Aborted until the budget, then answers 503 with
// whatever ateapi wrote; it counts each in wait{outcome="budget_exhausted"}.
// The probe must count the same, and find that the request was parked.
func TestReplayBudgetExhaustionsOfEveryText(t *testing.T) {
	for _, folder := range []string{"budget", "budget-newtext", "budget-fp", "code-Unavailable", "code-Aborted"} {
		t.Run(folder, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := runReplay(t, replayRouter(t, folder, "r.http"))
				if r.Count(report.BudgetExhausted) != 1 {
					t.Fatalf("outcomes %v, want one budget_exhausted", r.Outcomes)
				}
				wantCheck(t, r, report.CheckWaitMatchesBudgetExhausted, report.CheckOK, `outcome="budget_exhausted"} grew by 1`)
				wantCheck(t, r, report.CheckReachedParking, report.CheckOK, "1 of 1 answers came from the parking path")
				wantCheck(t, r, report.CheckParked, report.CheckOK, "the router's statusz max_wait")
				noFailedChecks(t, r)
			})
		})
	}
}

// Issue 33, item 2: with --parked-request-max=0 6210ad86 refuses a full
// pool at once with the budget exhaustion's text. That is a finding
// (exit 3 through a failed check naming "disabled"), unless the user said
// parking is meant to be off.
func TestReplayParkingOffIsAFinding(t *testing.T) {
	for _, withStatusz := range []bool{true, false} {
		name := map[bool]string{true: "statusz", false: "answers only"}[withStatusz]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := replayRouter(t, "disabled", "r.http", "ok.http")
				o.Requests = 2
				o.Actors = []string{"actor-0010", "actor-0001"}
				if !withStatusz {
					o.MetricsURL, o.StatuszURL = "", ""
				}
				r := runReplay(t, o)
				if r.Count(report.Unavailable) != 2 || r.Count(report.BudgetExhausted) != 0 {
					t.Fatalf("outcomes %v, want 2 unavailable (refused at once)", r.Outcomes)
				}
				wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "parking is disabled on the router")
				if !errorsIsChecksFailed(r) {
					t.Error("the run would not exit 3")
				}
				o.Checks.Expect = []report.Expectation{{Text: "parking=off", Parking: report.ParkingOffWord}}
				r = runReplay(t, o)
				wantCheck(t, r, report.CheckReachedParking, report.CheckSkipped, "as expected")
				wantCheck(t, r, "expect parking=off", report.CheckOK, "parking is off")
				noFailedChecks(t, r)
			})
		})
	}
}

func errorsIsChecksFailed(r *report.Report) bool { return len(r.Failed()) > 0 }

// Issue 33, item 3: a target that is not a router passes nothing: an echo
// server, one that redirects everything, one that answers 404 to all, an
// Envoy answering 503 with no body (docs/request-parking.md, "Nothing passes vacuously").
func TestNotARouterDoesNotPass(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"echo":     func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.Host)) },
		"redirect": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) },
		"404":      http.NotFound,
		// The manual: "a 2xx, a bare status code or Server: envoy is not
		// evidence".
		"envoy": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "envoy")
			w.WriteHeader(http.StatusServiceUnavailable)
		},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := memTarget(t, h)
				o.MetricsURL, o.StatuszURL = "", ""
				o.Requests = 10
				r := runReplay(t, o)
				wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "nothing identified the target as a Substrate dataplane")
				if name == "redirect" && (r.Count(report.Other) != 10 || r.Count(report.Served) != 0) {
					t.Errorf("redirects: outcomes %v, want 10 other and none served", r.Outcomes)
				}
			})
		})
	}
}

// Issue 33, item 5: 6210ad86 answers PR #221's Host form with a 404 whose
// body says the Host is malformed; the report calls it a Host problem and
// names the flag to change.
func TestReplayBadHostNamesTheFlag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := replayRouter(t, "badhost", "r.http")
		o.HostTemplate = PR221HostTemplate
		r := runReplay(t, o)
		wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "a Host problem: the router wants the atespace in the Host")
		wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "change HostTemplate")
	})
}

// The lot full at 6210ad86: the parked request is exhausted after the
// budget, the other two are shed at once, a running actor's too.
func TestReplayLotFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := replayRouter(t, "lotfull", "parked.http", "shed.http", "running.http")
		o.Requests = 3
		o.Concurrency = 0
		r := runReplay(t, o)
		if r.Count(report.BudgetExhausted) != 1 || r.Count(report.Shed) != 2 {
			t.Fatalf("outcomes %v, want 1 budget_exhausted and 2 shed", r.Outcomes)
		}
		wantCheck(t, r, report.CheckRejectedMatchesShed, report.CheckOK, "grew by 2")
		noFailedChecks(t, r)
	})
}

// Every recorded answer is a row of answers.tsv, so the table stays the
// list of every dataplane and version the probe is held to.
func TestEveryRecordedAnswerIsARow(t *testing.T) {
	table, err := os.ReadFile(filepath.Join(routersDir, "answers.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for line := range strings.Lines(string(table)) {
		if f, _, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
			rows[f] = true
		}
	}
	err = filepath.WalkDir(routersDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".http") {
			return err
		}
		rel, _ := filepath.Rel(routersDir, path)
		if !rows[filepath.ToSlash(rel)] {
			t.Errorf("%s has no row in answers.tsv", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
