package htmlplot

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/probe/report"
)

// chromium finds Debian's chromium. Outside CI a machine without it skips
// the browser tests; in CI (CI=true, where .ci/run installs it) its
// absence fails them, so a green CI always means the page was drawn.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: .ci/run installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed (Debian: apt-get install -y chromium): the page is not opened in a browser")
	return ""
}

// browser is one headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands on its fd 3, answers and events
// on its fd 4, each a JSON message ended by a NUL byte), with a fresh
// profile and nothing that calls out on its own (updates, sync, QUIC).
// Chromium spends most of its time starting up, so a test opening several
// pages opens them all as tabs of one browser.
type browser struct {
	cmd  *exec.Cmd
	in   *os.File // our end of its fd 3
	dead chan struct{}
	err  error // why it ended, once dead is closed

	mu      sync.Mutex
	next    int
	pending map[int]chan cdpMessage
	loaded  map[string]chan struct{} // by session: Page.loadEventFired
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    any             `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startBrowser starts headless chromium; it is closed when the test ends.
func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	// The bound only ends a browser that hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--window-size=1400,1250", "--remote-debugging-pipe", "about:blank")
	cmdR, in, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.ExtraFiles = []*os.File{cmdR, cmdW}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("chromium: %v", err)
	}
	cmdR.Close()
	cmdW.Close()
	b := &browser{cmd: cmd, in: in, dead: make(chan struct{}), pending: map[int]chan cdpMessage{}, loaded: map[string]chan struct{}{}}
	go func() {
		rd := bufio.NewReader(out)
		for {
			line, err := rd.ReadBytes(0)
			if err != nil {
				werr := cmd.Wait()
				b.err = fmt.Errorf("chromium ended (%v, %v)\n%s", err, werr, stderr.String())
				close(b.dead)
				return
			}
			var m cdpMessage
			if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
				continue
			}
			b.mu.Lock()
			if m.ID != 0 {
				if c := b.pending[m.ID]; c != nil {
					c <- m
					delete(b.pending, m.ID)
				}
			} else if m.Method == "Page.loadEventFired" {
				if c := b.loaded[m.SessionID]; c != nil {
					close(c)
					delete(b.loaded, m.SessionID)
				}
			}
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		b.call("", "Browser.close", struct{}{}, nil)
		in.Close()
		select {
		case <-b.dead:
		case <-time.After(time.Minute):
		}
		cancel()
		<-b.dead
		out.Close()
	})
	return b
}

// call sends one command (on session, "" for the browser) and decodes its
// result into result (when not nil).
func (b *browser) call(session, method string, params, result any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	c := make(chan cdpMessage, 1)
	b.pending[id] = c
	msg, err := json.Marshal(cdpMessage{ID: id, Method: method, SessionID: session, Params: params})
	if err == nil {
		_, err = b.in.Write(append(msg, 0))
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case m := <-c:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-b.dead:
		return fmt.Errorf("%s: %v", method, b.err)
	}
}

// dumpDOM opens page in a new tab and, once its load event fired, gives
// the DOM it ends with, as chromium --dump-dom would: the page draws
// synchronously, before its load event.
func (b *browser) dumpDOM(page string) (string, error) {
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank", "newWindow": true, "width": 1400, "height": 1250}, &target); err != nil {
		return "", err
	}
	var attached struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return "", err
	}
	s := attached.SessionID
	loaded := make(chan struct{})
	b.mu.Lock()
	b.loaded[s] = loaded
	b.mu.Unlock()
	if err := b.call(s, "Page.enable", struct{}{}, nil); err != nil {
		return "", err
	}
	var nav struct{ ErrorText string }
	if err := b.call(s, "Page.navigate", map[string]any{"url": "file://" + page}, &nav); err != nil {
		return "", err
	}
	if nav.ErrorText != "" {
		return "", fmt.Errorf("navigating to %s: %s", page, nav.ErrorText)
	}
	select {
	case <-loaded:
	case <-b.dead:
		return "", b.err
	}
	var ev struct {
		Result struct{ Value string }
	}
	if err := b.call(s, "Runtime.evaluate", map[string]any{"expression": "document.documentElement.outerHTML", "returnByValue": true}, &ev); err != nil {
		return "", err
	}
	return ev.Result.Value, nil
}

// drawn is what the page records on <html data-drawn>: per panel, each
// series drawn and the points it had in view.
type drawn struct {
	Panels map[string]map[string]struct {
		Label  string `json:"label"`
		Points int    `json:"points"`
	} `json:"panels"`
	Violations []string `json:"violations"`
	Errors     []string `json:"errors"`
	Complete   bool     `json:"complete"`
}

// distinctX counts a line's points at distinct x: what one series of
// uPlot's aligned columns holds (the spectrum closes with two points at
// its last x, and the page keeps the later, its maximum).
func distinctX(pts []report.Point) int {
	seen := map[float64]bool{}
	for _, p := range pts {
		seen[p.X] = true
	}
	return len(seen)
}

// wantDrawn is, per panel, each series the figure asks for and its points:
// the three panels of the PNG plot, line for line.
func wantDrawn(fig *report.Figure, lot float64, latency []report.OutcomeSeries) map[string]map[string]int {
	want := map[string]map[string]int{}
	add := func(panel, key string, n int) {
		if n == 0 {
			return
		}
		if want[panel] == nil {
			want[panel] = map[string]int{}
		}
		want[panel][key] = n
	}
	for _, s := range fig.Spectra {
		add("latency", "latency/"+s.Outcome, distinctX(s.Points))
	}
	if fig.BudgetSeconds > 0 && len(want["latency"]) > 0 {
		add("latency", "budget", 2)
	}
	for _, s := range latency {
		add("latency-time", "latency-time/"+s.Outcome, distinctX(s.Points))
	}
	if fig.BudgetSeconds > 0 && len(want["latency-time"]) > 0 {
		add("latency-time", "latency-time/budget", 2)
	}
	for _, s := range fig.Answers {
		add("answers", "answers/"+s.Outcome, distinctX(s.Points))
	}
	add("flight", "in_flight", distinctX(fig.InFlight))
	add("flight", "parking_active", distinctX(fig.ParkingActive))
	if lot > 0 && len(want["flight"]) > 0 {
		add("flight", "lot", 2)
	}
	return want
}

// The page opened in headless Chromium draws every series of every panel
// with all its points, for a burst, a closed run, an open run, a merged
// report of four shards and a run's figure (latency over time too) full
// of hostile strings; and nothing
// is fetched: a loopback server named in the hostile strings is never
// asked, the page records no policy violation and no script error, and
// the DOM Chromium ends with has no element a string injected.
func TestBrowserDrawsEverySeries(t *testing.T) {
	bin := chromium(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("the page fetched %s %s", r.Method, r.URL)
	}))
	defer srv.Close()
	u := srv.URL
	bait := "</script><script src=" + u + "/x.js></script><img src=" + u + "/i.png>" +
		"<link rel=stylesheet href=" + u + "/s.css><style>@import '" + u + "/i.css'</style><iframe src=" + u + "/f></iframe>"

	type page struct {
		fig     *report.Figure
		lot     float64
		latency []report.OutcomeSeries
	}
	pages := map[string]page{}
	for _, name := range []string{"burst", "closed", "open", "merged"} {
		fig, lot := reportFigure(t, name)
		pages[name] = page{fig, lot, nil}
	}
	// A run's own figure has latency over time too (from its samples).
	pages["hostile"] = page{figure("burst " + bait), 4, []report.OutcomeSeries{
		{Outcome: "served", Count: 3, Points: []report.Point{{X: 0.01, Y: 0.01}, {X: 0.5, Y: 0.5}, {X: 0.6, Y: 0.6}}},
		{Outcome: "shed", Count: 2, Points: []report.Point{{X: 0.002, Y: 0.002}, {X: 0.003, Y: 0.003}}},
	}}

	dir := t.TempDir()
	b := startBrowser(t, bin)
	type dump struct {
		dom string
		err error
	}
	dumps := map[string]chan dump{}
	for name, p := range pages {
		path := filepath.Join(dir, name+".html")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(f, p.fig, Options{Title: "plot " + bait, Lot: p.lot, Latency: p.latency}); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		c := make(chan dump, 1)
		dumps[name] = c
		go func() {
			dom, err := b.dumpDOM(path)
			c <- dump{dom, err}
		}()
	}
	for name, p := range pages {
		t.Run(name, func(t *testing.T) {
			d := <-dumps[name]
			if d.err != nil {
				t.Fatal(d.err)
			}
			dom := d.dom
			// The root element's attribute: the first tag after the doctype.
			m := regexp.MustCompile(`^\s*(?:<!DOCTYPE html>)?\s*<html[^>]*\sdata-drawn="([^"]*)"`).FindStringSubmatch(dom)
			if m == nil {
				t.Fatalf("the page recorded nothing drawn (did its script run?); DOM starts %.300q", dom)
			}
			var got drawn
			if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
				t.Fatal(err)
			}
			if !got.Complete || len(got.Errors) > 0 || len(got.Violations) > 0 {
				t.Errorf("complete %v, script errors %q, policy violations %q", got.Complete, got.Errors, got.Violations)
			}
			want := wantDrawn(p.fig, p.lot, p.latency)
			if n := 3 + min(len(p.latency), 1); len(want) != n {
				t.Errorf("the figure has %d panels' data, want all %d: %v", len(want), n, want)
			}
			var lines []string
			for panel, series := range want {
				for key, n := range series {
					g, ok := got.Panels[panel][key]
					if !ok || g.Points != n {
						t.Errorf("panel %s, series %s: drawn %v with %d points, want %d", panel, key, ok, g.Points, n)
					}
					lines = append(lines, fmt.Sprintf("%s/%s=%d", panel, key, n))
				}
				for key := range got.Panels[panel] {
					if _, ok := series[key]; !ok {
						t.Errorf("panel %s drew %s, which the figure does not have", panel, key)
					}
				}
			}
			for panel := range got.Panels {
				if _, ok := want[panel]; !ok {
					t.Errorf("the page drew a panel %s the figure has no data for", panel)
				}
			}
			sort.Strings(lines)
			t.Logf("drawn: %s", strings.Join(lines, " "))
			lower := strings.ToLower(dom)
			if el := regexp.MustCompile(`<(img|iframe|link|style)\b`).FindAllString(lower, -1); len(el) != 2 || el[0] != "<style" || el[1] != "<style" {
				t.Errorf("the DOM has the elements %q, want only the page's 2 <style>: a hostile string became an element", el)
			}
			if n := strings.Count(lower, "<script"); n != 3 {
				t.Errorf("the DOM has %d script elements, want the page's 3", n)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the pages made %d requests to the loopback server", n)
	}
}
