// Package proxy gives clients other than shakectl the transient-capacity
// retry without changing them: a reverse proxy on a loopback address in front
// of a Shakenfist API that forwards every request and answer unchanged and
// replays only a 507 the server marked "transient": true, with the same
// policy (package retry) and the same classifier (retry.ClassifyRefusal) as
// shakectl's own calls. RunWrapped runs one command behind it.
//
// Forwarding is net/http/httputil.ReverseProxy: it already strips
// hop-by-hop headers, streams both bodies, handles 1xx answers, trailers
// and protocol upgrades, and copies the answer's headers and bytes as they
// came. The replay is a hand-written loop in its Transport (retryTransport)
// rather than go-retryablehttp's Client, which shakectl's own calls use:
// retryablehttp drains and discards a refusal before it waits, so a
// shutdown could not hand the waiting client the refusal it is waiting on
// byte for byte, and its RoundTripper reads every request body into memory,
// where an upload must stream. The loop asks retry.Call (Check, the
// decision CheckRetry makes for shakectl's own calls) for every decision,
// so the two share one policy: the attempt cap, the [1 s, 60 s] clamp and
// the budget with its shortened last wait. The capacity gate (package
// proxy/gate) sits inside that one loop: it admits each send.
package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize/english"

	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/httpurl"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/proxy/gate"
	"github.com/shakenfist/shakectl/retry"
)

const (
	// DefaultBudget bounds the waiting of one request: client-python's
	// ASYNC_PAUSE budget, and shakectl's --timeout default for a create.
	DefaultBudget = 60 * time.Second
	// DefaultMaxReplayBody is the largest request body buffered so that it
	// can be replayed; larger ones (uploads) stream and are never replayed.
	DefaultMaxReplayBody = 1 << 20
	// DefaultListen is a loopback address with a port the kernel picks.
	DefaultListen = "127.0.0.1:0"
	// maxRefusalBody bounds how much of a 507 is read to classify it; a
	// larger 507 is not a scheduling refusal and passes through unread.
	// The same bound as shakectl's own reading of error answers
	// (client.MaxErrorBody).
	maxRefusalBody = 64 << 10
)

// Options configure a Server.
type Options struct {
	// Upstream is the API URL the proxy stands in front of:
	// http://HOST/api (behind Apache) or http://HOST:13000.
	Upstream string
	// Listen is the address to listen on; "" is DefaultListen. It must be
	// a loopback address unless AllowRemote is set.
	Listen      string
	AllowRemote bool
	// Listener, when set, is served instead of listening on Listen (tests
	// run the proxy on an in-memory listener inside a testing/synctest
	// bubble). Start takes ownership.
	Listener net.Listener
	// Dial, when set and Transport is nil, opens the upstream connections
	// instead of a TCP dialer (tests dial in-memory).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Budget bounds the waiting of one request; 0 is DefaultBudget.
	Budget time.Duration
	// RetryWait, when positive, replaces the server's Retry-After (still
	// clamped to [1 s, 60 s]).
	RetryWait time.Duration
	// MaxReplayBody is the largest request body buffered for replay; 0 is
	// DefaultMaxReplayBody.
	MaxReplayBody int64
	// MaxReplayTotal bounds the bodies buffered for replay across all
	// requests in flight; 0 is DefaultMaxReplayTotal. A body that would
	// go over it streams and is not replayed, as a large one does.
	MaxReplayTotal int64
	// AcceptHosts are regular expressions for Host names accepted besides
	// the loopback ones (localhost, 127.0.0.0/8, ::1); each must match the
	// whole name, without its port. Any other Host gets a 403: the
	// defence against DNS rebinding.
	AcceptHosts []string
	// Insecure skips verifying the upstream's TLS certificate (the command
	// warns); it applies only to the default Transport.
	Insecure bool
	// Log receives one line per wait and per refusal handed back, per
	// upstream error, and the lines of the HTTP server's error log; nil
	// is silent. The proxy says what happened; Log decides how it is
	// written (shakectl's is the command's notifier).
	Log Logger
	// Notify, if set, is also called before each wait, from the waiting
	// request's goroutine (so concurrently for concurrent requests).
	Notify func(retry.Notice)
	// Transport carries requests upstream; nil is a clone of
	// http.DefaultTransport without transparent decompression.
	Transport http.RoundTripper
	// Now is the proxy's one clock: Retry-After dates, round trips, and
	// the capacity gate's windows and budgets; nil is time.Now.
	Now func() time.Time
	// Gate turns on the capacity gate (package proxy/gate): after a transient
	// refusal of a create, creates asking at least as much of the refused
	// resource wait in the proxy, in arrival order, until the refusal's
	// Retry-After has passed, and then go one at a time. The zero value
	// (`--gate=off`) replays every request on its own clock.
	Gate bool
	// OptionName names an option in the text the proxy sends a client
	// (the 403 page says which option accepts other Hosts): the command
	// gives its flag for a field ({AcceptHosts}); nil writes the field.
	OptionName func(field string) string
}

