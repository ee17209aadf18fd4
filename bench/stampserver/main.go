// Command stampserver is the open-loop yardstick's judge: a plain HTTP
// server that stamps each request's arrival on its own monotonic clock, so
// load testers are compared by what reached the server, not by what each
// says of itself. Every request but the two below is
// answered 200 "ok".
//
//	GET /_stamps/reset           forget every stamp (between runs)
//	GET /_stamps/report?rate=R&secs=S
//	                             a JSON report of the stamps so far against
//	                             an ideal schedule of R requests a second
//	                             for S seconds (see report)
//
// The URL is the first line on stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// stamps holds arrival times as offsets from a fixed origin (monotonic).
type stamps struct {
	origin time.Time
	mu     sync.Mutex
	at     []time.Duration
}

func (s *stamps) add() {
	d := time.Since(s.origin)
	s.mu.Lock()
	s.at = append(s.at, d)
	s.mu.Unlock()
}

func (s *stamps) reset() {
	s.mu.Lock()
	s.at = s.at[:0]
	s.mu.Unlock()
}

// report is what the judge says about one run. Times are microseconds.
type report struct {
	Rate     float64 `json:"rate"`     // asked, requests a second
	Secs     float64 `json:"secs"`     // asked duration
	Expected int     `json:"expected"` // rate × secs
	Arrived  int     `json:"arrived"`  // requests stamped
	// Achieved is (arrived − 1) / (last − first arrival).
	Achieved float64 `json:"achieved_rate"`
	// Jitter is |Δt − 1/R| over consecutive arrivals (in arrival order).
	JitterP50 float64 `json:"jitter_p50_us"`
	JitterP99 float64 `json:"jitter_p99_us"`
	// Lateness is arrival_i − (first + i/R): how far behind the ideal
	// schedule, anchored at the first arrival, the i-th arrival came
	// (negative: ahead of it).
	LatenessP50 float64 `json:"lateness_p50_us"`
	LatenessP99 float64 `json:"lateness_p99_us"`
	LatenessMax float64 `json:"lateness_max_us"`
	LatenessEnd float64 `json:"lateness_last_us"`
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func (s *stamps) report(rate, secs float64) report {
	s.mu.Lock()
	at := slices.Clone(s.at)
	s.mu.Unlock()
	slices.Sort(at)
	r := report{Rate: rate, Secs: secs, Expected: int(math.Round(rate * secs)), Arrived: len(at)}
	if len(at) < 2 || rate <= 0 {
		return r
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	r.Achieved = float64(len(at)-1) / (at[len(at)-1] - at[0]).Seconds()
	period := float64(time.Second) / rate
	jitter := make([]float64, 0, len(at)-1)
	late := make([]float64, 0, len(at))
	for i := range at {
		ideal := at[0] + time.Duration(float64(i)*period)
		late = append(late, us(at[i]-ideal))
		if i > 0 {
			jitter = append(jitter, math.Abs(us(at[i]-at[i-1])-period/float64(time.Microsecond)))
		}
	}
	r.LatenessEnd = late[len(late)-1]
	slices.Sort(jitter)
	slices.Sort(late)
	r.JitterP50, r.JitterP99 = quantile(jitter, 0.5), quantile(jitter, 0.99)
	r.LatenessP50, r.LatenessP99, r.LatenessMax = quantile(late, 0.5), quantile(late, 0.99), late[len(late)-1]
	return r
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback; port 0: a free one)")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	st := &stamps{origin: time.Now(), at: make([]time.Duration, 0, 1<<20)}
	ok := []byte("ok")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		st.add()
		w.Header()["Content-Length"] = []string{"2"}
		_, _ = w.Write(ok)
	})
	mux.HandleFunc("/_stamps/reset", func(w http.ResponseWriter, _ *http.Request) {
		st.reset()
		_, _ = w.Write(ok)
	})
	mux.HandleFunc("/_stamps/report", func(w http.ResponseWriter, r *http.Request) {
		rate, err1 := strconv.ParseFloat(r.URL.Query().Get("rate"), 64)
		secs, err2 := strconv.ParseFloat(r.URL.Query().Get("secs"), 64)
		if err1 != nil || err2 != nil {
			http.Error(w, "want ?rate=R&secs=S", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st.report(rate, secs))
	})
	fmt.Printf("http://%s\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
