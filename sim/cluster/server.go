package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output/termtext"
)

// adminNamespace may see and act in every namespace, as on the real server.
const adminNamespace = "system"

// Server is one simulated cluster. Its state lives behind a single mutex:
// every create checks, charges and places in one critical section.
type Server struct {
	cfg     Config
	handler http.Handler

	mu         sync.Mutex
	closed     bool
	guard      bool
	nodes      []*node
	nodeByName map[string]*node
	namespaces map[string]*namespaceRec
	ops        map[string]*clusterOp
	artifacts  []*artifactRec
	blobs      map[string]*blobRec   // blobs.go
	uploads    map[string]*uploadRec // uploads.go
	spool      string                // upload files, removed at Close
	agentOps   map[string]*agentOp   // agent.go
	guestFiles map[string]map[string]guestFile
	opErrors   int
	instances  map[string]*instance
	deleted    []string // deleted instance uuids, oldest first
	networks   map[string]*network
	ifaces     map[string]*iface
	floatSeq   int
	// floatingHeld are the floating network's reserved addresses and
	// their holders (interfaces.go reserveFloating).
	floatingHeld map[string]string
	// floatingMade: the floating network's record exists (always, unless
	// Config.NoFloatingNetwork, until the first call that needs it).
	floatingMade bool
	// kerbsideTokens are the minted console tokens (kerbside.go).
	kerbsideTokens map[string]*kerbsideToken
	start          time.Time
	tokens         map[string]token
	timers         map[uint64]*time.Timer
	timerSeq       uint64
	seq            uint64
	vxid           int
	script         []ScriptedAnswer
	scriptPos      int
	scriptUsed     int

	httpSrv  *http.Server
	url      string
	served   chan struct{}
	closing  atomic.Bool
	shut     chan struct{} // closed once Close is done
	closeErr error
}

// New builds a cluster without listening: Handler serves it, e.g. over an
// in-memory transport inside a testing/synctest bubble.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Log != nil {
		// Log lines of concurrent handlers stay whole; they quote
		// clients' paths, so they go through the one sanitising writer:
		// a path may carry terminal escapes.
		cfg.Log = syncbuf.NewWriter(termtext.Writer(cfg.Log))
	}
	if cfg.AuthKeyName == "" {
		cfg.AuthKeyName = "deploy"
	}
	s := &Server{
		cfg:        cfg,
		guard:      cfg.CapacityGuard,
		nodeByName: map[string]*node{},
		namespaces: map[string]*namespaceRec{},
		ops:        map[string]*clusterOp{},
		opErrors:   cfg.NetworkOpErrors,
		instances:  map[string]*instance{},
		networks:   map[string]*network{},
		ifaces:     map[string]*iface{},
		start:      time.Now(),
		tokens:     map[string]token{},
		timers:     map[uint64]*time.Timer{},
		script:     cfg.Script,
		shut:       make(chan struct{}),
		vxid:       1000,
	}
	s.namespaces[adminNamespace] = newNamespace(adminNamespace)
	if s.namespaces[cfg.AuthNamespace] == nil {
		s.namespaces[cfg.AuthNamespace] = newNamespace(cfg.AuthNamespace)
	}
	var scopes []string
	if len(cfg.AuthScopes) > 0 && cfg.Generation == Generation2026 {
		scopes = cfg.AuthScopes
	}
	s.namespaces[cfg.AuthNamespace].addKey(cfg.AuthKeyName, cfg.AuthKey, 0, scopes)
	for k, name := range cfg.NodeNames() {
		n := &node{
			name:              name,
			uuid:              nodeUUID(name),
			ip:                fmt.Sprintf("10.200.%d.%d", (k+1)/250, (k+1)%250+1),
			hypervisor:        k < cfg.Nodes,
			tags:              append([]string(nil), cfg.NodeTags[name]...),
			capacity:          schedulable(cfg),
			cpuMaxPerInstance: int64(cfg.NodeCPUs),
			metadata:          nodeMetadata(cfg.NodeTags[name]),
		}
		s.nodes = append(s.nodes, n)
		s.nodeByName[name] = n
	}
	s.handler = s.middleware(s.routes())
	return s, nil
}

// Start builds a cluster and serves it on cfg.Listener, else on
// cfg.Listen, until ctx is done or Close is called.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	s, err := New(cfg)
	if err != nil {
		if cfg.Listener != nil {
			_ = cfg.Listener.Close()
		}
		return nil, err
	}
	ln := cfg.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
			return nil, fmt.Errorf("cannot listen on %s: %w", cfg.Listen, err)
		}
	}
	s.url = "http://" + ln.Addr().String()
	s.httpSrv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		// The server's error lines join the request log, never the
		// process's standard logger: a library does not own stderr.
		ErrorLog: log.New(errorLog(s.cfg.Log), "sim cluster: ", 0),
	}
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		_ = s.httpSrv.Serve(ln)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.served:
		}
	}()
	return s, nil
}

