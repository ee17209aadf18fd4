// Command retrybench measures --retry-transient-capacity against the
// cluster simulator on loopback, in real time:
//
//   - the waits the client actually sleeps between attempts, against the
//     waits the policy computed (Retry-After, clamped, cut to the budget);
//   - how far past its budget a call ends, against one round trip.
//
// It is a measurement, not a test: run it by hand and copy the table into
// bench/results-retry.md.
//
//	go run ./bench/retrybench -runs 5 -rtt 50ms
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/retry"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// latency stands in for network latency: half of it before the request
// reaches the simulator, half after the answer leaves it.
type latency struct {
	next  http.RoundTripper
	delay time.Duration
}

func (l latency) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(l.delay / 2)
	resp, err := l.next.RoundTrip(r)
	time.Sleep(l.delay / 2)
	return resp, err
}

// stamps timestamps the client's --debug lines as they are written: the
// "retry: ..." line is written just before the sleep starts, the
// "> POST /instances" line just after it ends (and the re-sign and replay
// check, microseconds), the "< POST" line when an answer arrived.
type stamps struct {
	mu    sync.Mutex
	lines []stamped
}

type stamped struct {
	at   time.Time
	line string
}

func (s *stamps) Write(p []byte) (int, error) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		s.lines = append(s.lines, stamped{now, l})
	}
	return len(p), nil
}

func (s *stamps) find(prefix string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Time
	for _, l := range s.lines {
		if strings.HasPrefix(l.line, prefix) {
			out = append(out, l.at)
		}
	}
	return out
}

type result struct {
	scenario  string
	deviation []time.Duration // actual sleep - computed wait, per wait
	attempts  int
	elapsed   time.Duration
	budget    time.Duration
	lastRTT   time.Duration
}

func main() {
	runs := flag.Int("runs", 5, "repetitions of each scenario")
	rtt := flag.Duration("rtt", 50*time.Millisecond, "simulated round-trip latency added to each request")
	flag.Parse()
	if err := run(*runs, *rtt); err != nil {
		fmt.Fprintln(os.Stderr, "retrybench:", err)
		os.Exit(1)
	}
}

func run(runs int, rtt time.Duration) error {
	scenarios := []struct {
		name       string
		retryAfter int
		budget     time.Duration
		refusals   int
	}{
		// Two refusals, then placement: two full 1 s waits.
		{"2 refusals, Retry-After 1, budget 60s", 1, time.Minute, 2},
		// Always refused, attempt cap: four 1 s waits, five requests.
		{"always refused, Retry-After 1, budget 60s (cap)", 1, time.Minute, 100},
		// Always refused, budget 2.5 s: waits 1 s, 1 s, then what is left.
		{"always refused, Retry-After 1, budget 2.5s (deadline)", 1, 2500 * time.Millisecond, 100},
		// Retry-After 3 cut to a 1.2 s budget: one short wait, then stop.
		{"always refused, Retry-After 3, budget 1.2s (deadline)", 3, 1200 * time.Millisecond, 100},
	}
	var all []result
	for _, sc := range scenarios {
		for range runs {
			r, err := once(sc.name, sc.retryAfter, sc.budget, sc.refusals, rtt)
			if err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			all = append(all, r)
		}
	}
	report(all, runs, rtt)
	return nil
}

func once(name string, retryAfter int, budget time.Duration, refusals int, rtt time.Duration) (result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.AuthKey = "bench-key"
	cfg.RetryAfter = retryAfter
	cfg.Script = []cluster.ScriptedAnswer{{Refuse: "sufficient_idle_cpu", Repeat: refusals}}
	sim, err := cluster.Start(ctx, cfg)
	if err != nil {
		return result{}, err
	}
	defer sim.Close()

	st := &stamps{}
	var waits []time.Duration
	var mu sync.Mutex
	c, err := client.New(client.Options{
		APIURL: sim.URL(), Namespace: "system", Key: "bench-key", Debug: st, Timeout: 10 * time.Second,
		Transport: latency{next: http.DefaultTransport.(*http.Transport).Clone(), delay: rtt},
		Retry: &client.RetryOptions{Budget: budget, Notify: func(n retry.Notice) {
			mu.Lock()
			waits = append(waits, n.Wait)
			mu.Unlock()
		}},
	})
	if err != nil {
		return result{}, err
	}
	// Log in first, so the measured call is only the creates.
	if _, err := c.ListNodes(ctx); err != nil {
		return result{}, err
	}
	start := time.Now()
	_, err = c.CreateInstance(ctx, client.CreateInstanceRequest{Name: "bench", CPUs: 1, Memory: 256, Disk: []client.DiskRequest{{Size: 1}}})
	elapsed := time.Since(start)
	var apiErr *client.APIError
	if err != nil && !errors.As(err, &apiErr) {
		return result{}, err
	}
	if apiErr != nil {
		// The client's own measure of the call, from before the first
		// request to the end of the last.
		elapsed = apiErr.Elapsed
	}
	sends := st.find("debug: > POST /instances")
	recvs := st.find("debug: < POST /instances")
	sleeps := st.find("debug: retry: capacity refused")
	r := result{scenario: name, attempts: len(sends), elapsed: elapsed, budget: budget}
	if len(waits) != len(sends)-1 || len(sleeps) != len(waits) || len(recvs) != len(sends) {
		return result{}, fmt.Errorf("%d notices, %d waits logged for %d requests", len(waits), len(sleeps), len(sends))
	}
	for i, w := range waits {
		r.deviation = append(r.deviation, sends[i+1].Sub(sleeps[i])-w)
	}
	n := len(sends) - 1
	r.lastRTT = recvs[n].Sub(sends[n])
	return r, nil
}

func report(all []result, runs int, rtt time.Duration) {
	fmt.Printf("runs per scenario: %d, added round-trip latency: %s\n\n", runs, rtt)
	fmt.Println("| scenario | requests per call | waits measured | sleep − computed wait: median / p90 / max | waits off by > 10 ms | call time (max) | budget | overshoot past budget − that call's last round trip: median / max |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	byName := map[string][]result{}
	var order []string
	for _, r := range all {
		if _, ok := byName[r.scenario]; !ok {
			order = append(order, r.scenario)
		}
		byName[r.scenario] = append(byName[r.scenario], r)
	}
	for _, name := range order {
		rs := byName[name]
		var devs, lates []time.Duration
		var maxElapsed time.Duration
		overBudget := false
		for _, r := range rs {
			devs = append(devs, r.deviation...)
			maxElapsed = max(maxElapsed, r.elapsed)
			if r.elapsed > r.budget {
				overBudget = true
			}
			lates = append(lates, r.elapsed-r.budget-r.lastRTT)
		}
		off := 0
		for _, d := range devs {
			if d > 10*time.Millisecond || d < -10*time.Millisecond {
				off++
			}
		}
		lateText := "— (the call ended well inside its budget)"
		if overBudget {
			lateText = fmt.Sprintf("%s / %s", ms(quantile(lates, 0.5)), ms(quantile(lates, 1)))
		}
		fmt.Printf("| %s | %d | %d | %s / %s / %s | %d | %s | %s | %s |\n",
			name, rs[0].attempts, len(devs), ms(quantile(devs, 0.5)), ms(quantile(devs, 0.9)), ms(quantile(devs, 1)),
			off, ms(maxElapsed), rs[0].budget, lateText)
	}
}

// quantile is the q-quantile (nearest rank) of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
