package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/shakenfist/shakectl/internal/capture"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// The conformance suite (issue 45): every exchange recorded from a real
// Shakenfist server is replayed, in the order it was made, against the
// simulator's generation of that server, and the simulator must answer as
// the real server did (capture.Compare: status, error text, content type,
// the shape of a success body and the request's fields it repeats).
//
// testdata/conformance holds one folder per capture set: the exchanges of
// one server's life (a verbatim copy of a capture, or the answers the
// repository derived from a generation's source, as exchanges; or none,
// when its conformance.json names the folder elsewhere in the repository
// that holds them), and beside them conformance.json, which says which
// generation answered (else the folder's name starts with sf2024 or
// sf2026), how the simulator is configured to stand in for that cluster,
// what the recording's harness or the real cluster's daemons did outside
// the API between exchanges (situations), and which exchanges no
// simulator can answer the same, each with the reason.
// A new capture dropped into a set, or a new set, is replayed without a
// change here.
//
// State is rebuilt by replaying the captured creates themselves; the
// identifiers the two servers generated (UUIDs, addresses, node names)
// are paired as the answers show them (capture.IDs), so a later request
// names the simulator's objects and a later answer is read with them.

const conformanceRoot = "testdata/conformance"

// conformanceSpec is a set's conformance.json.
type conformanceSpec struct {
	// Server is the generation that answered: "2024" or "2026".
	Server string `json:"server"`
	// About says what the set is (for the reader; the test ignores it).
	About string `json:"about"`
	// Exchanges, when set, is the folder (relative to the set's) that
	// holds the set's exchange files: recordings other tests read too
	// stay in one place, and the set's folder holds only this file.
	Exchanges string `json:"exchanges"`
	// Sim configures the simulator beyond the replay's defaults.
	Sim conformanceSim `json:"sim"`
	// Situations are what the recording's harness did to the server
	// between exchanges, outside the API.
	Situations []conformanceSituation `json:"situations"`
	// NotComparable are the exchanges whose answer depends on state no
	// simulator can have.
	NotComparable []conformanceException `json:"not_comparable"`
}

// conformanceSim is the part of Config a set may set. By default the
// simulator stands in for the recorded clusters, where nothing ran but
// the API: no daemon deployed a network, started or deleted an
// instance, cleaned up a refused create, fetched an image or wrote a
// snapshot.
type conformanceSim struct {
	// AuthKey is the system key the recording used, where it wrote it
	// out (the captures' commands/ write "<redacted>", which the replay
	// turns into the simulator's key).
	AuthKey            string              `json:"auth_key"`
	Nodes              *int                `json:"nodes"`
	NonHypervisorNodes int                 `json:"non_hypervisor_nodes"`
	NodeCPUs           *int                `json:"node_cpus"`
	NodeMemoryMiB      *int                `json:"node_memory"`
	NodeDiskGiB        *int                `json:"node_disk"`
	NodeTags           map[string][]string `json:"node_tags"`
	LegacyRefusals     bool                `json:"legacy_refusals"`
	NoFloatingNetwork  bool                `json:"no_floating_network"`
	CapacityGuard      bool                `json:"capacity_guard"`
	Kerbside           bool                `json:"kerbside"`
	PowerFault         string              `json:"power_fault"`
	CPUOvercommit      *float64            `json:"cpu_overcommit"`
	RAMOvercommit      *float64            `json:"ram_overcommit"`
	RAMReservationGiB  *float64            `json:"ram_reservation"`
	MinFreeDiskGiB     *int                `json:"min_free_disk"`
	NetworkOpErrors    int                 `json:"network_op_errors"`
	Script             json.RawMessage     `json:"script"`
	CreateTime         string              `json:"create_time"`
	NetworkDeployTime  string              `json:"network_deploy_time"`
	AgentBoot          string              `json:"agent_boot"`
	SnapshotTime       string              `json:"snapshot_time"`
	NoProcessMetrics   bool                `json:"no_process_metrics"`
}

// conformanceSituation is something the harness did before exchange
// Before, outside the API:
//
//   - "deploy-networks": every initial network now reads created (the
//     harness played the network daemon's one step, or the real network
//     daemon took that long);
//   - "wait": For (a Go duration) passes on the bubble's clock: what
//     the real cluster did in that time (a guest booting until its agent
//     talks) happens on the simulator's timers;
//   - "write-process-metrics": Node's process_metrics are now
//     ProcessMetrics (the harness played the resources daemon's step,
//     with figures of its own).
type conformanceSituation struct {
	Before         int                `json:"before"`
	Do             string             `json:"do"`
	For            string             `json:"for"`
	Node           string             `json:"node"`
	ProcessMetrics map[string]float64 `json:"process_metrics"`
	Why            string             `json:"why"`
}

