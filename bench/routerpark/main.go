// Command routerpark measures `shakectl sim router` holding many parked
// requests at once: it starts the simulator with one worker (held by a warm
// actor, so every other resume answers "no free workers available"), opens
// -requests connections that each park one request, waits until /statusz
// says they are all parked, reads the process's resident memory from
// /proc, then sends SIGTERM and checks that every parked request is
// answered (budget exhausted), none dropped.
//
// Usage: go run ./bench/routerpark -shakectl ./shakectl [-requests 10000] [-hot] [-budget 12s]
//
// The simulator listens on free loopback ports. Both processes need a file
// limit above -requests (ulimit -n).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("shakectl", "./shakectl", "shakectl binary")
	n := flag.Int("requests", 10000, "requests to park at once")
	hot := flag.Bool("hot", false, "all requests for one actor (one flight) instead of one actor each")
	budget := flag.Duration("budget", 12*time.Second, "park budget (the run lasts about this long)")
	flag.Parse()
	if err := run(*bin, *n, *hot, *budget); err != nil {
		fmt.Fprintln(os.Stderr, "routerpark:", err)
		os.Exit(1)
	}
}

func run(bin string, n int, hot bool, budget time.Duration) error {
	// Free loopback ports; the simulator prints its URLs on stdout.
	cmd := exec.Command(bin, "sim", "router", "--quiet", "-o", "json",
		"--workers", "1", "--any-actor", "--actor-idle", "0",
		"--parked-request-max", strconv.Itoa(n), "--extproc-max-requests", strconv.Itoa(n+64),
		"--parked-request-budget", budget.String(),
		"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--status-listen", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	var urls struct {
		Router  string `json:"router_url"`
		Statusz string `json:"statusz_url"`
	}
	if err := json.NewDecoder(stdout).Decode(&urls); err != nil {
		return fmt.Errorf("reading the simulator's URLs: %w", err)
	}
	router := strings.TrimPrefix(urls.Router, "http://")
	status := urls.Statusz + "?format=json"

	parked := func() (int, error) {
		resp, err := http.Get(status)
		if err != nil {
			return -1, err
		}
		defer resp.Body.Close()
		var st struct {
			Parking struct{ Active int } `json:"parking"`
		}
		err = json.NewDecoder(resp.Body).Decode(&st)
		return st.Parking.Active, err
	}
	for i := 0; ; i++ {
		if _, err := parked(); err == nil {
			break
		} else if i == 100 {
			return fmt.Errorf("simulator not up: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Hold the only worker: this actor never idles out.
	if code, _, err := request(router, "holder"); err != nil || code != 200 {
		return fmt.Errorf("warming the holder: %d %v", code, err)
	}
	idleRSS, _ := memory(pid)

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers = map[string]int{}
		dialSem = make(chan struct{}, 256) // gentle on the accept backlog
		sent    atomic.Int64
	)
	start := time.Now()
	for i := 0; i < n; i++ {
		actor := fmt.Sprintf("actor-%05d", i+1)
		if hot {
			actor = "hot"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			dialSem <- struct{}{}
			c, err := net.Dial("tcp", router)
			if err == nil {
				_, err = fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s.default.actors.resources.substrate.ate.dev\r\nConnection: close\r\n\r\n", actor)
			}
			<-dialSem
			key := ""
			if err != nil {
				key = "send error: " + err.Error()
			} else {
				sent.Add(1)
				key = readAnswer(c)
				c.Close()
			}
			mu.Lock()
			answers[key]++
			mu.Unlock()
		}()
	}
	var all time.Duration
	for {
		p, err := parked()
		if err == nil && p == n {
			all = time.Since(start)
			break
		}
		if time.Since(start) > budget {
			return fmt.Errorf("only %d of %d parked after %v (sent %d)", p, n, time.Since(start), sent.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	rss, hwm := memory(pid)
	fmt.Printf("parked %d requests (%s) in %v\n", n, map[bool]string{true: "one hot actor: one flight", false: "one actor each: one flight each"}[hot], all.Round(time.Millisecond))
	fmt.Printf("RSS idle (one warm actor):   %6.1f MiB\n", mib(idleRSS))
	fmt.Printf("RSS with all parked:         %6.1f MiB  (%.1f KiB per parked request)\n", mib(rss), float64(rss-idleRSS)/1024/float64(n))
	fmt.Printf("peak RSS so far (VmHWM):     %6.1f MiB\n", mib(hwm))

	// SIGTERM: the simulator must answer every parked request.
	stop := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	peak := hwm
	exited := make(chan error, 1)
	go func() { wg.Wait(); exited <- nil }()
	for done := false; !done; {
		select {
		case <-exited:
			done = true
		case <-time.After(100 * time.Millisecond):
			if _, h := memory(pid); h > peak {
				peak = h
			}
		}
	}
	if _, h := memory(pid); h > peak {
		peak = h
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("simulator exit: %w", err)
	}
	fmt.Printf("peak RSS over the run:       %6.1f MiB\n", mib(peak))
	fmt.Printf("after SIGTERM, all answered in %v; simulator exited 0\n", time.Since(stop).Round(time.Millisecond))
	fmt.Println("answers:")
	for k, v := range answers {
		fmt.Printf("  %6d  %s\n", v, k)
	}
	return nil
}

// request sends one GET over a fresh connection.
func request(addr, actor string) (int, string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, "", err
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s.default.actors.resources.substrate.ate.dev\r\nConnection: close\r\n\r\n", actor)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b := make([]byte, 512)
	k, _ := resp.Body.Read(b)
	return resp.StatusCode, string(b[:k]), nil
}

// readAnswer reads one response and names it by status and body shape.
func readAnswer(c net.Conn) string {
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "dropped: " + err.Error()
	}
	defer resp.Body.Close()
	b := make([]byte, 512)
	k, _ := resp.Body.Read(b)
	body := string(b[:k])
	if i := strings.Index(body, " unavailable"); i >= 0 && strings.HasPrefix(body, "actor ") {
		body = "actor … " + body[i+1:]
	}
	return strconv.Itoa(resp.StatusCode) + " " + body
}

// memory reads VmRSS and VmHWM (peak) of a process, in bytes.
func memory(pid int) (rss, hwm int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = v * 1024
		case "VmHWM:":
			hwm = v * 1024
		}
	}
	return rss, hwm
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
