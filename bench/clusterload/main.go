// Command clusterload drives the cluster simulator with many concurrent
// creates and deletes and checks, from the outside, that it never
// over-commits a node, never loses an instance and answers every request:
//
//   - W workers, spread over C clients (each with its own connection pool
//     and token), loop create -> show -> delete for the duration;
//   - a monitor polls GET /nodes throughout: used must never exceed max;
//   - a placed instance must show on the node its create named, and its
//     delete must find it;
//   - afterwards, once the teardown lag and error cleanup have passed, no
//     live instance may remain and every node must be back to zero.
//
// With -url it drives a running `shakectl sim cluster` (bench/cluster-load.sh
// starts one); without, it starts the simulator in-process and also runs its
// internal ledger check. It is a measurement, not a test.
//
//	go run ./bench/clusterload -clients 20 -workers 200 -duration 30s
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shakenfist/shakectl/sim/cluster"
)

type options struct {
	url         string
	namespace   string
	key         string
	clients     int
	workers     int
	duration    time.Duration
	hold        time.Duration
	settle      time.Duration
	nodes       int
	nodeCPUs    int
	teardownLag time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "", "API URL of a running simulator (default: start one in-process)")
	flag.StringVar(&o.namespace, "namespace", "system", "namespace to log in to")
	flag.StringVar(&o.key, "key", "demo", "key to log in with")
	flag.IntVar(&o.clients, "clients", 20, "clients, each with its own connections and token")
	flag.IntVar(&o.workers, "workers", 200, "concurrent create/show/delete loops, spread over the clients")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long to drive the load")
	flag.DurationVar(&o.hold, "hold", 200*time.Millisecond, "longest a worker keeps an instance before deleting it (uniform from 0)")
	flag.DurationVar(&o.settle, "settle", 0, "wait after the load before the final checks (default: teardown lag + error cleanup + 1s)")
	flag.IntVar(&o.nodes, "nodes", 4, "in-process simulator: hypervisors")
	flag.IntVar(&o.nodeCPUs, "node-cpus", 16, "in-process simulator: vCPUs per hypervisor")
	flag.DurationVar(&o.teardownLag, "teardown-lag", time.Second, "in-process simulator: teardown lag")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "clusterload:", err)
		os.Exit(1)
	}
}

// stats is one worker's tally; merged at the end so the hot path takes no
// locks.
type stats struct {
	create, show, del *hdrhistogram.Histogram
	status            map[string]int // "create 200", "create 507 sufficient_idle_cpu", ...
	unanswered        int
	violations        []string
}

func newStats() *stats {
	h := func() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3) }
	return &stats{create: h(), show: h(), del: h(), status: map[string]int{}}
}

func (s *stats) merge(o *stats) {
	s.create.Merge(o.create)
	s.show.Merge(o.show)
	s.del.Merge(o.del)
	for k, v := range o.status {
		s.status[k] += v
	}
	s.unanswered += o.unanswered
	s.violations = append(s.violations, o.violations...)
}

type client struct {
	base  string
	hc    *http.Client
	token string
}

type reply struct {
	status int
	body   map[string]any
	list   []map[string]any
}

func (c *client) call(ctx context.Context, method, path string, body any) (reply, error) {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	r := reply{status: resp.StatusCode}
	if len(data) > 0 && data[0] == '[' {
		err = json.Unmarshal(data, &r.list)
	} else {
		err = json.Unmarshal(data, &r.body)
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: answer %d is not JSON: %.80s", method, path, resp.StatusCode, data)
	}
	return r, nil
}

func (c *client) login(ctx context.Context, ns, key string) error {
	r, err := c.call(ctx, "POST", "/auth", map[string]string{"namespace": ns, "key": key})
	if err != nil {
		return err
	}
	tok, _ := r.body["access_token"].(string)
	if r.status != 200 || tok == "" {
		return fmt.Errorf("login: %d %v", r.status, r.body)
	}
	c.token = tok
	return nil
}