// conformanceException is an exchange whose answer is not compared.
// NotSent: the request is not sent to the simulator either, because what
// it did to the real server was the recording environment's (a failed
// upload that left a blob behind).
type conformanceException struct {
	Seq     int    `json:"seq"`
	Reason  string `json:"reason"`
	NotSent bool   `json:"not_sent"`
}

// conformanceReport is what one set's replay found.
type conformanceReport struct {
	exchanges, compared, setup int
	// differences: one entry per comparable exchange the simulator
	// answered otherwise.
	differences []string
	// notComparable: one line per listed exchange, with its reason.
	notComparable []string
	// problems: the set's own faults (a stale list entry, a listed
	// exchange the simulator now answers the same, a setup step refused).
	problems []string
}

// conformanceSets lists the capture sets under root: every folder that
// holds exchange files.
func conformanceSets(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var sets []string
	for _, e := range entries {
		if e.IsDir() {
			sets = append(sets, filepath.Join(root, e.Name()))
		}
	}
	return sets, nil
}

func readConformanceSpec(dir string) (conformanceSpec, error) {
	var spec conformanceSpec
	raw, err := os.ReadFile(filepath.Join(dir, "conformance.json"))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return spec, err
	default:
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			return spec, fmt.Errorf("conformance.json: %w", err)
		}
	}
	if spec.Server == "" {
		for _, gen := range []string{Generation2024, Generation2026} {
			if strings.HasPrefix(filepath.Base(dir), "sf"+gen) {
				spec.Server = gen
			}
		}
	}
	if spec.Server != Generation2024 && spec.Server != Generation2026 {
		return spec, fmt.Errorf("which server answered %s? Say \"server\": \"2024\" or \"2026\" in its conformance.json, or start the folder's name with sf2024 or sf2026", dir)
	}
	return spec, nil
}

// conformanceConfig is the simulator standing in for a set's cluster.
func conformanceConfig(spec conformanceSpec) (Config, error) {
	never := 24 * time.Hour
	cfg := DefaultConfig()
	cfg.Generation = spec.Server
	cfg.Listen = "127.0.0.1:0"
	cfg.CreateTime, cfg.DeleteTime, cfg.NetworkDeployTime, cfg.ErrorCleanup, cfg.ArtifactFetchTime, cfg.SnapshotTime = never, never, never, never, never, never
	cfg.TeardownLag = 0
	sim := spec.Sim
	for _, v := range []struct {
		from *int
		to   *int
	}{{sim.Nodes, &cfg.Nodes}, {sim.NodeCPUs, &cfg.NodeCPUs}, {sim.NodeMemoryMiB, &cfg.NodeMemoryMiB}, {sim.NodeDiskGiB, &cfg.NodeDiskGiB}} {
		if v.from != nil {
			*v.to = *v.from
		}
	}
	for _, v := range []struct {
		from *float64
		to   *float64
	}{{sim.CPUOvercommit, &cfg.CPUOvercommit}, {sim.RAMOvercommit, &cfg.RAMOvercommit}, {sim.RAMReservationGiB, &cfg.RAMReservationGiB}} {
		if v.from != nil {
			*v.to = *v.from
		}
	}
	if sim.MinFreeDiskGiB != nil {
		cfg.MinFreeDiskGiB = *sim.MinFreeDiskGiB
	}
	if len(sim.Script) > 0 {
		script, err := ParseScript(sim.Script)
		if err != nil {
			return cfg, fmt.Errorf("script: %w", err)
		}
		cfg.Script = script
	}
	cfg.NetworkOpErrors = sim.NetworkOpErrors
	if sim.AuthKey != "" {
		cfg.AuthKey = sim.AuthKey
	}
	cfg.NonHypervisorNodes, cfg.NodeTags = sim.NonHypervisorNodes, sim.NodeTags
	cfg.LegacyRefusals, cfg.NoFloatingNetwork, cfg.CapacityGuard = sim.LegacyRefusals, sim.NoFloatingNetwork, sim.CapacityGuard
	cfg.Kerbside, cfg.PowerFault, cfg.NoProcessMetrics = sim.Kerbside, sim.PowerFault, sim.NoProcessMetrics
	for _, v := range []struct {
		text string
		to   *time.Duration
	}{{sim.CreateTime, &cfg.CreateTime}, {sim.NetworkDeployTime, &cfg.NetworkDeployTime}, {sim.AgentBoot, &cfg.AgentBoot}, {sim.SnapshotTime, &cfg.SnapshotTime}} {
		if v.text == "" {
			continue
		}
		d, err := time.ParseDuration(v.text)
		if err != nil {
			return cfg, err
		}
		*v.to = d
	}
	return cfg, cfg.Validate()
}