// errorLog is where the HTTP server's error lines go: the log, or nowhere.
func errorLog(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// URL is the API root a client uses, e.g. http://127.0.0.1:13000; "" when
// the server was built with New and is not listening.
func (s *Server) URL() string { return s.url }

// Addr is the address the server listens on.
func (s *Server) Addr() string {
	if s.url == "" {
		return ""
	}
	return s.url[len("http://"):]
}

// Handler serves the API with all its middleware (request IDs, body limit,
// logging).
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops pending lifecycle timers and, when listening, shuts the HTTP
// server down, letting requests in flight finish for up to two seconds
// (every request the simulator serves takes well under a millisecond).
// Every call waits for the shutdown and returns its result.
func (s *Server) Close() error {
	// The first call closes; the others wait on shut, not on a sync.Once's
	// mutex: in a testing/synctest bubble a goroutine blocked on a mutex
	// is not durably blocked, so the clock the first call's shutdown
	// waits on would stop.
	if s.closing.CompareAndSwap(false, true) {
		s.closeErr = s.close()
		close(s.shut)
	}
	<-s.shut
	return s.closeErr
}

func (s *Server) close() error {
	s.mu.Lock()
	s.closed = true
	for id, t := range s.timers {
		t.Stop()
		delete(s.timers, id)
	}
	s.mu.Unlock()
	defer s.removeSpool()
	if s.httpSrv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.httpSrv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.httpSrv.Close()
	}
	<-s.served
	return err
}

// Config is the configuration the server runs with.
func (s *Server) Config() Config { return s.cfg }

// SetCapacityGuard switches the capacity-guard refusal model on or off
// while the server runs.
func (s *Server) SetCapacityGuard(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.guard = on
}

// NodeUsage describes one node's capacity and what is charged against it.
type NodeUsage struct {
	Name       string
	Hypervisor bool
	Tags       []string
	// Capacity and charged (ledger) usage: vCPUs, MiB, GiB.
	CPUs, MemoryMiB, DiskGiB             int64
	UsedCPUs, UsedMemoryMiB, UsedDiskGiB int64
	// Instances holding capacity here (tearing-down ones included).
	Instances int
}

// NodeUsage reports every node's ledger.
func (s *Server) NodeUsage() []NodeUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	count := map[string]int{}
	for _, i := range s.instances {
		if i.charged {
			count[i.node]++
		}
	}
	out := make([]NodeUsage, 0, len(s.nodes))
	for _, n := range s.nodes {
		out = append(out, NodeUsage{
			Name: n.name, Hypervisor: n.hypervisor, Tags: append([]string(nil), n.tags...),
			CPUs: n.capacity.cpus, MemoryMiB: n.capacity.memory, DiskGiB: n.capacity.disk,
			UsedCPUs: n.used.cpus, UsedMemoryMiB: n.used.memory, UsedDiskGiB: n.used.disk,
			Instances: count[n.name],
		})
	}
	return out
}

// InstanceCounts counts instance records by state (deleted ones that were
// pruned from memory are not counted).
func (s *Server) InstanceCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, i := range s.instances {
		out[i.state]++
	}
	return out
}

// CheckAccounting recomputes every node's ledger and measured usage from
// the instance records and the address pools from their holders, and
// reports any disagreement or over-commit. Tests and the load benchmark
// call it; it should never fail.
func (s *Server) CheckAccounting() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	used := map[string]usage{}
	measured := map[string]usage{}
	for _, i := range s.instances {
		if i.charged {
			if isErrorState(i.state) {
				return fmt.Errorf("instance %s is in the error state but holds capacity", i.uuid)
			}
			used[i.node] = used[i.node].plus(i.need())
		}
		if i.measured {
			if !i.charged {
				return fmt.Errorf("instance %s is measured but not charged", i.uuid)
			}
			measured[i.node] = measured[i.node].plus(i.need())
		}
		if i.state == stateDeleted && len(i.addrs) > 0 {
			return fmt.Errorf("deleted instance %s still holds addresses", i.uuid)
		}
		for _, a := range i.addrs {
			if a.net.inUse[a.offset] != i.uuid {
				return fmt.Errorf("instance %s's address %s is not recorded as its own", i.uuid, a.net.address(a.offset))
			}
		}
	}
	for _, n := range s.nodes {
		if n.used != used[n.name] {
			return fmt.Errorf("node %s ledger %+v, but its instances add up to %+v", n.name, n.used, used[n.name])
		}
		if n.measured != measured[n.name] {
			return fmt.Errorf("node %s measured %+v, but its created instances add up to %+v", n.name, n.measured, measured[n.name])
		}
		if !n.used.fitsIn(n.capacity) || n.used.cpus < 0 || n.used.memory < 0 || n.used.disk < 0 {
			return fmt.Errorf("node %s is over-committed or negative: used %+v of %+v", n.name, n.used, n.capacity)
		}
		if !n.hypervisor && n.used != (usage{}) {
			return fmt.Errorf("non-hypervisor node %s hosts instances", n.name)
		}
	}
	for _, nw := range s.networks {
		for off, owner := range nw.inUse {
			i, ok := s.instances[owner]
			if !ok || i.state == stateDeleted {
				return fmt.Errorf("network %s address %s is held by a missing or deleted instance", nw.uuid, nw.address(off))
			}
		}
		if len(nw.inUse)+len(nw.inHalo) > nw.poolSize() {
			return fmt.Errorf("network %s pool over-allocated", nw.uuid)
		}
	}
	return nil
}

