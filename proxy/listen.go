package proxy

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/internal/redact"
)

// endpoint is where the proxy listens: the address it binds (loopback
// unless AllowRemote, never the upstream itself), its http.Server, and
// the shutdown that every wait of the proxy watches.
type endpoint struct {
	listen      string
	given       net.Listener // Options.Listener, served instead of listen
	allowRemote bool
	upstream    *url.URL
	prefix      string
	handler     http.Handler
	errorLog    *log.Logger

	shutdown     chan struct{}
	shutdownOnce sync.Once

	mu      sync.Mutex
	httpSrv *http.Server
	addr    net.Addr
}

func newEndpoint(o Options, upstream *url.URL, prefix string) *endpoint {
	return &endpoint{listen: o.Listen, given: o.Listener, allowRemote: o.AllowRemote,
		upstream: upstream, prefix: prefix, shutdown: make(chan struct{})}
}

// start listens (or takes the given listener) and serves in the
// background until stop.
func (e *endpoint) start() error {
	ln := e.given
	if err := checkListen(e.listen, e.allowRemote); err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", e.listen); err != nil {
			return fmt.Errorf("cannot listen on %s: %w", e.listen, err)
		}
	}
	srv, err := e.bind(ln)
	if err != nil {
		return err
	}
	go srv.Serve(ln) //nolint:errcheck // http.ErrServerClosed after Shutdown
	return nil
}

// serve serves on ln until stop; it returns http.ErrServerClosed then.
func (e *endpoint) serve(ln net.Listener) error {
	srv, err := e.bind(ln)
	if err != nil {
		return err
	}
	return srv.Serve(ln)
}

// bind checks ln and records it as the proxy's address, so url is set
// once start returns.
func (e *endpoint) bind(ln net.Listener) (*http.Server, error) {
	if err := e.checkBound(ln.Addr()); err != nil {
		ln.Close()
		return nil, err
	}
	srv := &http.Server{
		Handler:           e.handler,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          e.errorLog,
	}
	e.mu.Lock()
	if e.httpSrv != nil {
		e.mu.Unlock()
		ln.Close()
		return nil, errors.New("proxy: already serving")
	}
	e.httpSrv, e.addr = srv, ln.Addr()
	e.mu.Unlock()
	if e.shuttingDown() {
		ln.Close()
		return nil, http.ErrServerClosed
	}
	return srv, nil
}

// url is the listening address with the upstream's path prefix; "" before
// start or serve.
func (e *endpoint) url() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.addr == nil {
		return ""
	}
	return "http://" + e.addr.String() + e.prefix
}

// stop closes shutdown (every wait ends) and shuts the http.Server down,
// waiting until ctx ends for the requests still in flight.
func (e *endpoint) stop(ctx context.Context) error {
	e.shutdownOnce.Do(func() { close(e.shutdown) })
	e.mu.Lock()
	srv := e.httpSrv
	e.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Shutdown(ctx)
}

func (e *endpoint) shuttingDown() bool {
	select {
	case <-e.shutdown:
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
func (e *endpoint) checkBound(a net.Addr) error {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return nil // an in-memory listener in tests
	}
	if !e.allowRemote && !ta.IP.IsLoopback() {
		return optionErrorf("the proxy is bound to %s, which is not a loopback address; give {AllowRemote} to mean it", ta)
	}
	if portOf(e.upstream) != strconv.Itoa(ta.Port) {
		return nil
	}
	host := e.upstream.Hostname()
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
			return optionErrorf("the upstream API URL %s is the proxy itself (%s): give the real API's URL", redact.URL(e.upstream.String()), ta)
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