// conformanceKey stands in for the keys the captures redact ("<redacted>")
// of namespaces other than the simulator's own.
const conformanceKey = "conformance-key-0"

// replayConformanceSet replays one capture set against a fresh simulator,
// in a testing/synctest bubble: the simulator's timers run on the
// bubble's clock, and each exchange is sent once everything due before it
// (a create's steps when the set's create time is 0) has happened.
func replayConformanceSet(t *testing.T, dir string) (rep conformanceReport, err error) {
	synctest.Test(t, func(t *testing.T) { rep, err = replayConformanceSetInBubble(t, dir) })
	return rep, err
}

func replayConformanceSetInBubble(t *testing.T, dir string) (conformanceReport, error) {
	var rep conformanceReport
	spec, err := readConformanceSpec(dir)
	if err != nil {
		return rep, err
	}
	cfg, err := conformanceConfig(spec)
	if err != nil {
		return rep, fmt.Errorf("%s: the simulator's configuration: %w", dir, err)
	}
	xs, err := loadConformanceExchanges(dir, spec)
	if err != nil {
		return rep, err
	}
	srv, err := New(cfg)
	if err != nil {
		return rep, err
	}
	t.Cleanup(func() { _ = srv.Close() })
	hc := &http.Client{
		Transport:     httpstub.HandlerTransport{Handler: srv.Handler()},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}

	listed := map[int]conformanceException{}
	for _, e := range spec.NotComparable {
		if strings.TrimSpace(e.Reason) == "" {
			rep.problems = append(rep.problems, fmt.Sprintf("not_comparable %04d gives no reason", e.Seq))
		}
		listed[e.Seq] = e
	}
	seen := map[int]bool{}
	for _, x := range xs {
		seen[x.Seq] = true
	}
	for _, e := range spec.NotComparable {
		if !seen[e.Seq] {
			rep.problems = append(rep.problems, fmt.Sprintf("not_comparable %04d names no exchange of the set", e.Seq))
		}
	}
	for _, s := range spec.Situations {
		if !seen[s.Before] {
			rep.problems = append(rep.problems, fmt.Sprintf("situation %q before %04d names no exchange of the set", s.Do, s.Before))
		}
	}

	ids := capture.NewIDs()
	token := ""
	for _, x := range xs {
		rep.exchanges++
		for _, s := range spec.Situations {
			if s.Before == x.Seq {
				if err := conformanceSituationDo(srv, ids, s); err != nil {
					return rep, fmt.Errorf("situation %q before %04d: %w", s.Do, s.Before, err)
				}
			}
		}
		exc, isListed := listed[x.Seq]
		if isListed && exc.NotSent {
			rep.notComparable = append(rep.notComparable, fmt.Sprintf("%s: %s (not sent)", x, exc.Reason))
			continue
		}
		synctest.Wait()
		got, err := conformanceSend(t, hc, cfg, ids, token, x)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", x, err)
		}
		if x.Request.Method == http.MethodPost && x.Request.Path == "/auth" && got.Status == http.StatusOK {
			var a struct {
				AccessToken string `json:"access_token"`
			}
			_ = json.Unmarshal(got.Body, &a)
			token = a.AccessToken
		}
		if x.Response == nil {
			rep.setup++
			if got.Status < 200 || got.Status > 299 {
				rep.problems = append(rep.problems, fmt.Sprintf("%s: a setup step, answered %d %.300s", x, got.Status, got.Body))
			}
			continue
		}
		// Identifiers are paired first, wherever both servers made the
		// same thing (even when their answers differ in another way, so
		// that one difference does not hide the exchanges after it): an
		// answer that is a new identifier (a routed address) is then
		// read as the simulator's.
		if !isListed && x.Response.Status == got.Status && got.Status >= 200 && got.Status < 300 {
			realV, realOK := capture.DecodeJSON(x.Response.Body)
			simV, simOK := capture.DecodeJSON(got.Body)
			if realOK && simOK {
				ids.Learn(realV, simV)
			}
		}
		diffs := capture.Compare(ids, x.Request.Body, x.Response, got)
		if isListed {
			if len(diffs) == 0 {
				rep.problems = append(rep.problems, fmt.Sprintf("%s: listed as not comparable (%s) but the simulator answers as the real server did: take it off the list", x, exc.Reason))
			}
			rep.notComparable = append(rep.notComparable, fmt.Sprintf("%s: %s", x, exc.Reason))
			continue
		}
		rep.compared++
		if len(diffs) > 0 {
			rep.differences = append(rep.differences, fmt.Sprintf("%s:\n    %s\n    real: %.400q\n    sim:  %.400q", x, strings.Join(diffs, "\n    "), x.Response.Body, got.Body))
		}
	}
	return rep, nil
}