// Logger is where the proxy's lines go (Options.Log): shakectl's is the
// command's notifier (output.Notifier), which writes the text for people,
// the fields as one JSON object under -o json, and nothing under --quiet.
// The proxy writes nothing itself: a library does not own stderr.
type Logger interface {
	// Event is one line: text for people, which quotes a client's path
	// or the server's stage (the logger sanitises it), and fields for
	// programs, whose "event" names it.
	Event(text string, fields any)
	// Lines is a writer whose every line is an event named event: the
	// error log of the proxy's http.Server and ReverseProxy.
	Lines(event string) io.Writer
}

// Summary is what the proxy did, for the line printed on exit.
type Summary struct {
	// Requests is the number of client requests forwarded: sent to the
	// upstream at least once.
	Requests int64
	// Waited is the number of transient refusals waited out: each was
	// followed by a replay of the request.
	Waited int64
	// HandedBack is the number of transient refusals given to the client
	// because the attempt cap, the budget, a shutdown or a streamed body
	// stopped the replay.
	HandedBack int64
	// Gate says the capacity gate was on; HeldBack is how many sends it
	// held back: each time a create that would have gone (on arrival, or
	// when its own Retry-After ended) waited for a refused shape instead.
	// The line says it when it is not 0.
	Gate     bool
	HeldBack int64
	// OverReplayMemory is the number of request bodies that streamed, and
	// so could not be replayed, because the replay memory was full.
	// Refused is the number of requests answered 403 or 405 unforwarded.
	OverReplayMemory int64
	Refused          int64
	// NeverSent is the number of creates the capacity gate held and never
	// sent: the proxy stopped, or their client left, before their turn.
	// They are not forwarded, so they count here and never in Requests:
	// the summary does not claim a request reached the server.
	NeverSent int64
}

// Received is the number of client requests the proxy took to forward:
// forwarded or held and never sent.
func (s Summary) Received() int64 { return s.Requests + s.NeverSent }

func (s Summary) String() string {
	line := fmt.Sprintf("proxy: %d %s forwarded, %d %s waited out, %d %s handed back",
		s.Requests, english.PluralWord(int(s.Requests), "request", "requests"),
		s.Waited, english.PluralWord(int(s.Waited), "refusal", "refusals"),
		s.HandedBack, english.PluralWord(int(s.HandedBack), "refusal", "refusals"))
	if s.Gate && s.HeldBack > 0 {
		// Only when it did something: a run the gate never touched reads
		// as it did before the gate existed (-o json always says).
		line += fmt.Sprintf(", %d %s held back by the capacity gate", s.HeldBack, english.PluralWord(int(s.HeldBack), "send", "sends"))
	}
	if s.NeverSent > 0 {
		line += fmt.Sprintf(", %d held %s never sent", s.NeverSent, english.PluralWord(int(s.NeverSent), "create", "creates"))
	}
	if s.OverReplayMemory > 0 {
		line += fmt.Sprintf(", %d request %s streamed without replay (the replay memory was full)", s.OverReplayMemory, english.PluralWord(int(s.OverReplayMemory), "body", "bodies"))
	}
	if s.Refused > 0 {
		line += fmt.Sprintf(", %d %s refused unforwarded", s.Refused, english.PluralWord(int(s.Refused), "request", "requests"))
	}
	return line
}

// OptionError is a proxy option the user must change (a usage error, exit
// 2): an invalid upstream URL, a bad budget, a listen address that is not
// loopback without AllowRemote, the proxy as its own upstream. Its message
// names the Options fields it is about as {Field} placeholders
// ({AllowRemote}); the command renders them as its flags.
type OptionError = fielderr.Error

