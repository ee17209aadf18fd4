// Command proxybench measures the transient-capacity proxy (package proxy,
// `shakectl proxy` / `shakectl wrap`) against the cluster simulator on
// loopback, each in its own process so that /proc tells their CPU and
// memory apart from the client's:
//
//   - overhead: sequential authenticated GET /instances, alternating rounds
//     direct to the simulator and through the proxy; the added latency
//     (p50, p99) and the proxy's CPU per request against the simulator's;
//   - parked: -parked concurrent POST /instances that the simulator always
//     refuses as transient (Retry-After 60, budget 1 h), so every one waits
//     in the proxy; the proxy's resident memory idle and with all of them
//     parked, then SIGTERM: every client must get its refusal back.
//
// It is a measurement, not a test: run it by hand and copy the figures into
// BENCHMARKS.md.
//
//	go build -o /tmp/proxybench ./bench/proxybench && /tmp/proxybench -n 2000 -rounds 3 -parked 1000
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/proxy"
	"github.com/shakenfist/shakectl/sim/cluster"
)

func main() {
	child := flag.String("child", "", "internal: run as the sim or proxy process")
	upstream := flag.String("upstream", "", "internal: the proxy child's upstream")
	refuse := flag.Bool("refuse", false, "internal: the sim child refuses every create (transient, Retry-After 60)")
	n := flag.Int("n", 2000, "requests per overhead round")
	rounds := flag.Int("rounds", 3, "overhead rounds (each: direct, then through the proxy)")
	parked := flag.Int("parked", 1000, "requests parked in waits at once (0 skips)")
	flag.Parse()
	var err error
	switch *child {
	case "sim":
		err = runSim(*refuse)
	case "proxy":
		err = runProxy(*upstream)
	case "":
		err = run(*n, *rounds, *parked)
	default:
		err = fmt.Errorf("unknown child %q", *child)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxybench:", err)
		os.Exit(1)
	}
}

// runSim serves the simulator until SIGTERM, printing its URL.
func runSim(refuse bool) error {
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	if refuse {
		cfg.RetryAfter = 60
		cfg.Script = []cluster.ScriptedAnswer{{Refuse: "sufficient_idle_cpu", Repeat: 1_000_000}}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	s, err := cluster.Start(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Println(s.URL())
	<-ctx.Done()
	return s.Close()
}

// runProxy serves the proxy until SIGTERM, printing its URL; its retry
// lines go to stderr, where the parent counts them.
func runProxy(upstream string) error {
	p, err := proxy.New(proxy.Options{Upstream: upstream, Budget: time.Hour, Log: output.NewNotifier(os.Stderr, output.NotifyMode{})})
	if err != nil {
		return err
	}
	if err := p.Start(); err != nil {
		return err
	}
	fmt.Println(p.URL())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = p.Shutdown(sctx)
	fmt.Fprintln(os.Stderr, p.Summary())
	return err
}

type childProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *bufio.Scanner
}

func start(args ...string) (*childProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, args...)
	out, _ := cmd.StdoutPipe()
	errp, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		return nil, fmt.Errorf("%v: no URL: %v", args, err)
	}
	sc := bufio.NewScanner(errp)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &childProc{cmd: cmd, url: strings.TrimSpace(line), stderr: sc}, nil
}

func (c *childProc) stop() {
	c.cmd.Process.Signal(syscall.SIGTERM)
	c.cmd.Wait()
}

// cpu is the process's user+system CPU time so far, from /proc.
func (c *childProc) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ
}

// rss is the process's resident set in KiB (VmRSS), from /proc.
func (c *childProc) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}

