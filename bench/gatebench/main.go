// Command gatebench measures the proxy's capacity gate side by
// side with the gate off: an in-process `sim cluster` filled to its last
// vCPU, one of the filling instances deleted every -free-every (its
// capacity returns after the simulator's teardown lag), and -clients
// creates sent through the proxy within -spread of each other (arrival
// offsets drawn from -seed, the same in both runs). For each run it
// reports the refused creates that reached the server per successful
// create, the median and p95 time from a client's send to its success, and
// the clients that ran out of budget (handed back their last refusal);
// then the on/off ratios.
//
// It is a measurement, not a test: run it by hand and copy the figures into
// bench/results-gate.md. Everything is on loopback and bounded: each run
// ends when every client has its answer (at most -budget plus a round trip
// after the last arrival).
//
//	go run ./bench/gatebench -clients 40 -free-every 2s -retry-after 15 -budget 60s -spread 2s -seed 1
//
// -room 40 leaves room for every create (a healthy cluster) and -rtt adds
// a round trip to every create's answer: what the gate costs a burst that
// the cluster can take at once.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/proxy"
	"github.com/shakenfist/shakectl/sim/cluster"
)

type config struct {
	clients    int
	nodes      int
	nodeCPUs   int
	freeEvery  time.Duration
	retryAfter int
	lag        time.Duration
	budget     time.Duration
	spread     time.Duration
	seed       uint64
	logDir     string
	room       int
	rtt        time.Duration
}

func main() {
	var c config
	flag.IntVar(&c.clients, "clients", 40, "concurrent creates through the proxy")
	flag.IntVar(&c.nodes, "nodes", 3, "simulated hypervisors")
	flag.IntVar(&c.nodeCPUs, "node-cpus", 16, "vCPUs per hypervisor (no overcommit): the cluster is filled with this many 1-vCPU instances per node")
	flag.DurationVar(&c.freeEvery, "free-every", 2*time.Second, "delete one of the filling instances this often")
	flag.IntVar(&c.retryAfter, "retry-after", 15, "the simulator's Retry-After, seconds")
	flag.DurationVar(&c.lag, "teardown-lag", 5500*time.Millisecond, "the simulator's teardown lag")
	flag.DurationVar(&c.budget, "budget", 60*time.Second, "the proxy's --budget")
	flag.DurationVar(&c.spread, "spread", 2*time.Second, "the creates arrive at random offsets within this long (0: all at once)")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the arrival offsets")
	flag.IntVar(&c.room, "room", 0, "leave this many vCPUs free when filling the cluster (40: a healthy cluster with room for every create, to measure what the gate costs there)")
	flag.DurationVar(&c.rtt, "rtt", 0, "add this long to every create's round trip through the proxy (a real server's create answer is not instant)")
	flag.StringVar(&c.logDir, "log-dir", "", "write each run's proxy lines (JSON) to DIR/gate-on.jsonl and DIR/gate-off.jsonl")
	modes := flag.String("modes", "off,on", "which runs, in order")
	flag.Parse()

	fmt.Printf("gatebench: %d clients within %s (seed %d); %d nodes x %d vCPUs, %d free; one instance freed every %s, teardown lag %s; Retry-After %ds; budget %s; create round trip +%s\n\n",
		c.clients, c.spread, c.seed, c.nodes, c.nodeCPUs, c.room, c.freeEvery, c.lag, c.retryAfter, c.budget, c.rtt)
	results := map[string]result{}
	for _, m := range strings.Split(*modes, ",") {
		r, err := run(c, m == "on")
		if err != nil {
			fmt.Fprintln(os.Stderr, "gatebench:", err)
			os.Exit(1)
		}
		results[m] = r
		fmt.Printf("gate %-3s %s\n", m, r)
	}
	on, okOn := results["on"]
	off, okOff := results["off"]
	if okOn && okOff {
		refused := "no refusals either way"
		if on.refused+off.refused > 0 {
			refused = fmt.Sprintf("%.3f (%.1fx fewer)", on.refusedPerSuccess()/off.refusedPerSuccess(), off.refusedPerSuccess()/on.refusedPerSuccess())
		}
		fmt.Printf("\non/off: refused per success %s, median %.2f, p95 %.2f, out of budget %d vs %d\n",
			refused, on.median.Seconds()/off.median.Seconds(), on.p95.Seconds()/off.p95.Seconds(), on.outOfBudget, off.outOfBudget)
	}
}

type result struct {
	refused, created int64 // creates that reached the server through the proxy, by answer
	successes        int
	outOfBudget      int
	other            int
	median, p95, max time.Duration
	heldBack         int64
	summary          string
	wall             time.Duration
}

func (r result) refusedPerSuccess() float64 {
	if r.successes == 0 {
		return 0
	}
	return float64(r.refused) / float64(r.successes)
}

func (r result) String() string {
	return fmt.Sprintf("refused at the server %d, created %d, refused per success %.3f; successes %d, out of budget %d, other %d; time to success median %.2fs p95 %.2fs max %.2fs; held back %d; run %s\n         %s",
		r.refused, r.created, r.refusedPerSuccess(), r.successes, r.outOfBudget, r.other,
		r.median.Seconds(), r.p95.Seconds(), r.max.Seconds(), r.heldBack, r.wall.Round(time.Second), r.summary)
}