func run(o options) error {
	ctx := context.Background()
	var sim *cluster.Server
	settle := o.settle
	if o.url == "" {
		cfg := cluster.DefaultConfig()
		cfg.Listen = "127.0.0.1:0"
		cfg.Nodes, cfg.NodeCPUs, cfg.NodeMemoryMiB, cfg.NodeDiskGiB = o.nodes, o.nodeCPUs, 65536, 2000
		cfg.TeardownLag = o.teardownLag
		cfg.CreateTime = 100 * time.Millisecond
		cfg.ErrorCleanup = time.Second
		cfg.AuthNamespace, cfg.AuthKey = o.namespace, o.key
		var err error
		if sim, err = cluster.Start(ctx, cfg); err != nil {
			return err
		}
		defer sim.Close()
		o.url = sim.URL()
		if settle == 0 {
			settle = cfg.TeardownLag + cfg.ErrorCleanup + time.Second
		}
	}
	if settle == 0 {
		settle = 5500*time.Millisecond + 2*time.Second + time.Second
	}

	clients := make([]*client, o.clients)
	for k := range clients {
		clients[k] = &client{
			base: strings.TrimRight(o.url, "/"),
			hc: &http.Client{
				Timeout:   30 * time.Second,
				Transport: &http.Transport{MaxIdleConnsPerHost: o.workers/o.clients + 1, MaxConnsPerHost: o.workers/o.clients + 1},
			},
		}
		if err := clients[k].login(ctx, o.namespace, o.key); err != nil {
			return err
		}
	}
	admin := clients[0]

	// The monitor: no node may ever show more used than it has.
	var overcommits atomic.Int64
	var polls atomic.Int64
	stopMon := make(chan struct{})
	monDone := make(chan struct{})
	go func() {
		defer close(monDone)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopMon:
				return
			case <-t.C:
			}
			r, err := admin.call(ctx, "GET", "/nodes", nil)
			if err != nil || r.status != 200 {
				continue
			}
			polls.Add(1)
			for _, n := range r.list {
				for _, res := range []string{"cpu", "memory", "disk"} {
					used, _ := n[res+"_used"].(float64)
					most, _ := n[res+"_max"].(float64)
					if used > most || used < 0 {
						overcommits.Add(1)
						fmt.Fprintf(os.Stderr, "OVER-COMMIT: node %v %s used %v of %v\n", n["name"], res, used, most)
					}
				}
			}
		}
	}()

	deadline := time.Now().Add(o.duration)
	all := make([]*stats, o.workers)
	var wg sync.WaitGroup
	started := time.Now()
	for w := range o.workers {
		st := newStats()
		all[w] = st
		c := clients[w%o.clients]
		wg.Go(func() { worker(ctx, c, w, deadline, o.hold, st) })
	}
	wg.Wait()
	elapsed := time.Since(started)
	close(stopMon)
	<-monDone

	total := newStats()
	for _, st := range all {
		total.merge(st)
	}

	// After the teardown lag and the error cleanup, nothing may be left.
	time.Sleep(settle)
	var leftovers []string
	if r, err := admin.call(ctx, "GET", "/instances", nil); err != nil || r.status != 200 {
		leftovers = append(leftovers, fmt.Sprintf("GET /instances failed: %v %d", err, r.status))
	} else if len(r.list) > 0 {
		leftovers = append(leftovers, fmt.Sprintf("%d live instances remain", len(r.list)))
	}
	if r, err := admin.call(ctx, "GET", "/nodes", nil); err == nil {
		for _, n := range r.list {
			if n["cpu_used"] != 0.0 || n["memory_used"] != 0.0 || n["disk_used"] != 0.0 {
				leftovers = append(leftovers, fmt.Sprintf("node %v still charged %v vCPU %v MiB %v GiB", n["name"], n["cpu_used"], n["memory_used"], n["disk_used"]))
			}
		}
	}
	if sim != nil {
		if err := sim.CheckAccounting(); err != nil {
			leftovers = append(leftovers, "internal ledger check: "+err.Error())
		}
	}

	report(o, elapsed, total, polls.Load(), overcommits.Load(), leftovers)
	if total.unanswered > 0 || overcommits.Load() > 0 || len(total.violations) > 0 || len(leftovers) > 0 {
		return errors.New("the simulator broke an invariant (see above)")
	}
	return nil
}

