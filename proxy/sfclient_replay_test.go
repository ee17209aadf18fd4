package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/sim/cluster"
)

// The real sf-client (client-python 0.8.x) against the real 2024 server
// (shakenfist develop da448b1a), recorded on loopback: testdata/
// sfclient-2024, cited in SOURCES.md. CI has no sf-client (the tests that
// run one skip unless SHAKECTL_SFCLIENT_DIR names a tree), so what it runs
// instead is this data: every request sf-client sent is replayed, in
// order, through the proxy (`shakectl proxy`) to the 2024 simulator (`sim
// cluster --server 2024 --legacy-refusals`), and each answer's status and
// JSON shape (keys and value types, recursively) must be the real
// server's.
//
// Identifiers differ between the two servers, so the replay learns them as
// it goes: where the real answer and the simulator's hold a uuid (or a
// node's name) at the same place, later requests carry the simulator's.

// replayExchange is one recorded exchange (the captures' format).
type replayExchange struct {
	Seq     int `json:"seq"`
	Request struct {
		Method  string            `json:"method"`
		Path    string            `json:"path"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"request"`
	Response struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	} `json:"response"`
}

// replayKnown are the exchanges whose answer the simulator cannot give,
// each with the reason. Every other exchange must match.
var replayKnown = map[int]string{
	// The recording server's environment, not Shakenfist's behaviour: its
	// validators package lacked hostname(), so the first create failed;
	// the same create succeeded once it was installed (seq 97).
	89: "the recorded server's own 500 (AttributeError: module 'validators' has no attribute 'hostname'), an environment fault fixed before seq 97",
	// The recorded cluster was full of other clients' instances (the
	// shakectl and curl captures ran against the same server); this
	// replay starts from an empty cluster.
	113: "the recorded cluster was full of instances other clients had made (507 No nodes with enough idle CPU); the replay's cluster is not",
}

// replayIDs are the real identifiers the replay has learnt the simulator's
// for.
type replayIDs map[string]string

var replayUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// learn pairs identifiers found at the same place in the real answer and
// the simulator's: uuid values, and list elements by name, else by
// position when the lists are as long.
func (ids replayIDs) learn(real, sim any) {
	switch r := real.(type) {
	case map[string]any:
		s, ok := sim.(map[string]any)
		if !ok {
			return
		}
		for k, rv := range r {
			sv, ok := s[k]
			if !ok {
				continue
			}
			rs, rok := rv.(string)
			ss, sok := sv.(string)
			if rok && sok && rs != ss && (k == "uuid" || replayUUID.MatchString(rs)) {
				if _, seen := ids[rs]; !seen {
					ids[rs] = ss
				}
				continue
			}
			ids.learn(rv, sv)
		}
	case []any:
		s, ok := sim.([]any)
		if !ok {
			return
		}
		used := map[int]bool{}
		var unpaired []int
		for i, re := range r {
			name := replayName(re)
			j := -1
			for k, se := range s {
				if !used[k] && name != "" && replayName(se) == name {
					j = k
					break
				}
			}
			if j < 0 {
				unpaired = append(unpaired, i)
				continue
			}
			used[j] = true
			ids.learn(re, s[j])
		}
		if len(r) == len(s) && len(used) == 0 {
			for _, i := range unpaired {
				ids.learn(r[i], s[i])
			}
		}
	}
}

func replayName(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["name"].(string)
	return s
}

// path is a recorded path with each segment the replay knows replaced.
func (ids replayIDs) path(p string) (string, []string) {
	segs := strings.Split(p, "/")
	var unknown []string
	for i, s := range segs {
		if v, ok := ids[s]; ok {
			segs[i] = v
		} else if replayUUID.MatchString(s) {
			unknown = append(unknown, s)
		}
	}
	return strings.Join(segs, "/"), unknown
}

// body is a recorded JSON body with every string the replay knows replaced.
func (ids replayIDs) body(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = ids.body(e)
		}
	case []any:
		for i, e := range t {
			t[i] = ids.body(e)
		}
	case string:
		if s, ok := ids[t]; ok {
			return s
		}
	}
	return v
}

// jsonShape describes a JSON value's shape: an object's keys with their
// shapes, an array's distinct element shapes, else the type's name.
func jsonShape(v any) string {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q: %s", k, jsonShape(t[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		seen := map[string]bool{}
		var elems []string
		for _, e := range t {
			if s := jsonShape(e); !seen[s] {
				seen[s] = true
				elems = append(elems, s)
			}
		}
		sort.Strings(elems)
		return "[" + strings.Join(elems, " | ") + "]"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// shapeDiff lists where sim's shape differs from real's: missing and extra
// keys, and values of another type. A null on one side matches any type
// on the other (a field not yet set: an instance's node before placement),
// and an array's elements are compared with the real array's first
// element of its shape, when both have elements.
func shapeDiff(at string, real, sim any) []string {
	if real == nil || sim == nil {
		return nil
	}
	switch r := real.(type) {
	case map[string]any:
		s, ok := sim.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: the real server sent an object, the simulator %s", at, jsonShape(sim))}
		}
		var diffs []string
		for k, rv := range r {
			sv, ok := s[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing (the real server sent %s)", at, k, jsonShape(rv)))
				continue
			}
			diffs = append(diffs, shapeDiff(at+"."+k, rv, sv)...)
		}
		for k, sv := range s {
			if _, ok := r[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: not sent by the real server (the simulator sent %s)", at, k, jsonShape(sv)))
			}
		}
		sort.Strings(diffs)
		return diffs
	case []any:
		s, ok := sim.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: the real server sent an array, the simulator %s", at, jsonShape(sim))}
		}
		if len(r) == 0 || len(s) == 0 {
			return nil
		}
		// Each of the simulator's elements must have the shape of one
		// of the real server's (the recorded lists hold instances other
		// clients made, whose disk_spec is shakectl's or curl's); the
		// differences shown are those from the real element of the same
		// name, else the first.
		var diffs []string
		for i, se := range s {
			best := r[0]
			fits := false
			for _, re := range r {
				if replayName(re) != "" && replayName(re) == replayName(se) {
					best = re
				}
				if len(shapeDiff("", re, se)) == 0 {
					fits = true
					break
				}
			}
			if !fits {
				diffs = append(diffs, shapeDiff(fmt.Sprintf("%s[%d]", at, i), best, se)...)
			}
		}
		return diffs
	}
	if jsonShape(real) != jsonShape(sim) {
		return []string{fmt.Sprintf("%s: the real server sent a %s, the simulator a %s", at, jsonShape(real), jsonShape(sim))}
	}
	return nil
}