func optionErrorf(format string, a ...any) error {
	return fielderr.Errorf(format, a...)
}

// Server is the proxy. Its zero value is not usable; build it with New.
type Server struct {
	opts     Options
	upstream *url.URL
	prefix   string // the upstream's path prefix without a trailing slash: "/api" or ""
	rp       *httputil.ReverseProxy

	// end is where it listens, and the shutdown every wait watches
	// (listen.go); front what it refuses unforwarded (front.go).
	end   *endpoint
	front *frontDoor

	requests, waited, handedBack, heldBack atomic.Int64
	overReplayMemory, neverSent            atomic.Int64
	replayMem                              replayMemory
	gate                                   *gate.Gate // nil with the gate off
}

// New checks the options and builds a proxy without listening: ServeHTTP
// serves it, Start or Serve listen.
func New(o Options) (*Server, error) {
	up, err := parseUpstream(o.Upstream)
	if err != nil {
		return nil, err
	}
	if o.Budget < 0 {
		return nil, optionErrorf("budget %s: want a positive duration", o.Budget)
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.RetryWait < 0 {
		return nil, optionErrorf("retry wait %s: want a positive duration", o.RetryWait)
	}
	if o.MaxReplayBody <= 0 {
		o.MaxReplayBody = DefaultMaxReplayBody
	}
	if o.MaxReplayTotal < 0 {
		return nil, optionErrorf("replay memory %d: want a positive size", o.MaxReplayTotal)
	}
	if o.MaxReplayTotal == 0 {
		o.MaxReplayTotal = DefaultMaxReplayTotal
	}
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// The answer goes to the client as the server sent it: no
		// transparent gzip, which would hand back decoded bytes without
		// their Content-Encoding.
		t.DisableCompression = true
		t.MaxIdleConnsPerHost = 64
		if o.Dial != nil {
			t.DialContext = o.Dial
		}
		if o.Insecure {
			t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure, and the command warns
		}
		o.Transport = t
	}
	s := &Server{
		opts:      o,
		upstream:  up,
		prefix:    strings.TrimRight(up.EscapedPath(), "/"),
		replayMem: replayMemory{max: o.MaxReplayTotal},
	}
	if s.front, err = newFrontDoor(o, s.logEvent); err != nil {
		return nil, err
	}
	if o.Gate {
		s.gate = gate.New(o.Now)
	}
	// The http.Server's and the ReverseProxy's own error lines (a
	// client's broken request, a copy cut short) are the log's too, so
	// that under -o json they are JSON like every other line.
	errLog := io.Discard
	if o.Log != nil {
		errLog = o.Log.Lines("log")
	}
	s.rp = &httputil.ReverseProxy{
		Rewrite:        s.rewrite,
		Transport:      &retryTransport{s: s, next: o.Transport},
		FlushInterval:  -1, // stream: every write of the answer reaches the client at once
		ModifyResponse: s.rewriteLocation,
		ErrorHandler:   s.upstreamError,
		ErrorLog:       log.New(errLog, "proxy: ", 0),
	}
	s.end = newEndpoint(o, up, s.prefix)
	s.end.handler, s.end.errorLog = s, s.rp.ErrorLog
	return s, nil
}

// Start listens on Options.Listen (or takes Options.Listener) and serves in
// the background until Shutdown. The address must be loopback unless
// AllowRemote is set: an open relay to a cloud API, with the clients' own
// credentials passing through, is a hole.
func (s *Server) Start() error { return s.end.start() }

// Serve serves on ln until Shutdown; it returns http.ErrServerClosed then.
// A TCP listener is checked as Start checks its own (loopback unless
// AllowRemote, not the upstream itself).
func (s *Server) Serve(ln net.Listener) error { return s.end.serve(ln) }

// URL is the API URL to give clients: the listening address with the
// upstream's path prefix, so http://HOST/api is stood in for by
// http://127.0.0.1:PORT/api and http://HOST:13000 by http://127.0.0.1:PORT.
// Empty before Start or Serve.
func (s *Server) URL() string { return s.end.url() }