func worker(ctx context.Context, c *client, w int, deadline time.Time, hold time.Duration, st *stats) {
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	for n := 0; time.Now().Before(deadline); n++ {
		cpus := 1 + rng.IntN(4)
		body := map[string]any{
			"name":   fmt.Sprintf("load-%d-%d", w, n),
			"cpus":   cpus,
			"memory": 256 * (1 + rng.IntN(8)),
			"disk":   []map[string]any{{"size": 1 + rng.IntN(20), "base": "debian:12"}},
		}
		t0 := time.Now()
		r, err := c.call(ctx, "POST", "/instances", body)
		_ = st.create.RecordValue(time.Since(t0).Microseconds())
		if err != nil {
			st.unanswered++
			st.violations = append(st.violations, "create: "+err.Error())
			continue
		}
		key := fmt.Sprintf("create %d", r.status)
		if s, ok := r.body["stage"].(string); ok {
			key += " " + s
		}
		st.status[key]++
		if r.status != 200 {
			if r.status != 507 {
				st.violations = append(st.violations, fmt.Sprintf("create answered %d: %v", r.status, r.body))
			}
			continue
		}
		uuid, _ := r.body["uuid"].(string)
		node, _ := r.body["node"].(string)

		if hold > 0 {
			time.Sleep(time.Duration(rng.Int64N(int64(hold))))
		}
		t0 = time.Now()
		s, err := c.call(ctx, "GET", "/instances/"+uuid, nil)
		_ = st.show.RecordValue(time.Since(t0).Microseconds())
		switch {
		case err != nil:
			st.unanswered++
			st.violations = append(st.violations, "show: "+err.Error())
		case s.status != 200 || s.body["node"] != node:
			st.violations = append(st.violations, fmt.Sprintf("instance %s placed on %s reads %d %v", uuid, node, s.status, s.body))
		}
		st.status[fmt.Sprintf("show %d", s.status)]++

		t0 = time.Now()
		d, err := c.call(ctx, "DELETE", "/instances/"+uuid, nil)
		_ = st.del.RecordValue(time.Since(t0).Microseconds())
		switch {
		case err != nil:
			st.unanswered++
			st.violations = append(st.violations, "delete: "+err.Error())
		case d.status != 200 || d.body["state"] != "deleted":
			st.violations = append(st.violations, fmt.Sprintf("delete %s: %d %v (lost?)", uuid, d.status, d.body))
		}
		st.status[fmt.Sprintf("delete %d", d.status)]++
	}
}

func report(o options, elapsed time.Duration, st *stats, polls, overcommits int64, leftovers []string) {
	requests := st.create.TotalCount() + st.show.TotalCount() + st.del.TotalCount()
	fmt.Printf("clusterload: %d workers over %d clients for %s against %s\n\n", o.workers, o.clients, elapsed.Round(time.Millisecond), o.url)
	fmt.Printf("| | count | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n")
	for _, r := range []struct {
		name string
		h    *hdrhistogram.Histogram
	}{{"POST /instances", st.create}, {"GET /instances/{uuid}", st.show}, {"DELETE /instances/{uuid}", st.del}} {
		fmt.Printf("| %s | %d | %s | %s | %s |\n", r.name, r.h.TotalCount(), us(r.h.ValueAtQuantile(50)), us(r.h.ValueAtQuantile(99)), us(r.h.Max()))
	}
	fmt.Printf("\n%d requests, %.0f/s\n\n", requests, float64(requests)/elapsed.Seconds())
	keys := make([]string, 0, len(st.status))
	for k := range st.status {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Printf("| answer | count |\n|---|---:|\n")
	for _, k := range keys {
		fmt.Printf("| %s | %d |\n", k, st.status[k])
	}
	fmt.Printf("\nunanswered requests: %d\n", st.unanswered)
	fmt.Printf("node polls: %d, over-commits seen: %d\n", polls, overcommits)
	fmt.Printf("violations (unexpected answers, lost or mis-placed instances): %d\n", len(st.violations))
	for _, v := range first(st.violations, 10) {
		fmt.Println("  ", v)
	}
	if len(leftovers) == 0 {
		fmt.Println("after settling: no live instances, every node back to zero")
	}
	for _, l := range leftovers {
		fmt.Println("after settling:", l)
	}
}

func us(v int64) string {
	return (time.Duration(v) * time.Microsecond).String()
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