// nextScripted takes the next canned answer, or nil once the script has run
// out.
func (s *Server) nextScripted() *ScriptedAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scriptPos >= len(s.script) {
		return nil
	}
	a := s.script[s.scriptPos]
	s.scriptUsed++
	if s.scriptUsed >= max(a.Repeat, 1) {
		s.scriptPos++
		s.scriptUsed = 0
	}
	return &a
}

// ScriptRemaining is how many canned answers are still to be given.
func (s *Server) ScriptRemaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := 0
	for k := s.scriptPos; k < len(s.script); k++ {
		left += max(s.script[k].Repeat, 1)
	}
	return left - s.scriptUsed
}

var requestIDRE = lazyRegexp(`^[A-Za-z0-9._:-]{1,128}$`)

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// middleware gives every answer an X-Request-ID (the caller's, if it sent a
// sane one), bounds the body, turns a panic into a 500 instead of a crash,
// and logs one line per request.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-ID")
		if !requestIDRE.MatchString(id) {
			id = newUUID()
		}
		w.Header().Set("X-Request-ID", id)
		// Real deployments answer at http://host:13000/ (gunicorn) and
		// http://host/api (Apache's proxy); serve both prefixes so either
		// API URL works here.
		if p := r.URL.Path; p == "/api" || strings.HasPrefix(p, "/api/") {
			r.URL.Path = "/" + strings.TrimLeft(strings.TrimPrefix(p, "/api"), "/")
			r.URL.RawPath = ""
		}
		if r.Body == nil { // a Handler called directly, not by net/http's server
			r.Body = http.NoBody
		}
		limit := int64(maxBodyBytes)
		if strings.HasPrefix(r.URL.Path, "/upload/") {
			limit = maxUploadChunkBytes // an upload's data (uploads.go)
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				if sw.status == 0 {
					writeError(sw, &apiError{status: http.StatusInternalServerError, msg: fmt.Sprintf("server error: %v", p)})
				}
				if s.cfg.Log != nil {
					fmt.Fprintf(s.cfg.Log, "sim cluster: panic serving %s %s: %v\n", r.Method, r.URL.Path, p)
				}
			}
			if s.cfg.Log != nil {
				fmt.Fprintf(s.cfg.Log, "%s %s %s %d %s req=%s\n", start.Format("15:04:05.000"), r.Method, r.URL.Path, sw.status, time.Since(start).Round(time.Microsecond), id)
			}
		}()
		// 2026 refuses a chunked body with 411 before reading it
		// (tests/external_api/test_body_size_limit.py @86b2eedf).
		if s.is2026() && len(r.TransferEncoding) > 0 && r.TransferEncoding[0] == "chunked" {
			writeError(sw, &apiError{status: http.StatusLengthRequired, msg: "a request body must have a Content-Length; chunked bodies are refused"})
			return
		}
		next.ServeHTTP(sw, r)
	})
}

// writeJSON sends v as Flask-RESTful's output_json does: json.dumps with
// Python's ", " and ": " separators and ensure_ascii, and a newline
// (the real 2024 server's answers, client/testdata/sf2024/recorded).
// Go's map keys come out sorted, where Python keeps the handler's order.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := pyJSON(v)
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"error": "cannot encode the answer", "status": 500}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// writeError sends sf_api.error's {"error": ..., "status": N}, plus stage
// and transient for the seed's scheduling refusals and any headers the
// refusal carries.
func writeError(w http.ResponseWriter, e *apiError) {
	for k, v := range e.header {
		w.Header()[k] = v
	}
	writePyError(w, e)
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// after runs fn under s.mu once d has passed, unless the server has closed
// by then. Callers hold s.mu.
func (s *Server) after(d time.Duration, fn func()) {
	if s.closed {
		return
	}
	s.timerSeq++
	id := s.timerSeq
	s.timers[id] = time.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		delete(s.timers, id)
		fn()
	})
}