// loadConformanceExchanges reads a set's exchanges: its folder's, or
// those of the folder its conformance.json names (never both: an
// exchange file beside a pointer elsewhere would never be replayed).
func loadConformanceExchanges(dir string, spec conformanceSpec) ([]capture.Exchange, error) {
	from := dir
	if spec.Exchanges != "" {
		own, err := capture.Load(dir)
		if err != nil {
			return nil, err
		}
		if len(own) > 0 {
			return nil, fmt.Errorf("%s holds exchanges (%s) and its conformance.json names others (%s): keep one", dir, own[0], spec.Exchanges)
		}
		from = filepath.Join(dir, filepath.FromSlash(spec.Exchanges))
	}
	xs, err := capture.Load(from)
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("%s holds no exchange", from)
	}
	return xs, nil
}

// conformanceSend sends a recorded request to the simulator, with the
// simulator's identifiers, keys and token in place of the real server's.
func conformanceSend(t *testing.T, hc *http.Client, cfg Config, ids *capture.IDs, token string, x capture.Exchange) (*capture.Response, error) {
	var body io.Reader
	if len(x.Request.Body) > 0 {
		b := x.Request.Body
		if utf8.Valid(b) {
			text := string(b)
			if strings.Contains(text, `"<redacted>"`) {
				key := conformanceKey
				var auth struct {
					Namespace string `json:"namespace"`
				}
				if x.Request.Path == "/auth" && json.Unmarshal(b, &auth) == nil && auth.Namespace == cfg.AuthNamespace {
					key = cfg.AuthKey
				}
				text = strings.ReplaceAll(text, `"<redacted>"`, `"`+key+`"`)
			}
			b = []byte(ids.Translate(text))
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), x.Request.Method, "http://sim.invalid"+ids.Translate(x.Request.Path), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range x.Request.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Authorization", "Accept-Encoding", "Connection", "Cookie":
			continue
		}
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if x.Request.Header.Get("Authorization") != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return capture.ResponseOf(resp.StatusCode, resp.Header, got), nil
}

// conformanceSituationDo puts the simulator in a situation the recording's
// harness made outside the API, naming the simulator's objects as ids
// pairs them. It runs in the replay's bubble.
func conformanceSituationDo(s *Server, ids *capture.IDs, sit conformanceSituation) error {
	switch sit.Do {
	case "deploy-networks":
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, n := range s.networks {
			if n.state == stateInitial {
				n.state = stateCreated
			}
		}
		return nil
	case "wait":
		d, err := time.ParseDuration(sit.For)
		if err != nil || d <= 0 {
			return fmt.Errorf("want \"for\": a duration above 0, not %q", sit.For)
		}
		// The bubble's clock: it moves on at once, firing every timer
		// due on the way.
		time.Sleep(d)
		return nil
	case "write-process-metrics":
		s.mu.Lock()
		defer s.mu.Unlock()
		n := s.findNode(ids.Translate(sit.Node))
		if n == nil || sit.ProcessMetrics == nil {
			return fmt.Errorf("want \"node\" (a node the answers so far named) and \"process_metrics\", not %q and %v", sit.Node, sit.ProcessMetrics)
		}
		n.processMetrics = sit.ProcessMetrics
		return nil
	}
	return fmt.Errorf("unknown situation %q: the simulator knows deploy-networks, wait and write-process-metrics", sit.Do)
}