// Shutdown stops accepting, cuts every wait short and hands each waiting
// client the refusal it is waiting on, then waits (until ctx ends) for the
// requests still in flight to finish.
func (s *Server) Shutdown(ctx context.Context) error { return s.end.stop(ctx) }

// parseUpstream accepts the API's base URL, without credentials: the
// proxy holds none (a password in the URL would be sent on every
// request; clients send their own).
func parseUpstream(raw string) (*url.URL, error) {
	u, err := httpurl.Check(strings.TrimSpace(raw), httpurl.Rules{Base: true, NoCredentials: true})
	var ue *httpurl.Error
	if !errors.As(err, &ue) {
		return u, err
	}
	switch ue.Problem {
	case httpurl.Empty:
		return nil, optionErrorf("no upstream API URL: set {Upstream}")
	case httpurl.NoScheme, httpurl.Unparsable:
		return nil, optionErrorf("invalid upstream API URL %q: %s; want http://HOST/api or http://HOST:13000", ue.URL, ue.Reason())
	case httpurl.Credentials:
		return nil, optionErrorf("upstream API URL %q carries credentials; the proxy holds none (clients send their own)", ue.URL)
	}
	return nil, optionErrorf("invalid upstream API URL %q: %s", ue.URL, ue.Reason())
}

// upstreamPath maps a client's path to the upstream's. The proxy answers
// under the upstream's own prefix (the URL clients are given, URL(), keeps
// it), so a path already under the prefix goes as is; a client configured
// with the proxy's bare root (http://127.0.0.1:PORT) in front of
// http://HOST/api gets the prefix added. The prefix matches whole
// segments: "/apiary" is not under "/api".
func (s *Server) upstreamPath(escaped string) string {
	if s.prefix == "" || escaped == s.prefix || strings.HasPrefix(escaped, s.prefix+"/") {
		return escaped
	}
	if escaped == "" || escaped == "/" {
		return s.prefix + "/"
	}
	if !strings.HasPrefix(escaped, "/") {
		return s.prefix + "/" + escaped
	}
	return s.prefix + escaped
}

func (s *Server) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	esc := s.upstreamPath(pr.In.URL.EscapedPath())
	if p, err := url.PathUnescape(esc); err == nil {
		out.URL.Path, out.URL.RawPath = p, esc
	}
	out.URL.Scheme = s.upstream.Scheme
	out.URL.Host = s.upstream.Host
	// The Host header is the upstream's, as if the client had called it.
	out.Host = ""
	// ReverseProxy strips the client's forwarding headers before Rewrite;
	// this proxy adds none of its own and passes the client's unchanged.
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := pr.In.Header[h]; ok {
			out.Header[h] = v
		}
	}
}

// rewriteLocation points a redirect to the upstream back at the proxy:
// sf-client probes the API root and adopts the Location it is sent as its
// new base URL (client-python 6c25293c apiclient.py _request_url), which
// would otherwise leave the proxy behind for the rest of the run.
func (s *Server) rewriteLocation(resp *http.Response) error {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil
	}
	u, err := url.Parse(loc)
	if err != nil || !strings.EqualFold(u.Scheme, s.upstream.Scheme) || !sameHost(u, s.upstream) {
		return nil
	}
	info := requestInfoFrom(resp.Request.Context())
	if info == nil || info.host == "" {
		return nil
	}
	u.Scheme = "http"
	u.Host = info.host
	resp.Header.Set("Location", u.String())
	return nil
}

