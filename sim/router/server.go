package router

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// maxHeaderBytes bounds a request's header block; a larger one is refused
// by net/http with 431 before the router sees it.
const maxHeaderBytes = 64 << 10

// Server is a running simulator: the router front, /metrics and /statusz.
type Server struct {
	cfg Config
	cp  *controlPlane
	rt  *router
	m   dataplaneMetrics

	routerSrv, metricsSrv, statusSrv *http.Server
	routerLn, metricsLn, statusLn    net.Listener

	hardStop  context.CancelFunc
	hookMu    sync.Mutex
	stopAfter func() bool // unhooks the Start context
	serveWG   sync.WaitGroup
	closing   atomic.Bool
	closeErr  error
	done      chan struct{}
}

// Start validates cfg, listens on its three addresses (or uses its
// listeners) and serves until Close, Shutdown, or the end of ctx (which
// shuts down gracefully).
//
// Start does nothing proportional to the sizes in cfg (workers and actors
// are made as they are first used), and gives up with ctx's error when ctx
// ends before the servers run, closing what it had opened.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim router: not started: %w", context.Cause(ctx))
	}
	lns, err := listenAll(ctx, cfg)
	if err != nil {
		return nil, err
	}
	tr := cfg.traits()
	m, err := newDataplaneMetrics(tr, cfg.Atespace)
	if err != nil {
		closeAll(lns)
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		closeAll(lns)
		_ = m.shutdown(context.Background())
		return nil, fmt.Errorf("sim router: not started: %w", context.Cause(ctx))
	}
	stop, hardStop := context.WithCancel(context.Background())
	rng := newLockedRand(cfg.Seed)
	cp := newControlPlane(stop, cfg, time.Now(), rng)
	rt := &router{
		cfg:        cfg,
		tr:         tr,
		cp:         cp,
		m:          m,
		rand:       rng,
		parking:    cfg.ParkingEnabled(),
		richRoutes: tr.metrics == metricsAtenet202608 || tr.metrics == metricsAgentgateway,
		breaker:    gate{max: int64(cfg.ExtprocBreaker())},
		lot:        gate{max: int64(cfg.ParkedRequestMax)},
		stop:       stop,
		flights:    make(map[string]*flight),

		routingFail: make(map[string]bool),
	}
	if tr.queries {
		rt.queries = &queryLog{}
	}
	for _, n := range cfg.RoutingFail {
		if ref, err := cfg.actorRef(n); err == nil {
			rt.routingFail[ref] = true
		}
	}
	s := &Server{
		cfg: cfg, cp: cp, rt: rt, m: m,
		routerLn: lns[0], metricsLn: lns[1], statusLn: lns[2],
		hardStop: hardStop,
		done:     make(chan struct{}),
	}
	// The servers' error lines go to cfg.Log, never to the process's
	// standard logger: a library does not own stderr.
	errLog := cfg.Log
	if errLog == nil {
		errLog = io.Discard
	}
	errorLog := log.New(errLog, "sim router: ", 0)
	s.routerSrv = &http.Server{
		Handler:           rt,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          errorLog,
	}
	metricsMux := http.NewServeMux()
	metricsMux.Handle("GET /metrics", m.handler())
	s.metricsSrv = &http.Server{Handler: metricsMux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: errorLog}
	statusMux := http.NewServeMux()
	if tr.statusz != statuszNone {
		statusMux.HandleFunc("GET /statusz", s.serveStatusz)
		statusMux.Handle("GET /{$}", http.RedirectHandler("/statusz", http.StatusFound))
	}
	s.statusSrv = &http.Server{Handler: statusMux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: errorLog}

	for _, p := range []struct {
		srv *http.Server
		ln  net.Listener
	}{{s.routerSrv, s.routerLn}, {s.metricsSrv, s.metricsLn}, {s.statusSrv, s.statusLn}} {
		s.serveWG.Add(1)
		go func() {
			defer s.serveWG.Done()
			_ = p.srv.Serve(p.ln)
		}()
	}
	// No goroutine waits on ctx: it would outlive a server closed directly.
	// (The lock covers a ctx that is already done: its Close starts at once.)
	s.hookMu.Lock()
	s.stopAfter = context.AfterFunc(ctx, func() { _ = s.Close() })
	s.hookMu.Unlock()
	return s, nil
}

func listenAll(ctx context.Context, cfg Config) ([3]net.Listener, error) {
	var lns [3]net.Listener
	for i, p := range []struct {
		field, addr string
		ln          net.Listener
	}{
		{"{Listen}", cfg.Listen, cfg.Listener},
		{"{MetricsListen}", cfg.MetricsListen, cfg.MetricsListener},
		{"{StatusListen}", cfg.StatusListen, cfg.StatusListener},
	} {
		if p.ln != nil {
			lns[i] = p.ln
			continue
		}
		addr := p.addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		// ListenConfig.Listen gives up when ctx ends (a name to resolve).
		ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
		if err != nil {
			closeAll(lns)
			return lns, fielderr.Errorf(p.field+" %s: %w", addr, err)
		}
		lns[i] = ln
	}
	return lns, nil
}

func closeAll(lns [3]net.Listener) {
	for _, ln := range lns {
		if ln != nil {
			_ = ln.Close()
		}
	}
}

// URL is the router's (Envoy's) base URL, e.g. http://127.0.0.1:8080. An
// unspecified bind address (0.0.0.0, ::) is shown as loopback.
func (s *Server) URL() string { return "http://" + dialable(s.routerLn.Addr()) }

// MetricsURL is the Prometheus endpoint, e.g. http://127.0.0.1:9090/metrics.
func (s *Server) MetricsURL() string { return "http://" + dialable(s.metricsLn.Addr()) + "/metrics" }