// TestConformance replays every capture set and holds the simulator to
// every comparable exchange; it lists the others with their reasons.
func TestConformance(t *testing.T) {
	t.Parallel()
	sets, err := conformanceSets(conformanceRoot)
	if err != nil || len(sets) == 0 {
		t.Fatalf("no capture sets in %s: %v", conformanceRoot, err)
	}
	for _, dir := range sets {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rep, err := replayConformanceSet(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.problems {
				t.Error(p)
			}
			for _, d := range rep.differences {
				t.Errorf("the simulator's answer differs from the real server's: %s", d)
			}
			sort.Strings(rep.notComparable)
			t.Logf("%d exchanges: %d compared, %d differ; %d setup steps; %d not comparable:\n  %s",
				rep.exchanges, rep.compared, len(rep.differences), rep.setup, len(rep.notComparable), strings.Join(rep.notComparable, "\n  "))
			if rep.compared == 0 {
				t.Error("no exchange was compared")
			}
		})
	}
}

// A capture dropped into the testdata is replayed without a code change:
// a new set (a folder whose name says the generation, no
// conformance.json), and a new exchange dropped into it later, which the
// replay then compares too.
func TestConformanceReplaysACaptureDroppedIn(t *testing.T) {
	root := t.TempDir()
	set := filepath.Join(root, "sf2024-dropped-in")
	drop := func(rel, text string) {
		t.Helper()
		path := filepath.Join(set, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const netUUID = "93e6a481-d82a-4182-9636-e1b02ce1e0ec"
	drop("a-auth/0001-post-_auth-200.json", `{"request": {"method": "POST", "path": "/auth", "headers": [["Content-Type", "application/json"]],
	  "body": "{\"key\": \"<redacted>\",\"namespace\":\"system\"}"},
	 "response": {"status": 200, "headers": [["Content-Type", "application/json"]],
	  "body": "{\"access_token\": \"eyJ...\", \"token_type\": \"Bearer\", \"expires_in\": 900}\n"}}`)
	drop("b-net/0002-post-_networks-200.json", `{"request": {"method": "POST", "path": "/networks", "headers": [["Content-Type", "application/json"], ["Authorization", "Bearer <jwt ...>"]],
	  "body": "{\"netblock\":\"10.20.0.0/24\",\"name\":\"net2\",\"provide_dhcp\":false}"},
	 "response": {"status": 200, "headers": [["Content-Type", "application/json"]],
	  "body": "{\"uuid\": \"`+netUUID+`\", \"state\": \"initial\", \"metadata\": {}, \"version\": 6, \"name\": \"net2\", \"namespace\": \"system\", \"netblock\": \"10.20.0.0/24\", \"provide_dhcp\": true, \"provide_nat\": true, \"provide_dns\": false, \"floating_gateway\": null, \"vxlan_id\": 1147449}\n"}}`)
	drop("b-net/0003-post-_instances-406.json", `{"request": {"method": "POST", "path": "/instances", "headers": [["Content-Type", "application/json"], ["Authorization", "Bearer <jwt ...>"]],
	  "body": "{\"name\":\"web3\",\"cpus\":1,\"memory\":1024,\"disk\":[{\"size\":8}],\"network\":[{\"network_uuid\":\"net2\"}]}"},
	 "response": {"status": 406, "headers": [["Content-Type", "application/json"]],
	  "body": "{\"error\": \"network `+netUUID+` is not ready (initial)\", \"status\": 406}"}}`)

	sets, err := conformanceSets(root)
	if err != nil || len(sets) != 1 || sets[0] != set {
		t.Fatalf("sets %q (%v), want %q", sets, err, set)
	}
	rep, err := replayConformanceSet(t, set)
	if err != nil {
		t.Fatal(err)
	}
	if rep.exchanges != 3 || rep.compared != 3 || len(rep.differences) != 0 || len(rep.problems) != 0 {
		t.Fatalf("the dropped-in set: %+v", rep)
	}

	// A later exchange, dropped in: an answer the simulator does not
	// give (an instance list that is not empty) is found.
	drop("c-list/0004-get-_instances-200.json", `{"request": {"method": "GET", "path": "/instances", "headers": [["Authorization", "Bearer <jwt ...>"]]},
	 "response": {"status": 200, "headers": [["Content-Type", "application/json"]], "body": "[{\"uuid\": \"`+netUUID+`\"}]\n"}}`)
	rep, err = replayConformanceSet(t, set)
	if err != nil {
		t.Fatal(err)
	}
	if rep.exchanges != 4 || rep.compared != 4 || len(rep.differences) != 1 || !strings.Contains(rep.differences[0], "0004 GET /instances") || !strings.Contains(rep.differences[0], "a list of 0, the real server's of 1") {
		t.Fatalf("the exchange dropped in later: %+v", rep)
	}

	// Its conformance.json lists it, with the reason; an entry naming no
	// exchange, or giving no reason, is the set's fault.
	drop("conformance.json", `{"not_comparable": [{"seq": 4, "reason": "made up for this test"}, {"seq": 9, "reason": "stale"}, {"seq": 3, "reason": " "}]}`)
	rep, err = replayConformanceSet(t, set)
	if err != nil {
		t.Fatal(err)
	}
	if rep.compared != 2 || len(rep.differences) != 0 || len(rep.notComparable) != 2 || !strings.Contains(rep.notComparable[1], "0004 GET /instances (c-list/0004-get-_instances-200.json): made up for this test") {
		t.Errorf("listed: %+v", rep)
	}
	want := []string{"not_comparable 0003 gives no reason", "not_comparable 0009 names no exchange of the set",
		"0003 POST /instances (b-net/0003-post-_instances-406.json): listed as not comparable ( ) but the simulator answers as the real server did: take it off the list"}
	if strings.Join(rep.problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems %q, want %q", rep.problems, want)
	}

	// A recording that wrote its key out (as proxy/testdata/sfclient-2024
	// does) names it in its conformance.json, and the simulator takes it.
	keyed := filepath.Join(root, "keyed")
	if err := os.MkdirAll(keyed, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"conformance.json": `{"server": "2026", "sim": {"auth_key": "rskey0123456789"}}`,
		"0001-post-auth-200.json": `{"seq": 1, "client": "", "request": {"method": "POST", "path": "/auth", "headers": {"Content-Type": "application/json"},
		  "body": "{\"namespace\": \"system\", \"key\": \"rskey0123456789\"}", "body_b64": null},
		 "response": {"status": 200, "headers": [["Content-Type", "application/json"]], "body": "{\"access_token\": \"x\", \"token_type\": \"Bearer\", \"expires_in\": 900}\n"}}`,
	} {
		if err := os.WriteFile(filepath.Join(keyed, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := replayConformanceSet(t, keyed); err != nil || rep.compared != 1 || len(rep.differences) != 0 {
		t.Errorf("a recording with its key written out: %+v (%v)", rep, err)
	}

	// A set may name its exchanges where other tests read them (one copy
	// in the repository): they are replayed from there, with the set's
	// own conformance.json; a set holding exchanges of its own as well is
	// refused, as is a situation the replay cannot play.
	pointer := filepath.Join(root, "pointer")
	if err := os.MkdirAll(pointer, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pointer, "conformance.json"), []byte(`{"server": "2024", "exchanges": "../sf2024-dropped-in",
	  "not_comparable": [{"seq": 4, "reason": "made up for this test"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := replayConformanceSet(t, pointer); err != nil || rep.exchanges != 4 || rep.compared != 3 || len(rep.differences) != 0 || len(rep.notComparable) != 1 {
		t.Errorf("a set naming its exchanges elsewhere: %+v (%v)", rep, err)
	}
	if err := os.WriteFile(filepath.Join(pointer, "0009-get-x-200.json"), []byte(`{"request": {"method": "GET", "path": "/x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := replayConformanceSet(t, pointer); err == nil || !strings.Contains(err.Error(), "holds exchanges (0009 GET /x (0009-get-x-200.json)) and its conformance.json names others (../sf2024-dropped-in): keep one") {
		t.Errorf("a set with exchanges in two places: %v", err)
	}
	drop("conformance.json", `{"situations": [{"before": 2, "do": "wait", "for": "soon"}]}`)
	if _, err := replayConformanceSet(t, set); err == nil || err.Error() != `situation "wait" before 0002: want "for": a duration above 0, not "soon"` {
		t.Errorf("a wait of no duration: %v", err)
	}
	drop("conformance.json", `{"situations": [{"before": 2, "do": "write-process-metrics", "node": "sf-9", "process_metrics": {}}]}`)
	if _, err := replayConformanceSet(t, set); err == nil || !strings.Contains(err.Error(), `want "node" (a node the answers so far named)`) {
		t.Errorf("process metrics of a node the simulator does not have: %v", err)
	}

	// A folder that does not say which server answered is refused.
	if _, err := replayConformanceSet(t, t.TempDir()); err == nil || !strings.Contains(err.Error(), "which server answered") {
		t.Errorf("a set of no generation: %v", err)
	}
}