func login(hc *http.Client, base string) (string, error) {
	resp, err := hc.Post(base+"/auth", "application/json", strings.NewReader(`{"namespace": "system", "key": "demo"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	i := strings.Index(string(b), `"access_token": "`)
	if i < 0 {
		i = strings.Index(string(b), `"access_token":"`)
	}
	if resp.StatusCode != 200 || i < 0 {
		return "", fmt.Errorf("login: %d %s", resp.StatusCode, b)
	}
	rest := string(b)[i:]
	rest = rest[strings.IndexByte(rest, ':')+1:]
	rest = strings.TrimLeft(rest, ` "`)
	return rest[:strings.IndexByte(rest, '"')], nil
}

// round sends n sequential GET /instances to base and records latency.
func round(hc *http.Client, base, token string, n int, h *hdrhistogram.Histogram) error {
	for range n {
		req, _ := http.NewRequest("GET", base+"/instances", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json")
		t0 := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("GET /instances: %d", resp.StatusCode)
		}
		h.RecordValue(time.Since(t0).Microseconds())
	}
	return nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func run(n, rounds, parked int) error {
	fmt.Printf("load average at start: %s\n", loadavg())
	sim, err := start("-child", "sim")
	if err != nil {
		return err
	}
	defer sim.stop()
	go func() {
		for sim.stderr.Scan() {
		}
	}()
	px, err := start("-child", "proxy", "-upstream", sim.url)
	if err != nil {
		return err
	}
	defer px.stop()
	go func() {
		for px.stderr.Scan() {
		}
	}()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	token, err := login(hc, sim.url)
	if err != nil {
		return err
	}
	// Warm both paths.
	warm := hdrhistogram.New(1, 10_000_000, 3)
	if err := round(hc, sim.url, token, 200, warm); err != nil {
		return err
	}
	if err := round(hc, px.url, token, 200, warm); err != nil {
		return err
	}
	fmt.Printf("\n%-6s %-8s %9s %9s %9s %14s %14s\n", "round", "path", "p50 µs", "p99 µs", "mean µs", "sim CPU µs/req", "proxy CPU µs/req")
	var ratios50, ratios99, cpuRatios []float64
	for r := 1; r <= rounds; r++ {
		var res [2]struct {
			h         *hdrhistogram.Histogram
			sim, prox time.Duration
		}
		for k, base := range []string{sim.url, px.url} {
			h := hdrhistogram.New(1, 10_000_000, 3)
			s0, p0 := sim.cpu(), px.cpu()
			if err := round(hc, base, token, n, h); err != nil {
				return err
			}
			res[k].h, res[k].sim, res[k].prox = h, sim.cpu()-s0, px.cpu()-p0
			name := []string{"direct", "proxy"}[k]
			fmt.Printf("%-6d %-8s %9d %9d %9.0f %14.1f %14.1f\n", r, name, h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.Mean(),
				float64(res[k].sim.Microseconds())/float64(n), float64(res[k].prox.Microseconds())/float64(n))
		}
		ratios50 = append(ratios50, float64(res[1].h.ValueAtQuantile(50))/float64(res[0].h.ValueAtQuantile(50)))
		ratios99 = append(ratios99, float64(res[1].h.ValueAtQuantile(99))/float64(res[0].h.ValueAtQuantile(99)))
		if res[1].sim > 0 {
			cpuRatios = append(cpuRatios, float64(res[1].prox)/float64(res[1].sim))
		}
	}
	fmt.Printf("\nlatency through the proxy / direct, per round: p50 %s, p99 %s\n", fmtRatios(ratios50), fmtRatios(ratios99))
	fmt.Printf("proxy CPU / simulator CPU for the same requests, per round: %s\n", fmtRatios(cpuRatios))
	fmt.Printf("load average after the overhead rounds: %s\n", loadavg())
	if parked > 0 {
		return runParked(parked)
	}
	return nil
}

func fmtRatios(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.2f×", r)
	}
	return strings.Join(parts, ", ")
}

// runParked parks n requests in the proxy's waits, reads its memory, then
// shuts it down and checks that every client got its refusal.
func runParked(n int) error {
	sim, err := start("-child", "sim", "-refuse")
	if err != nil {
		return err
	}
	defer sim.stop()
	go func() {
		for sim.stderr.Scan() {
		}
	}()
	px, err := start("-child", "proxy", "-upstream", sim.url)
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}, Timeout: 5 * time.Minute}
	token, err := login(hc, sim.url)
	if err != nil {
		px.stop()
		return err
	}
	idle := px.rss()
	var waiting atomic.Int64
	summary := make(chan string, 1)
	go func() {
		for px.stderr.Scan() {
			l := px.stderr.Text()
			switch {
			case strings.Contains(l, "retrying in"):
				waiting.Add(1)
			case strings.HasPrefix(l, "proxy: "):
				summary <- l
			}
		}
	}()
	body := `{"name": "p", "cpus": 1, "memory": 256, "disk": [{"size": 1, "base": "debian:12"}], "network": [], "namespace": "system"}`
	var wg sync.WaitGroup
	var refused, other atomic.Int64
	var firstErr atomic.Value
	t0 := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", px.url+"/instances", strings.NewReader(strings.Replace(body, `"p"`, fmt.Sprintf(`"p%d"`, i), 1)))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				other.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 507 && (strings.Contains(string(b), `"transient":true`) || strings.Contains(string(b), `"transient": true`)) {
				refused.Add(1)
			} else {
				other.Add(1)
				firstErr.CompareAndSwap(nil, fmt.Sprintf("%d %s", resp.StatusCode, b))
			}
		}()
	}
	deadline := time.Now().Add(2 * time.Minute)
	for waiting.Load() < int64(n) {
		if time.Now().After(deadline) {
			px.stop()
			return fmt.Errorf("only %d of %d requests parked after 2 minutes", waiting.Load(), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	parkedAt := time.Since(t0)
	time.Sleep(500 * time.Millisecond) // let the GC settle on the parked heap
	full := px.rss()
	cpu := px.cpu()
	px.cmd.Process.Signal(syscall.SIGTERM)
	t1 := time.Now()
	wg.Wait()
	handedBack := time.Since(t1)
	px.cmd.Wait()
	sum := "(no summary)"
	select {
	case sum = <-summary:
	case <-time.After(time.Second):
	}
	fmt.Printf("\nparked: %d requests waiting in the proxy after %s (load %s)\n", n, parkedAt.Round(time.Millisecond), loadavg())
	fmt.Printf("proxy RSS idle %.1f MiB, with %d parked %.1f MiB: %.1f KiB per parked request; proxy CPU to park them %s (%.0f µs each)\n",
		float64(idle)/1024, n, float64(full)/1024, float64(full-idle)/float64(n), cpu, float64(cpu.Microseconds())/float64(n))
	fmt.Printf("SIGTERM: %d of %d handed their refusal back in %s, %d other answers\n%s\n", refused.Load(), n, handedBack.Round(time.Millisecond), other.Load(), sum)
	if e := firstErr.Load(); e != nil {
		fmt.Printf("first other answer: %v\n", e)
	}
	if refused.Load() != int64(n) {
		return errors.New("not every parked request got its refusal back")
	}
	return nil
}