func loadReplay(t *testing.T) []replayExchange {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "sfclient-2024", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded exchanges: %v", err)
	}
	sort.Strings(files)
	var xs []replayExchange
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var x replayExchange
		if err := json.Unmarshal(raw, &x); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		xs = append(xs, x)
	}
	return xs
}

func TestSFClientExchangesReplayThroughProxyAgainstSim2024(t *testing.T) {
	t.Parallel()
	xs := loadReplay(t)

	// The recorded cluster: two nodes, sf-1 with 4 cores and sf-2 with
	// 8 (the simulator's nodes are alike: 8 each), the recorded key, and
	// nothing deploying networks or booting instances (they stay initial).
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Generation = cluster.Generation2024
	cfg.LegacyRefusals = true
	cfg.AuthKey = "rskey0123456789"
	cfg.Nodes = 2
	cfg.NetworkDeployTime = 24 * time.Hour
	cfg.CreateTime = 24 * time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sim, err := cluster.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	px, err := New(Options{Upstream: sim.URL()})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(px)
	t.Cleanup(front.Close)

	ids := replayIDs{}
	token := ""
	var matched, known, outside int
	for _, x := range xs {
		path, unknown := ids.path(x.Request.Path)
		if len(unknown) > 0 {
			// An instance another client's run made on the recorded
			// server: this replay never saw it made.
			t.Logf("seq %d %s %s: skipped, %v was made outside these exchanges", x.Seq, x.Request.Method, x.Request.Path, unknown)
			outside++
			continue
		}
		var body io.Reader
		if x.Request.Body != "" {
			var v any
			if err := json.Unmarshal([]byte(x.Request.Body), &v); err != nil {
				t.Fatalf("seq %d: request body: %v", x.Seq, err)
			}
			b, _ := json.Marshal(ids.body(v))
			body = bytes.NewReader(b)
		}
		req, err := http.NewRequest(x.Request.Method, front.URL+path, body)
		if err != nil {
			t.Fatal(err)
		}
		if ct := x.Request.Headers["Content-Type"]; ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		if strings.HasPrefix(x.Request.Headers["Authorization"], "Bearer ") {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		req.Header.Set("User-Agent", x.Request.Headers["User-Agent"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("seq %d: %v", x.Seq, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()

		var diffs []string
		if resp.StatusCode != x.Response.Status {
			diffs = append(diffs, fmt.Sprintf("status %d, the real server's %d", resp.StatusCode, x.Response.Status))
		}
		var realV, simV any
		realJSON := json.Unmarshal([]byte(x.Response.Body), &realV) == nil
		simJSON := json.Unmarshal(got, &simV) == nil
		switch {
		case realJSON && !simJSON:
			diffs = append(diffs, "the real server answered JSON, the simulator did not")
		case !realJSON && simJSON:
			diffs = append(diffs, "the simulator answered JSON, the real server did not")
		case realJSON && resp.StatusCode == x.Response.Status:
			diffs = append(diffs, shapeDiff("$", realV, simV)...)
			ids.learn(realV, simV)
		}
		if x.Request.Path == "/auth" && resp.StatusCode == http.StatusOK {
			var a struct {
				AccessToken string `json:"access_token"`
			}
			_ = json.Unmarshal(got, &a)
			token = a.AccessToken
		}

		what := fmt.Sprintf("seq %d %s %s", x.Seq, x.Request.Method, x.Request.Path)
		if reason, ok := replayKnown[x.Seq]; ok {
			known++
			if len(diffs) == 0 {
				t.Errorf("%s: marked as a known difference (%s) but the simulator now answers as the real server did: remove it from replayKnown", what, reason)
			} else {
				t.Logf("%s: known difference, %s: %s", what, reason, strings.Join(diffs, "; "))
			}
			continue
		}
		if len(diffs) > 0 {
			t.Errorf("%s: the simulator's answer differs from the real server's:\n  %s\nreal: %.600s\nsim:  %.600s", what, strings.Join(diffs, "\n  "), x.Response.Body, got)
			continue
		}
		matched++
	}
	t.Logf("%d exchanges: %d matched the real server, %d known differences, %d about instances made outside them", len(xs), matched, known, outside)
	if matched < len(xs)/2 {
		t.Errorf("only %d of %d exchanges matched", matched, len(xs))
	}
}