// counting is the proxy's upstream transport: it counts the answers to
// creates that reached the server.
type counting struct {
	next             http.RoundTripper
	rtt              time.Duration
	refused, created atomic.Int64
}

func (c *counting) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/instances") {
		time.Sleep(c.rtt)
		switch {
		case resp.StatusCode == http.StatusInsufficientStorage:
			c.refused.Add(1)
		case resp.StatusCode/100 == 2:
			c.created.Add(1)
		}
	}
	return resp, err
}

func createBody(name string) string {
	// As sf-client sends `instance create NAME 1 512 -d 8@debian:12`.
	return fmt.Sprintf(`{"name": %q, "cpus": 1, "memory": 512, "network": [], "disk": [{"size": 8, "base": "debian:12", "bus": null, "type": "disk"}], "ssh_key": null, "user_data": null, "placed_on": null, "namespace": null, "video": {"model": "cirrus", "memory": 16384}, "uefi": false}`, name)
}

func run(c config, gate bool) (result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Nodes, cfg.NodeCPUs = c.nodes, c.nodeCPUs
	cfg.CPUOvercommit = 1
	cfg.RetryAfter = c.retryAfter
	cfg.TeardownLag = c.lag
	sim, err := cluster.Start(ctx, cfg)
	if err != nil {
		return result{}, err
	}
	defer sim.Close()
	direct := &http.Client{Timeout: 30 * time.Second}
	token, err := login(direct, sim.URL())
	if err != nil {
		return result{}, err
	}
	// Fill the cluster, directly.
	var filling []string
	for i := range c.nodes*c.nodeCPUs - c.room {
		st, body, err := post(ctx, direct, sim.URL(), token, createBody(fmt.Sprintf("fill-%d", i)))
		if err != nil {
			return result{}, err
		}
		if st/100 != 2 {
			return result{}, fmt.Errorf("filling the cluster: create %d: %d %s", i, st, body)
		}
		var v struct{ UUID string }
		json.Unmarshal(body, &v)
		filling = append(filling, v.UUID)
	}
	if c.room == 0 {
		if st, body, _ := post(ctx, direct, sim.URL(), token, createBody("probe")); st != http.StatusInsufficientStorage {
			return result{}, fmt.Errorf("the filled cluster answered %d %s, want a 507", st, body)
		}
	}

	up := &counting{next: http.DefaultTransport.(*http.Transport).Clone(), rtt: c.rtt}
	up.next.(*http.Transport).MaxIdleConnsPerHost = 64
	var logw io.Writer = io.Discard
	if c.logDir != "" {
		f, err := os.Create(fmt.Sprintf("%s/gate-%s.jsonl", c.logDir, map[bool]string{true: "on", false: "off"}[gate]))
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		logw = f
	}
	p, err := proxy.New(proxy.Options{Upstream: sim.URL(), Budget: c.budget, Gate: gate, Transport: up, Log: output.NewNotifier(logw, output.NotifyMode{JSON: true})})
	if err != nil {
		return result{}, err
	}
	if err := p.Start(); err != nil {
		return result{}, err
	}

	// The reaper frees one filling instance every freeEvery.
	start := time.Now()
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		t := time.NewTicker(c.freeEvery)
		defer t.Stop()
		for _, id := range filling {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, sim.URL()+"/instances/"+id, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			if resp, err := direct.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}()

	rng := rand.New(rand.NewPCG(c.seed, c.seed))
	offsets := make([]time.Duration, c.clients)
	for i := range offsets {
		if c.spread > 0 {
			offsets[i] = time.Duration(rng.Int64N(int64(c.spread)))
		}
	}
	type answer struct {
		status  int
		elapsed time.Duration
	}
	answers := make([]answer, c.clients)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.clients}}
	var wg sync.WaitGroup
	for i := range c.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(offsets[i])
			t0 := time.Now()
			st, _, err := post(ctx, client, p.URL(), token, createBody(fmt.Sprintf("bench-%d", i)))
			if err != nil {
				st = -1
			}
			answers[i] = answer{st, time.Since(t0)}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cancel()
	<-reaped
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	p.Shutdown(sctx)

	r := result{refused: up.refused.Load(), created: up.created.Load(), wall: wall}
	var times []time.Duration
	for _, a := range answers {
		switch {
		case a.status/100 == 2:
			r.successes++
			times = append(times, a.elapsed)
		case a.status == http.StatusInsufficientStorage:
			r.outOfBudget++
		default:
			r.other++
		}
	}
	slices.Sort(times)
	if n := len(times); n > 0 {
		r.median = times[(n-1)/2]
		if n%2 == 0 {
			r.median = (times[n/2-1] + times[n/2]) / 2
		}
		r.p95 = times[min(n-1, (n*95+99)/100-1)]
		r.max = times[n-1]
	}
	s := p.Summary()
	r.heldBack = s.HeldBack
	r.summary = s.String()
	return r, nil
}

func post(ctx context.Context, hc *http.Client, base, token, body string) (int, []byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/instances", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func login(hc *http.Client, base string) (string, error) {
	resp, err := hc.Post(base+"/auth", "application/json", strings.NewReader(`{"namespace": "system", "key": "demo"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &v); err != nil || resp.StatusCode != 200 || v.AccessToken == "" {
		return "", fmt.Errorf("login: %d %s", resp.StatusCode, b)
	}
	return v.AccessToken, nil
}