// StatusURL is the status page, e.g. http://127.0.0.1:4040/statusz.
func (s *Server) StatusURL() string { return "http://" + dialable(s.statusLn.Addr()) + "/statusz" }

// Addrs are the three bound addresses: router, metrics, status.
func (s *Server) Addrs() [3]net.Addr {
	return [3]net.Addr{s.routerLn.Addr(), s.metricsLn.Addr(), s.statusLn.Addr()}
}

func dialable(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	lo := net.IPv4(127, 0, 0, 1)
	if tcp.IP.To4() == nil {
		lo = net.IPv6loopback
	}
	return net.JoinHostPort(lo.String(), fmt.Sprint(tcp.Port))
}

// IsLoopback reports whether a bound address only accepts local
// connections (in-memory listeners count as local).
func IsLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.Network() != "tcp"
	}
	return tcp.IP.IsLoopback()
}

// Config returns the configuration the server runs with.
func (s *Server) Config() Config { return s.cfg }

// Status is a snapshot of what /statusz reports.
func (s *Server) Status() Status { return s.status() }

// ResumeCalls counts the ResumeActor calls the control plane has answered.
func (s *Server) ResumeCalls() int64 { return s.cp.calls.Load() }

// InjectAborted makes the next n resumes of an actor ("actor-0001" or
// "atespace/actor-0001") answer Aborted, as when another router replica's
// resume holds it; n <= 0 makes every resume answer Aborted until
// ClearAborted.
func (s *Server) InjectAborted(actor string, n int) error {
	ref, err := s.cfg.actorRef(actor)
	if err != nil {
		return err
	}
	if n <= 0 {
		n = abortForever
	}
	s.cp.injectAborted(ref, n)
	return nil
}

// ClearAborted undoes InjectAborted for an actor.
func (s *Server) ClearAborted(actor string) error {
	ref, err := s.cfg.actorRef(actor)
	if err != nil {
		return err
	}
	s.cp.injectAborted(ref, 0)
	return nil
}

// Done is closed when the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }

// drainBound is how long a graceful stop may take: a flight that started
// just before the stop ends within its budget, then the request is served.
// main-2026-08 bounds it with its --drain-timeout, by default budget + the
// default route timeout (10s) + 5s.
func (s *Server) drainBound() time.Duration {
	if s.rt.tr.drainFlags {
		if s.cfg.DrainTimeout > 0 {
			return s.cfg.DrainTimeout
		}
		return s.cfg.ParkedRequestBudget + DrainRouteTimeout + 5*time.Second
	}
	budget := s.rt.flightBudget()
	return budget + s.cfg.ControlPlaneLatency + 2*s.cfg.ResumeLatency + s.cfg.ServiceTime + time.Second
}

// Close stops the simulator gracefully: main-2026-08 first keeps serving
// for --drain-delay, as the real router does after SIGTERM; then it stops
// accepting connections and lets every parked request finish its park
// (within the park budget, or main-2026-08's drain timeout) and be
// answered; nothing in flight is dropped. main-2026-08 then writes its
// --drain-complete-file, if one is set.
func (s *Server) Close() error {
	if d := s.cfg.DrainDelay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-s.done:
		}
		t.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.drainBound())
	defer cancel()
	err := s.Shutdown(ctx)
	if f := s.cfg.DrainCompleteFile; f != "" {
		if werr := os.WriteFile(f, nil, 0o644); werr != nil {
			err = errors.Join(err, fielderr.Errorf("{DrainCompleteFile}: %w", werr))
		}
	}
	return err
}

// ResumeActor resumes an actor ("actor-0001" or "atespace/actor-0001")
// through the control plane alone, as another router replica or an
// operator would: the actor is then running without this router having
// routed a request to it (no metric, no query).
func (s *Server) ResumeActor(ctx context.Context, actor string) error {
	ref, err := s.cfg.actorRef(actor)
	if err != nil {
		return err
	}
	atespace, name, _ := strings.Cut(ref, "/")
	a := s.cp.lookup(atespace, name)
	_, err = s.cp.resume(ctx, ref, a)
	return err
}

// Shutdown is Close with the caller's bound on the drain. When ctx ends
// first, the parks still running are cut short and answered 503
// "actor <ref> unavailable" (outcome error).
func (s *Server) Shutdown(ctx context.Context) error {
	// The first call shuts down; the others wait on done, not on a
	// sync.Once's mutex: in a testing/synctest bubble a goroutine blocked
	// on a mutex is not durably blocked, so the clock the first call's
	// drain waits on would stop (Start's context and the command's own
	// Close often call at once).
	if s.closing.CompareAndSwap(false, true) {
		s.closeErr = s.shutdown(ctx)
		close(s.done)
	}
	<-s.done
	return s.closeErr
}

func (s *Server) shutdown(ctx context.Context) error {
	s.hookMu.Lock()
	s.stopAfter()
	s.hookMu.Unlock()
	var errs []error
	if err := s.routerSrv.Shutdown(ctx); err != nil {
		// Out of patience: end the flights, so every parked request gets
		// its answer at once, then give the handlers a moment to write it.
		s.hardStop()
		grace, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := s.routerSrv.Shutdown(grace); err != nil {
			_ = s.routerSrv.Close()
		}
		cancel()
	}
	s.hardStop()
	s.rt.closeFlights()
	s.cp.close()
	for _, srv := range []*http.Server{s.metricsSrv, s.statusSrv} {
		grace, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := srv.Shutdown(grace); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			errs = append(errs, err)
		}
		_ = srv.Close()
		cancel()
	}
	s.serveWG.Wait()
	if err := s.m.shutdown(context.Background()); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