func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// upstreamError answers a request that got no answer from upstream (or
// whose client went away) at once: a 502, as any reverse proxy does, and
// one line on the log. A client that has gone gets nothing.
func (s *Server) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return
	}
	text := fmt.Sprintf("%s %s: upstream: %v", r.Method, r.URL.Path, err)
	s.logEvent(text, struct {
		Event   string `json:"event"`
		Method  string `json:"method"`
		Path    string `json:"path"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}{"upstream_error", r.Method, r.URL.Path, err.Error(), text})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintf(w, "shakectl proxy: no answer from the upstream API: %v\n", err)
}

type ctxKey struct{}

// requestInfo travels with a request from ServeHTTP to the transport.
type requestInfo struct {
	method, path string
	// apiPath is path relative to the upstream's API root ("/instances"
	// for "/api/instances"): what retry.Replayable reads.
	apiPath     string
	host        string // the Host the client addressed the proxy as
	replayable  bool   // the body is buffered and GetBody replays it
	streamedWhy string // why not, for the log
	// gated: a create (POST /instances with a buffered body the gate can
	// read a shape from), which the capacity gate may hold.
	gated bool
	shape gate.Shape
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(ctxKey{}).(*requestInfo)
	return ri
}

// ServeHTTP forwards one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.front.refuse(w, r) {
		return
	}
	info := &requestInfo{method: r.Method, path: r.URL.Path, apiPath: s.apiPath(r), host: r.Host}
	switch {
	case r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0:
		info.replayable = true
	case r.ContentLength < 0:
		info.streamedWhy = "the request body was sent chunked and streamed"
	case r.ContentLength > s.opts.MaxReplayBody:
		info.streamedWhy = fmt.Sprintf("the request body (%d bytes) is over %d bytes and was streamed", r.ContentLength, s.opts.MaxReplayBody)
	case !s.replayMem.take(r.ContentLength):
		// Every request in flight together may hold MaxReplayTotal.
		s.overReplayMemory.Add(1)
		info.streamedWhy = fmt.Sprintf("the request body (%d bytes) was streamed because the replay memory (%s for all requests in flight) was full", r.ContentLength, output.SizeText(s.opts.MaxReplayTotal))
	default:
		defer s.replayMem.give(r.ContentLength)
		body, err := io.ReadAll(io.LimitReader(r.Body, r.ContentLength+1))
		if err != nil {
			// The client went away or sent less than it announced: the
			// server would see the same broken request; answer as a
			// proxy does.
			if r.Context().Err() == nil {
				http.Error(w, "shakectl proxy: reading the request body: "+err.Error(), http.StatusBadRequest)
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		info.replayable = true
		if s.gate != nil && s.isCreate(r) {
			info.shape, info.gated = gate.ShapeOf(body)
		}
	}
	s.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, info)))
}

// isCreate reports whether r creates an instance: POST /instances under
// the upstream's prefix.
func (s *Server) isCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && s.apiPath(r) == "/instances"
}

// apiPath is r's path relative to the upstream's API root, as
// retry.Replayable reads it: "/instances" for "/api/instances" in front of
// http://HOST/api.
func (s *Server) apiPath(r *http.Request) string {
	p := strings.TrimPrefix(s.upstreamPath(r.URL.EscapedPath()), s.prefix)
	return retry.APIPath(p)
}

// Summary reports what the proxy has done so far.
func (s *Server) Summary() Summary {
	return Summary{Requests: s.requests.Load(), Waited: s.waited.Load(), HandedBack: s.handedBack.Load(),
		Gate: s.gate != nil, HeldBack: s.heldBack.Load(),
		OverReplayMemory: s.overReplayMemory.Load(), Refused: s.front.refused.Load(), NeverSent: s.neverSent.Load()}
}

// logEvent gives the log one line: text for people, fields for programs.
func (s *Server) logEvent(text string, fields any) {
	if s.opts.Log != nil {
		s.opts.Log.Event(text, fields)
	}
}

// logLine is logEvent with the fields already encoded (a retry notice's
// JSON).
func (s *Server) logLine(text, jsonLine string) {
	s.logEvent(text, json.RawMessage(jsonLine))
}

// retryTransport sends a request upstream and, for a request whose body
// is buffered, replays it while the answer is a transient refusal and
// retry.Call allows it.
type retryTransport struct {
	s    *Server
	next http.RoundTripper
}

// RoundTrip is the proxy's one retry loop, for every request, the gate on
// or off: the capacity gate admits each send (with the gate off, or for a
// request it does not hold, at once), the answer is read and reported to
// the gate, and the call's own next step follows: hand the answer back,
// or wait its Retry-After and send the identical request again. A create
// the gate let go only because its budget was about to end gets its
// answer, whatever it is: there is no time left for another.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := t.s
	ctx := req.Context()
	info := requestInfoFrom(ctx)
	if info == nil {
		info = &requestInfo{method: req.Method, path: req.URL.Path, apiPath: retry.APIPath(strings.TrimPrefix(req.URL.EscapedPath(), s.prefix))}
	}
	call := s.newCall(info)
	pass := s.enterGate(info)
	defer pass.Leave()
	var (
		sent bool    // sent upstream at least once: forwarded
		last *answer // its own latest refusal, while it waits to send again
	)
	for {
		rel := pass.Admit(ctx, s.end.shutdown)
		if rel.Held {
			s.logReleased(info, rel, last != nil)
		}
		if rel.Reason == gate.Gone || rel.Reason == gate.Stopped {
			return s.notAdmitted(req, info, call, rel.Reason, sent, last)
		}
		if last != nil {
			s.waited.Add(1)
			var err error
			if req, err = replay(ctx, req); err != nil {
				return nil, err
			}
			last = nil
		}
		if !sent {
			s.requests.Add(1)
			sent = true
		}
		a, err := t.send(req)
		if err != nil {
			pass.Report(gate.Answer{SentAt: a.sentAt, At: a.at})
			return nil, err
		}
		wait, again, why := s.nextStep(ctx, call, info, rel.Reason, a)
		pass.Report(a.forGate(call, wait, again))
		if !again {
			if why != "" {
				s.handBack(info, a.stage, call, why)
			}
			return a.resp, nil
		}
		call.Announce()
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-ctx.Done():
			// The client went away: stop waiting, send nothing more.
			timer.Stop()
			return nil, ctx.Err()
		case <-s.end.shutdown:
			timer.Stop()
			s.handBack(info, a.stage, call, whyShuttingDown)
			return a.resp, nil
		}
		last = &a
	}
}

// whyShuttingDown is why a refusal is handed back when the proxy stops
// while its request waits.
const whyShuttingDown = "the proxy is shutting down"

// newCall starts the retry.Call of one request, which makes every
// decision of the loop, as it does for shakectl's own calls.
func (s *Server) newCall(info *requestInfo) *retry.Call {
	return retry.Policy{
		// The proxy's own rule (a body it holds to replay) and the one
		// list of the calls a replay cannot double, which shakectl's own
		// calls follow too (retry.ReplayableRoutes).
		Enabled: info.replayable,
		Method:  info.method,
		Path:    info.apiPath,
		Budget:  s.opts.Budget,
		Wait:    s.opts.RetryWait,
		Now:     s.opts.Now,
		Notify: func(n retry.Notice) {
			n.Method, n.Path = info.method, info.path
			s.logLine(n.String(), n.JSON())
			if s.opts.Notify != nil {
				s.opts.Notify(n)
			}
		},
	}.NewCall()
}

// enterGate is the request's pass through the capacity gate: a create
// the gate can weigh, when the gate is on; else nil, which admits every
// send at once.
func (s *Server) enterGate(info *requestInfo) *gate.Pass {
	if !info.gated {
		return nil
	}
	return s.gate.Enter(info.shape, s.opts.Budget, func(h gate.Hold) { s.logHeld(info, h) })
}

// nextStep is the call's own next step after answer a: send it again
// after wait, or hand it back; why says why a transient refusal is
// handed back ("" for any other answer). released is why the gate let
// this send go.
func (s *Server) nextStep(ctx context.Context, call *retry.Call, info *requestInfo, released gate.Reason, a answer) (wait time.Duration, again bool, why string) {
	wait, again = call.Check(ctx, retry.Answer{Status: a.resp.StatusCode, Header: a.resp.Header, Stage: a.stage, Transient: a.transient})
	switch {
	case !again && a.transient:
		return 0, false, stopReason(info, call, s.opts.Budget)
	case !again:
		return 0, false, ""
	case released == gate.Budget:
		return 0, false, fmt.Sprintf("the budget of %s ends within one round trip", retry.HumanDuration(s.opts.Budget))
	case s.end.shuttingDown():
		return 0, false, whyShuttingDown
	}
	return wait, true, ""
}

// notAdmitted answers a request whose next send the gate did not let go:
// its client went away (nothing more is sent), or the proxy is stopping:
// the client gets its own last refusal if it has one, else a 503 that
// says the create was never sent.
func (s *Server) notAdmitted(req *http.Request, info *requestInfo, call *retry.Call, why gate.Reason, sent bool, last *answer) (*http.Response, error) {
	if !sent {
		s.neverSent.Add(1)
	}
	switch {
	case why == gate.Gone:
		return nil, req.Context().Err()
	case last != nil:
		s.handBack(info, last.stage, call, whyShuttingDown)
		return last.resp, nil
	}
	return stoppedAnswer(req), nil
}

// replay is the next attempt of req: the identical request.
func replay(ctx context.Context, req *http.Request) (*http.Request, error) {
	next := req.Clone(ctx)
	next.Body = nil // a request without a body has no GetBody
	if req.GetBody != nil {
		var err error
		if next.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return next, nil
}

// answer is one answer from upstream as the loop reads it.
type answer struct {
	resp *http.Response
	// stage and transient: a 507 as retry.ClassifyRefusal reads it.
	stage     string
	transient bool
	// sentAt and at: when it was sent and answered, on the proxy's clock.
	sentAt, at time.Time
}

// send sends req upstream once and reads its answer.
func (t *retryTransport) send(req *http.Request) (answer, error) {
	a := answer{sentAt: t.s.opts.Now()}
	resp, err := t.next.RoundTrip(req)
	a.at = t.s.opts.Now()
	if err != nil {
		return a, err
	}
	a.stage, a.transient, err = readRefusal(resp)
	a.resp = resp
	return a, err
}

// forGate is the answer as the capacity gate records it; again and wait
// are the call's next step, when the create will be sent again.
func (a answer) forGate(call *retry.Call, wait time.Duration, again bool) gate.Answer {
	g := gate.Answer{SentAt: a.sentAt, At: a.at, Status: a.resp.StatusCode, Transient: a.transient, Stage: a.stage}
	if a.transient {
		g.RetryAfter, _ = call.RetryAfter(a.resp.Header)
	}
	if again {
		g.Retry = a.at.Add(wait)
	}
	return g
}

// readRefusal reads a 507's body (bounded) so it can be classified and
// still handed on byte for byte, and classifies it; any other answer is
// left untouched, still streaming. A gzip-encoded refusal (an Apache front
// end with mod_deflate) is decoded for the classifier only: the client gets
// the bytes as sent.
func readRefusal(resp *http.Response) (stage string, transient bool, err error) {
	if resp.StatusCode != http.StatusInsufficientStorage || resp.Body == nil {
		return "", false, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRefusalBody+1))
	if err != nil {
		resp.Body.Close()
		return "", false, err
	}
	if len(b) > maxRefusalBody {
		// Not a scheduling refusal: pass it on, the part read in front.
		resp.Body = &multiReadCloser{Reader: io.MultiReader(bytes.NewReader(b), resp.Body), Closer: resp.Body}
		return "", false, nil
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	plain := b
	if strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), "gzip") {
		plain = nil
		if zr, zerr := gzip.NewReader(bytes.NewReader(b)); zerr == nil {
			plain, _ = io.ReadAll(io.LimitReader(zr, maxRefusalBody))
		}
	}
	stage, transient = retry.ClassifyRefusal(resp.StatusCode, resp.Header, plain)
	return stage, transient, nil
}

type multiReadCloser struct {
	io.Reader
	io.Closer
}

func stopReason(info *requestInfo, call *retry.Call, budget time.Duration) string {
	switch {
	case !retry.Replayable(info.method, info.apiPath):
		return retry.NotReplayable(info.method, info.apiPath)
	case !info.replayable:
		return info.streamedWhy + ", so it cannot be replayed"
	case call.Attempts() >= retry.MaxAttempts:
		return fmt.Sprintf("%d of %d attempts sent", call.Attempts(), retry.MaxAttempts)
	case call.Elapsed() >= budget:
		return fmt.Sprintf("the budget of %s is spent", retry.HumanDuration(budget))
	default:
		return "the client's request ended"
	}
}

func (s *Server) handBack(info *requestInfo, stage string, call *retry.Call, why string) {
	s.handedBack.Add(1)
	text := fmt.Sprintf("%s %s: %s (transient); handing the refusal back after %d %s, %s: %s",
		info.method, info.path, retry.RefusedAt(stage), call.Attempts(), english.PluralWord(call.Attempts(), "attempt", "attempts"),
		retry.HumanDuration(call.Elapsed()), why)
	s.logEvent(text, struct {
		Event          string  `json:"event"`
		Method         string  `json:"method"`
		Path           string  `json:"path"`
		Stage          string  `json:"stage"`
		Attempts       int     `json:"attempts"`
		ElapsedSeconds float64 `json:"elapsed_seconds"`
		Reason         string  `json:"reason"`
		Message        string  `json:"message"`
	}{"handed_back", info.method, info.path, stage, call.Attempts(), call.Elapsed().Seconds(), why, text})
}

// logHeld is the "held" line: which refused shape holds the create and
// until when, or that it waits for the answer to the first create of its
// burst. A send held for that first answer and then by its refusal
// (h.Again) is counted once. It is called with the gate locked.
func (s *Server) logHeld(info *requestInfo, h gate.Hold) {
	if !h.Again {
		s.heldBack.Add(1)
	}
	var text, reason string
	var window float64
	switch {
	case h.FirstAnswer:
		reason = "first_answer"
		text = fmt.Sprintf("%s %s: held by the capacity gate: nothing recent is known of whether the cluster takes creates, and the first of this burst is finding out; it goes when that one is answered (and waits under the gate's rules if it is refused), at the latest in %s",
			info.method, info.path, retry.HumanDuration(h.Bound))
	case h.Window > 0:
		reason, window = "refused_shape", h.Window.Seconds()
		text = fmt.Sprintf("%s %s: held by the capacity gate: %s; it goes when the window ends (in %s), or one round trip before its budget does",
			info.method, info.path, h.Why, retry.HumanDuration(h.Window))
	default:
		reason = "refused_shape"
		text = fmt.Sprintf("%s %s: held by the capacity gate: %s; the create ahead of it is finding out whether it fits now",
			info.method, info.path, h.Why)
	}
	s.logEvent(text, struct {
		Event         string  `json:"event"`
		Method        string  `json:"method"`
		Path          string  `json:"path"`
		Reason        string  `json:"reason"`
		Stage         string  `json:"stage,omitempty"`
		Asks          float64 `json:"asks"`
		RefusedAsking float64 `json:"refused_asking"`
		WindowSeconds float64 `json:"window_seconds"`
		Message       string  `json:"message"`
	}{"held", info.method, info.path, reason, h.Stage, h.Asks, h.RefusedAsking, window, text})
}

// releasedSays is what the "released" line says of each reason the gate
// lets a held create go, or it stops waiting.
var releasedSays = map[gate.Reason]string{
	gate.First:    "the window ended and it goes first",
	gate.Next:     "the create ahead of it went through, so it goes at once",
	gate.Budget:   "its budget ends within one round trip, so it goes now and gets its own answer",
	gate.Free:     "nothing holds it any more",
	gate.Answered: "the first create of its burst was answered and not refused, so it goes at once",
	gate.Bound:    "the first create of its burst is slow to answer (most likely being placed), so it goes",
	gate.Stopped:  "the proxy is stopping; it gets a 503 that says it was never sent",
	gate.Gone:     "its client went away",
}

// logReleased is the "released" line of a create the gate held; refused
// says the create holds its own refusal (what a stopping proxy hands it).
func (s *Server) logReleased(info *requestInfo, rel gate.Release, refused bool) {
	says := releasedSays[rel.Reason]
	if rel.Reason == gate.Stopped && refused {
		says = "the proxy is stopping; it gets its own last refusal"
	}
	text := fmt.Sprintf("%s %s: released by the capacity gate after %s: %s", info.method, info.path, retry.HumanDuration(rel.HeldFor), says)
	s.logEvent(text, struct {
		Event       string  `json:"event"`
		Method      string  `json:"method"`
		Path        string  `json:"path"`
		Reason      string  `json:"reason"`
		HeldSeconds float64 `json:"held_seconds"`
		Message     string  `json:"message"`
	}{"released", info.method, info.path, string(rel.Reason), rel.HeldFor.Seconds(), text})
}

// stoppedAnswer is what a client whose create the gate held, and never
// sent, gets when the proxy stops: a 503 that says nothing reached the
// server, so the client knows it may send the create again elsewhere.
func stoppedAnswer(req *http.Request) *http.Response {
	body := "shakectl proxy: the proxy stopped before this create was sent (the capacity gate was holding it); the server never received it\n"
	return &http.Response{
		Status:        "503 Service Unavailable",
		StatusCode:    http.StatusServiceUnavailable,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}
