package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/internal/redact"
)

// Start listens on Options.Listen (or takes Options.Listener) and serves in
// the background until Shutdown. The address must be loopback unless
// AllowRemote is set: an open relay to a cloud API, with the clients' own
// credentials passing through, is a hole.
func (s *Server) Start() error {
	ln := s.opts.Listener
	if err := checkListen(s.opts.Listen, s.opts.AllowRemote); err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", s.opts.Listen); err != nil {
			return fmt.Errorf("cannot listen on %s: %w", s.opts.Listen, err)
		}
	}
	srv, err := s.bind(ln)
	if err != nil {
		return err
	}
	go srv.Serve(ln) //nolint:errcheck // http.ErrServerClosed after Shutdown
	return nil
}

// Serve serves on ln until Shutdown; it returns http.ErrServerClosed then.
// A TCP listener is checked as Start checks its own (loopback unless
// AllowRemote, not the upstream itself).
func (s *Server) Serve(ln net.Listener) error {
	srv, err := s.bind(ln)
	if err != nil {
		return err
	}
	return srv.Serve(ln)
}

// bind checks ln and records it as the proxy's address, so URL is set
// once Start returns.
func (s *Server) bind(ln net.Listener) (*http.Server, error) {
	if err := s.checkBound(ln.Addr()); err != nil {
		ln.Close()
		return nil, err
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          s.rp.ErrorLog,
	}
	s.mu.Lock()
	if s.httpSrv != nil {
		s.mu.Unlock()
		ln.Close()
		return nil, errors.New("proxy: already serving")
	}
	s.httpSrv, s.addr = srv, ln.Addr()
	s.mu.Unlock()
	if s.shuttingDown() {
		ln.Close()
		return nil, http.ErrServerClosed
	}
	return srv, nil
}

// URL is the API URL to give clients: the listening address with the
// upstream's path prefix, so http://HOST/api is stood in for by
// http://127.0.0.1:PORT/api and http://HOST:13000 by http://127.0.0.1:PORT.
// Empty before Start or Serve.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addr == nil {
		return ""
	}
	return "http://" + s.addr.String() + s.prefix
}

// Shutdown stops accepting, cuts every wait short and hands each waiting
// client the refusal it is waiting on, then waits (until ctx ends) for the
// requests still in flight to finish.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() { close(s.shutdown) })
	s.mu.Lock()
	srv := s.httpSrv
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Shutdown(ctx)
}

func (s *Server) shuttingDown() bool {
	select {
	case <-s.shutdown:
		return true
	default:
		return false
	}
}

// checkListen refuses a listen address that is not loopback before
// anything binds it: an IP must be a loopback one, the only name allowed is
// localhost, and an empty host (every interface) is remote.
func checkListen(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return optionErrorf("invalid listen address %q: want HOST:PORT, e.g. %s", addr, DefaultListen)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return optionErrorf("invalid listen address %q: the port must be a number from 0 to 65535", addr)
	}
	if allowRemote {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return optionErrorf("listen address %q is not a loopback address: the proxy would relay anyone's requests to the API; give {AllowRemote} as well to mean it", addr)
}

// checkBound refuses a bound address that is not loopback (unless
// AllowRemote) or that is the upstream itself, which would send every
// request round in a loop.
func (s *Server) checkBound(a net.Addr) error {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return nil // an in-memory listener in tests
	}
	if !s.opts.AllowRemote && !ta.IP.IsLoopback() {
		return optionErrorf("the proxy is bound to %s, which is not a loopback address; give {AllowRemote} to mean it", ta)
	}
	if portOf(s.upstream) != strconv.Itoa(ta.Port) {
		return nil
	}
	host := s.upstream.Hostname()
	ips := []net.IP{net.ParseIP(host)}
	if ips[0] == nil {
		ips = nil
		// Only names that are certainly this machine are resolved; a
		// remote name on the same port number is another host.
		if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
			ips = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		}
	}
	for _, ip := range ips {
		if ip.Equal(ta.IP) || (ta.IP.IsUnspecified() && (ip.IsLoopback() || isLocalIP(ip))) {
			return optionErrorf("the upstream API URL %s is the proxy itself (%s): give the real API's URL", redact.URL(s.upstream.String()), ta)
		}
	}
	return nil
}

// isLocalIP reports whether ip is one of this machine's addresses.
func isLocalIP(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// Run is `shakectl proxy`: it starts the proxy, calls ready with the URL to
// give clients (the command prints it on stdout), serves until ctx ends
// (the command cancels it on SIGINT/SIGTERM), then shuts down, handing every
// waiting client its refusal, and returns what the proxy did.
func Run(ctx context.Context, o Options, ready func(url string)) (Summary, error) {
	p, err := New(o)
	if err != nil {
		return Summary{}, err
	}
	if err := p.Start(); err != nil {
		return Summary{}, err
	}
	if ready != nil {
		ready(p.URL())
	}
	<-ctx.Done()
	// Waits end at once; this bounds only answers still streaming.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err = p.Shutdown(sctx)
	return p.Summary(), err
}
