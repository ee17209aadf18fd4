package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/httpurl"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/probe/transport"
)

// Progress is a live view of a running probe.
type Progress struct {
	Elapsed  time.Duration
	Sent     int64
	InFlight int64
	// Counts are the answers so far, by outcome.
	Counts [report.NumOutcomes]int64
}

// NoAnswerError says the target never gave an HTTP answer: every request
// failed in transport (not HTTP, wrong port, gone).
type NoAnswerError struct {
	Target   string
	Requests int64
	// Reason is the commonest transport error, when Timeout is 0.
	Reason string
	// Timeout, when set, is the per-request timeout most requests ran
	// into.
	Timeout time.Duration
}

func (e *NoAnswerError) Error() string { return e.Render(nil) }

// Render is the message with the option it may name written by name, as
// OptionError's Render.
func (e *NoAnswerError) Render(name func(field string) string) string {
	reason := e.Reason
	if e.Timeout > 0 {
		reason = fielderr.Errorf("no answer within the %s {Timeout}", report.FormatDuration(e.Timeout)).Render(name)
	}
	return fmt.Sprintf("no HTTP answer from %s: all %d requests failed (%s)", e.Target, e.Requests, reason)
}

// TargetError says the target could not be reached before any load was sent.
type TargetError struct {
	Target string
	Err    error
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("cannot reach target %s: %s", e.Target, transport.Detail(e.Err))
}

func (e *TargetError) Unwrap() error { return e.Err }

// Run probes the target as the options say and returns the report. Invalid
// options give an *OptionError and no report. A target that cannot be
// reached at all gives a *TargetError; one that never answers HTTP gives the
// report and a *NoAnswerError. When ctx is cancelled mid-run, in-flight
// requests are cancelled (they count as transport_error, detail
// "canceled"), and Run returns the partial report with an error wrapping
// context.Cause(ctx). It waits for those requests to end 250 ms at most
// (drainGrace), then counts what is left as cancelled; their goroutines
// end on their own later, and change nothing in the report.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	e, err := newEngine(&o)
	if err != nil {
		return nil, err
	}
	defer e.close()

	// Ctrl-C before the load gives the (empty) partial report, as it does
	// at every later stage, so the user always gets a report and exit 130.
	interruptedBeforeStart := func() (*report.Report, error) {
		r := e.report(time.Now(), 0)
		r.Interrupted = true
		return r, fmt.Errorf("interrupted before the load started: %w", context.Cause(ctx))
	}
	if err := e.preflight(ctx); err != nil {
		if ctx.Err() != nil {
			return interruptedBeforeStart()
		}
		return nil, err
	}
	if e.scr != nil {
		if err := e.scrapeBefore(ctx); err != nil {
			if ctx.Err() != nil {
				return interruptedBeforeStart()
			}
			return nil, err
		}
	}
	if o.Timeout > 0 && o.Timeout <= o.Checks.Budget && o.Checks.BudgetSource == report.BudgetDefault && !o.shortTimeoutMeant() {
		// An assumed budget is not refused against (checkTimeoutCoversBudget),
		// but a parked request may well outlast so short a timeout.
		e.warn("{Timeout} %s is not longer than the %s park budget assumed (no {Checks.Budget} given, none read from statusz): a request parked that long ends as client_timeout",
			report.FormatDuration(o.Timeout), report.FormatDuration(o.Checks.Budget))
	}
	if !o.StartAt.IsZero() {
		// A burst or open run opens its connections just before --start-at, so
		// probes on several machines release together.
		wake := o.StartAt
		if e.predial != nil {
			wake = wake.Add(-predialLead)
		}
		if waitUntil(ctx, wake) != nil {
			return interruptedBeforeStart()
		}
	}
	if e.predial != nil {
		if err := e.predial.Fill(ctx, e.predialN, func(msg string) { e.warn("%s", msg) }); err != nil {
			if ctx.Err() != nil {
				return interruptedBeforeStart()
			}
			return nil, &TargetError{Target: o.Target, Err: err}
		}
	}
	if !o.StartAt.IsZero() {
		if waitUntil(ctx, o.StartAt) != nil {
			return interruptedBeforeStart()
		}
		if late := time.Since(o.StartAt); late > 100*time.Millisecond {
			e.warn("the load started %s after {StartAt}", report.FormatDuration(late))
		}
	}

	start, elapsed := e.runLoad(ctx)
	if e.scr != nil {
		e.scrapeAfter(ctx, ctx.Err() != nil)
	}
	r := e.report(start, elapsed)
	// Interrupted during the load, or while waiting for the router to
	// drain: either way the user asked to stop.
	if ctx.Err() != nil {
		r.Interrupted = true
		return r, context.Cause(ctx)
	}
	if r.Requests > 0 && r.Count(report.TransportError)+r.Count(report.ClientTimeout) == r.Requests {
		na := &NoAnswerError{Target: o.Target, Requests: r.Requests, Reason: r.TopDetail(report.TransportError)}
		if r.Count(report.ClientTimeout) >= r.Count(report.TransportError) {
			na.Timeout = e.timeout
		}
		return r, na
	}
	return r, nil
}

func waitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// engine is one run's machinery.
type engine struct {
	o *Options
	// sender sends every request, whichever client it is.
	sender transport.Sender
	// reqs are prepared requests, a slot per actor (see request).
	reqs [requestCacheSlots]atomic.Pointer[preparedRequest]
	// transport names the sender's client, for the report.
	transport string
	// conns is how many connections the run may hold at once.
	conns    int
	shape    Shape
	predial  *transport.Predialer
	predialN int
	timeout  time.Duration
	picker   *picker
	actors   actorSet
	target   *url.URL
	urlT     template
	hostT    template
	// headerT are the -H values, parsed once and expanded per actor.
	headerT []headerTemplate
	addr    string
	// ctxs are the run's request parents, one per shard.
	ctxs []context.Context
	rec  *recorder
	scr  *scraper
	// waits measures capacity refusals' flights against the budget.
	waits *waitTracker

	sent     atomic.Int64
	resends  atomic.Int64
	inflight atomic.Int64
	// stepPeak is the highest in-flight count since the sampler last read
	// it for the plot's steps (report.TimelineStep).
	stepPeak atomic.Int64
	// secPeak is the highest in-flight count since the sampler last read it.
	secPeak atomic.Int64
	counts  [report.NumOutcomes]atomic.Int64

	// bufs are the answers' body prefixes; records are the requests'
	// records (sentRequest), each back in the pool once its request is
	// recorded: two heap objects fewer a request than a record and a
	// closure each.
	bufs    sync.Pool
	records sync.Pool

	// The sampler's findings.
	mu             sync.Mutex
	inflightSeries []inflightPoint
	activeSeries   map[int]float64
	activeAt       map[int]time.Duration // when each of activeSeries' samples was read, from the start
	// stepPeaks is the most requests in flight within each
	// report.TimelineStep of the run, for the plot.
	stepPeaks []int64
	// activeReads is every parking_active read during the run, at the
	// time it was read, for the plot (the series keeps a second's highest).
	activeReads   []report.Point
	activePeak    *float64
	scrapes       int
	scrapeErrors  int
	lastScrapeErr string
	metricsBefore *report.RouterMetrics
	metricsAfter  *report.RouterMetrics
	statuszBefore *report.StatuszParking
	statuszAfter  *report.StatuszParking
	noParkingCard bool
	openFiles     uint64
	lateWarned    atomic.Bool // the behind-schedule notice was given
}

func newEngine(o *Options) (*engine, error) {
	e := &engine{o: o, timeout: o.EffectiveTimeout(), activeSeries: map[int]float64{}}
	e.picker = newPicker(actorSet{named: o.Actors, generated: o.ActorCount}.Len(), o.Distribution, o.Seed)
	e.bufs.New = func() any { b := make([]byte, bodyPrefix); return &b }
	e.records.New = func() any { return &sentRequest{bufs: &e.bufs} }

	target, err := url.Parse(o.Target)
	if err != nil && o.URLTemplate == "" {
		return nil, optionErrorf("invalid {Target} %q", o.Target)
	}
	var hostT, urlT template
	if o.URLTemplate != "" {
		urlT, _ = parseTemplateIn("{URLTemplate}", o.URLTemplate, false)
	} else if o.HostTemplate != "" {
		hostT, _ = parseTemplateIn("{HostTemplate}", o.HostTemplate, false)
	}
	e.headerT = parseHeaderTemplates(o.Header)
	// One prepared request per actor would hold every actor's request in
	// memory; requests are rendered on demand instead, from the actor's
	// name (named actors first, then GeneratedActors), and checked here
	// on the first and last actor.
	e.actors = actorSet{named: o.Actors, generated: o.ActorCount}
	e.target, e.urlT, e.hostT = target, urlT, hostT
	addrs := map[string]bool{}
	scheme := ""
	for _, idx := range []int{0, e.actors.Len() - 1} {
		req, err := e.newRequest(idx)
		if err != nil {
			return nil, err
		}
		addrs[dialAddr(req.URL)] = true
		scheme = req.URL.Scheme
	}
	if len(addrs) == 1 && !actorInURLHost(o.URLTemplate) {
		for a := range addrs {
			e.addr = a
		}
	}

	conns, likely := e.connections()
	// The library sets no process limit; it says when the one it has is
	// too low for what the run is likely to hold (plus the process's own
	// files and scrapes).
	if soft, hard, ok := openFileLimit(); ok {
		e.openFiles = soft
		if need := uint64(likely) + 64; soft < need {
			e.warn("the open-file limit is %d (hard limit %d) but this run may hold %d connections at once; "+
				"expect \"too many open files\" transport errors, or raise it first (ulimit -n %d)", soft, hard, likely, need)
		}
	}

	if e.transport, err = transport.Choose(o.Transport, scheme, e.addr); err != nil {
		return nil, optionErrorf("{Transport} %s: %s", o.Transport, err)
	}
	if o.Mode != Closed && e.addr != "" && o.RoundTripper == nil {
		e.predial = transport.NewPredialer(e.addr, dialOf(o))
		// A burst opens a connection per request. An open run opens what
		// it likely holds at once, up to openPredialMax: without them
		// its first second dials a connection per request and sends late.
		e.predialN = o.Requests
		if o.Mode == Open {
			e.predialN = min(likely, openPredialMax)
		}
	}
	e.conns = conns
	if err := e.openSender(); err != nil {
		return nil, err
	}

	index := shardIndex(e.picker, o)
	switch o.Mode {
	case Burst:
		e.shape = burstShape{requests: o.Requests, index: index}
	case Closed:
		e.shape = closedShape{workers: o.Concurrency, duration: o.Duration, index: index}
	case Open:
		e.shape = openShape{pacer: o.pacer(), index: index, shard: o.Shard, precise: o.RoundTripper == nil && o.Dial == nil, elapsed: o.paceClock}
	}
	// Recorder shards spread the answers' writers: four per CPU the
	// machine has (more than the run's Ps when --procs lowers them, which
	// costs a few idle shards and nothing else).
	shards := runtime.NumCPU() * 4
	if o.Mode == Closed && o.Concurrency < shards {
		shards = o.Concurrency
	}
	// Burst and open latencies count from the release or the schedule; the
	// budget check also needs the time from the actual send.
	e.rec = newRecorder(shards, o.measuresFromWrite(), o.KeepSamples, o.Seed)
	e.waits = newWaitTracker(e.rec.shards)
	if o.MetricsURL != "" || o.StatuszURL != "" {
		e.scr = newScraper(o.MetricsURL, o.StatuszURL, o.ScrapeTransport, o.Dial)
	}
	return e, nil
}

// connections estimates the connections the run may hold at once: most is
// the worst case, likely what the router's documented behaviour implies. A
// parked request holds its connection for the whole park, so an open run at
// R req/s holds about R × (budget + slack), and at worst R × timeout.
func (e *engine) connections() (most, likely int) {
	switch e.o.Mode {
	case Burst:
		return e.o.Requests, e.o.Requests
	case Closed:
		return e.o.Concurrency, e.o.Concurrency
	}
	// A shard sends every Count-th request of the schedule.
	p := e.o.pacer().PerShard(e.o.Shard.Count)
	total := p.Within(e.o.Duration)
	worst := p.Within(e.timeout)
	parked := p.Within(e.o.Checks.Budget + e.o.Checks.Slack)
	return int(min(worst, total, 1<<20)), int(min(parked, worst, total, 1<<20))
}

// errRelativeNeedsTarget: a relative URL template is joined to the
// target, which must be given.
var errRelativeNeedsTarget = fielderr.Errorf("a relative {URLTemplate} needs {Target}")

func renderURL(target *url.URL, s string) (*url.URL, error) {
	ref, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if ref.IsAbs() {
		if !httpurl.IsHTTP(ref) {
			return nil, errors.New("want http:// or https://")
		}
		return ref, nil
	}
	if target == nil || target.Host == "" {
		return nil, errRelativeNeedsTarget
	}
	return target.ResolveReference(ref), nil
}

func dialAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// openSender builds the sender with the run's per-request timeout.
func (e *engine) openSender() error {
	s, err := transport.New(transport.Config{
		Kind: e.transport, Addr: e.addr, Timeout: e.timeout, Conns: e.conns,
		Predial: e.predial, RoundTripper: e.o.RoundTripper, Dial: e.o.Dial,
		WriteTimes: e.o.measuresFromWrite(),
	})
	if err != nil {
		return optionErrorf("{Transport} %s: %s", e.o.Transport, err)
	}
	e.sender = s
	return nil
}

// retime gives the sender a new per-request timeout, before any load:
// the default timeout follows the park budget, which statusz may tell
// only once scraped. The sender takes its timeout when built, so it is
// built again: a sender kept from before cut requests at the assumed
// budget's 15s when statusz said 30s, and reported them as client_timeout
// of a 40s --timeout.
func (e *engine) retime(d time.Duration) error {
	if d == e.timeout {
		return nil
	}
	e.timeout = d
	e.sender.Close()
	return e.openSender()
}

func (e *engine) close() {
	e.sender.CloseIdle()
	if e.predial != nil {
		e.predial.Drain()
	}
	if e.scr != nil && e.o.ScrapeTransport == nil {
		if t, ok := e.scr.client.Transport.(*http.Transport); ok {
			t.CloseIdleConnections()
		}
	}
}

// warn gives the user a diagnostic; format names options as {Field}
// placeholders, and only format: a value in a (the server's text, a URL)
// is never read as one.
func (e *engine) warn(format string, a ...any) {
	if e.o.Warn != nil {
		e.o.Warn(fielderr.Errorf(format, a...))
	}
}

// preflight checks that the target accepts connections before any load is
// sent, so a wrong address is one clear error rather than a report full of
// transport errors.
func (e *engine) preflight(ctx context.Context) error {
	if e.o.RoundTripper != nil {
		// The caller's round tripper dials (or not) as it likes.
		return nil
	}
	addr := e.addr
	if addr == "" {
		req, err := e.newRequest(0)
		if err != nil {
			return err
		}
		addr = dialAddr(req.URL)
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	c, err := dialOf(e.o)(dctx, "tcp", addr)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		scheme := "http"
		if req, rerr := e.newRequest(0); rerr == nil {
			scheme = req.URL.Scheme
		}
		return &TargetError{Target: scheme + "://" + addr, Err: err}
	}
	return c.Close()
}

// runLoad sends the load and waits for every request sent to end, or,
// once parent is done, at most drainGrace more (see awaitInFlight). It
// returns when the load started and how long it ran.
func (e *engine) runLoad(parent context.Context) (time.Time, time.Duration) {
	// Requests derive their contexts from one of several intermediate
	// contexts, not all from parent: registering and removing thousands of
	// children under one parent's lock would serialise the workers.
	e.ctxs = make([]context.Context, len(e.rec.shards))
	for i := range e.ctxs {
		c, cancel := context.WithCancel(parent)
		defer cancel()
		e.ctxs[i] = c
	}
	// An interrupted run closes the sender, which ends every request in
	// flight at once (the wire sender has no per-request contexts).
	stop := context.AfterFunc(parent, e.sender.Close)
	defer stop()
	ctx := parent
	var wg sync.WaitGroup
	start := time.Now()
	sampDone := make(chan struct{})
	sampStopped := make(chan struct{})
	start = e.shape.Drive(ctx, &wg, start, func(s time.Time) { go e.sample(ctx, s, sampDone, sampStopped) }, e.send)
	e.awaitInFlight(parent, &wg)
	elapsed := time.Since(start)
	close(sampDone)
	<-sampStopped
	return start, elapsed
}

// awaitInFlight waits until every request wg counts has ended. Once ctx
// is done it waits drainGrace more at most, then finalises the run
// (abandonInFlight): what is still in flight counts as cancelled and later
// answers are dropped. Waiting for all of them took an overloaded open run
// (--rate 100000 --duration 3s on 2 cores, tens of thousands in flight)
// 1.3-2.5 s after Ctrl-C, each goroutine waking to record its cancelled
// request, where the user expects an interrupted run to end within about
// a second; and a Sender that does not return after Close would have hung
// it for ever.
func (e *engine) awaitInFlight(ctx context.Context, wg *sync.WaitGroup) {
	ended := make(chan struct{})
	go func() {
		wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return
	case <-ctx.Done():
	}
	grace := time.NewTimer(drainGrace)
	defer grace.Stop()
	select {
	case <-ended:
	case <-grace.C:
		e.abandonInFlight()
	}
}

// drainGrace is how long an interrupted run waits for its requests in
// flight to end (the sender was closed, so most end at once) before it
// counts the rest as cancelled: short enough that Ctrl-C ends the command
// within about a second, with its partial report.
const drainGrace = 250 * time.Millisecond

// openPredialMax bounds the connections an open run opens before its
// schedule starts.
const openPredialMax = 512

// predialLead is how long before --start-at a burst or open run opens its
// connections.
const predialLead = 2 * time.Second

// bodyPrefix is how much of an answer's body is kept for classification.
const bodyPrefix = 512

// send sends request i to actor idx, due at start+due, and records its
// outcome in shard key%shards. Every request that reaches here is counted
// once as sent and recorded once, however often the sender resent it.
func (e *engine) send(key, i uint64, idx int, start time.Time, due time.Duration) {
	shard := key % uint64(len(e.ctxs))
	r := e.records.Get().(*sentRequest)
	r.reset(shard, idx, start, due)
	req, err := e.request(idx)
	if !e.noteSend(r) {
		// The run was finalised after an interrupt: this request is not
		// sent, nor counted.
		return
	}
	var a Answer
	if err != nil {
		// What net/http refuses to send (an invalid Host): a transport
		// error of this request, as net/http's RoundTrip reports it.
		a.Err = err
	} else {
		var at time.Time
		// The send time noteSend took is the sender's too: its timeout
		// runs from it, with no clock read of its own.
		a, at = e.sender.Send(e.ctxs[shard], req, r.start.Add(r.sentAt), r)
		r.noteWrote(at)
	}
	if e.finishSend(r, a) {
		// Recorded and unlinked from its shard's requests in flight, r is
		// nobody's now: no list reaches it, and the sender called its
		// PrefixBuf within Send. A request abandonInFlight recorded stays
		// linked from its neighbours and is left to the collector.
		e.records.Put(r)
	}
}

// sentRequest is one request from noteSend, which counts it as sent, to
// finishSend, which records its answer.
type sentRequest struct {
	shard  uint64
	idx    int
	start  time.Time
	due    time.Duration
	sentAt time.Duration
	// wrote is when the request was written whole, from start (0 while
	// unknown). The budget check measures from it, which under a heavy
	// burst can be well after the send began. net/http reports it from
	// its own goroutine.
	wrote atomic.Int64
	// prefix is the pooled buffer the answer's body went into, if any.
	prefix *[]byte
	// prev and next link the request into its shard's requests in flight
	// (shard.flying), under the shard's lock.
	prev, next *sentRequest
	// bufs is the engine's pool of body prefixes (PrefixBuf), set when
	// the record is made in the engine's pool of records.
	bufs *sync.Pool
}

// reset makes r, from the engine's pool, the record of a new request.
func (r *sentRequest) reset(shard uint64, idx int, start time.Time, due time.Duration) {
	r.shard, r.idx, r.start, r.due = shard, idx, start, due
	r.sentAt = 0
	r.wrote.Store(0)
	r.prefix = nil
	r.prev, r.next = nil, nil
}

// noteWrote records at (zero: not written whole) as when r was written.
func (r *sentRequest) noteWrote(at time.Time) {
	if !at.IsZero() {
		r.wrote.Store(int64(at.Sub(r.start)))
	}
}

// PrefixBuf hands a sender r's buffer for the answer's body prefix. The
// buffer is taken only once an answer is in, so parked requests do not
// hold one each.
func (r *sentRequest) PrefixBuf() []byte {
	r.prefix = r.bufs.Get().(*[]byte)
	return *r.prefix
}

// noteSend counts r as sent and in flight, and records when it left and
// how late that was against its due time. It reports false, counting
// nothing, when r's shard was closed (the run was finalised): r must not
// be sent.
func (e *engine) noteSend(r *sentRequest) bool {
	s := e.rec.shards[r.shard]
	late := time.Duration(0)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	// Counted and listed under the shard's lock, which abandonInFlight
	// takes to close the shard: a request is either counted as sent and
	// recorded exactly once, or neither.
	if e.o.sentWhenDue() {
		// The due time's clock read is the send time: a second read
		// microseconds later would tell nothing.
		r.sentAt = r.due
	} else {
		r.sentAt = time.Since(r.start)
	}
	e.sent.Add(1)
	s.link(r)
	if e.o.Mode == Open {
		late = r.sentAt - r.due
		s.noteLate(late, r.sentAt)
	}
	s.mu.Unlock()
	e.notePeak(e.inflight.Add(1))
	if e.o.Mode == Open {
		// Said while the run goes on, once: an overloaded open run ran
		// 12.8s of a 3s schedule with no word that the rate was out of
		// reach.
		if late > LateSendNotice && e.lateWarned.CompareAndSwap(false, true) {
			e.warn("open run behind its schedule: a request went out %s late, %s into the run; %s req/s may be more than this machine can send (the report's send lateness says how far)",
				late.Round(time.Millisecond), r.sentAt.Round(100*time.Millisecond), strconv.FormatFloat(e.o.Rate, 'f', -1, 64))
		}
	}
	return true
}

// LateSendNotice is how late an open run's send may be before the run
// says, while it runs, that the rate is out of reach.
const LateSendNotice = 500 * time.Millisecond

// finishSend classifies r's answer a and records it in r's shard.
func (e *engine) finishSend(r *sentRequest, a Answer) bool {
	ctx := e.ctxs[r.shard]
	// The sender's clock read at the answer's end, when it made one: one
	// read a request, the latency's.
	doneAt := a.Done.Sub(r.start)
	if a.Done.IsZero() {
		doneAt = time.Since(r.start)
	}
	e.inflight.Add(-1)
	rd := Read(a)
	// Only a refusal's flight is looked for (waitTracker); any other
	// answer's wait is its own.
	waited := doneAt - r.sentAt
	if rd.Capacity {
		waited = e.waits.refused(r, doneAt, AtOnceBound(e.o.Checks.Budget))
	}
	o := rd.Judge(waited, e.o.Checks.Budget)
	res := result{outcome: o, due: r.due, sentAt: r.sentAt, doneAt: doneAt, detail: answerDetail(o, a, rd), actor: r.idx}
	if wrote := time.Duration(r.wrote.Load()); wrote > 0 && e.rec.trackService {
		res.sentAt = wrote
	}
	if o == report.TransportError && ctx.Err() != nil {
		// The run was interrupted: whatever the transport says, the probe
		// itself cancelled this request.
		res.detail = canceledDetail
	}
	if r.prefix != nil {
		e.bufs.Put(r.prefix)
	}
	// False after abandonInFlight: r was counted then, and is not again.
	return e.recordResult(r, res, a.Resends)
}

// request is actor idx's prepared request, from the engine's cache when it
// was prepared before. An error is what net/http would refuse to send (an
// invalid Host, say).
func (e *engine) request(idx int) (*transport.Request, error) {
	slot := &e.reqs[idx%len(e.reqs)]
	if c := slot.Load(); c != nil && c.actor == idx {
		return c.req, nil
	}
	r, err := transport.Prepare(e.mustRequest(idx), e.o.Body)
	if err != nil {
		return nil, err
	}
	slot.Store(&preparedRequest{actor: idx, req: r})
	return r, nil
}

// preparedRequest is one actor's prepared request. The engine keeps a
// fixed table of them, a slot per actor modulo its size: bounded memory
// however many actors a run has, no lock, and a hit for every request of a
// run with fewer actors than slots. The body is the run's one copy,
// shared by every request.
type preparedRequest struct {
	actor int
	req   *transport.Request
}

const requestCacheSlots = 4096

// newRequest renders actor idx's request.
func (e *engine) newRequest(idx int) (*http.Request, error) {
	o := e.o
	a := e.actors.Name(idx)
	u := e.target
	host := ""
	var err error
	if o.URLTemplate != "" {
		u, err = renderURL(e.target, e.urlT.render(url.PathEscape(a), url.PathEscape(o.Atespace)))
		if errors.Is(err, errRelativeNeedsTarget) {
			return nil, err
		} else if err != nil {
			return nil, optionErrorf("invalid {URLTemplate} %q for actor %q: %v", o.URLTemplate, a, err)
		}
	} else {
		host = e.hostT.render(a, o.Atespace)
	}
	req, err := http.NewRequest(o.Method, u.String(), nil)
	if err != nil {
		return nil, optionErrorf("invalid request for actor %q: %v", a, err)
	}
	if host != "" {
		req.Host = host
	}
	for _, h := range e.headerT {
		v := h.value.s
		if !h.value.literal {
			v = h.value.render(a, o.Atespace)
		}
		req.Header.Add(h.key, v)
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
		req.Header.Del("Host")
	}
	// newEngine renders the first and last actor's request before any
	// load: a Host that is not one ("{actor} evil.com") is refused there,
	// instead of every request going out with an empty Host. net/http's
	// own check, httpguts, is the rule.
	if req.Host != "" && !httpguts.ValidHostHeader(req.Host) {
		if o.Header.Get("Host") != "" {
			return nil, optionErrorf("invalid Host header %q for actor %q: not a valid Host", req.Host, a)
		}
		return nil, optionErrorf("invalid {HostTemplate} %q for actor %q: %q is not a valid Host", o.HostTemplate, a, req.Host)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "shakectl-parking-probe")
	}
	return req, nil
}

// headerTemplate is one -H value, parsed.
type headerTemplate struct {
	key   string
	value parsedValue
}

// parsedValue is a header value and its template.
type parsedValue struct {
	s string
	template
}

// parseHeaderTemplates parses every header value (validate checked them),
// in a fixed order.
func parseHeaderTemplates(h http.Header) []headerTemplate {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []headerTemplate
	for _, k := range keys {
		for _, v := range h[k] {
			t, _ := parseHeaderTemplate("{Header} "+k, v)
			out = append(out, headerTemplate{key: k, value: parsedValue{s: v, template: t}})
		}
	}
	return out
}

// mustRequest renders a request newEngine already rendered for another
// actor; only the actor's name differs, and names were validated.
func (e *engine) mustRequest(idx int) *http.Request {
	req, err := e.newRequest(idx)
	if err != nil {
		// Unreachable: names are validated and rendering differs only in
		// them; an unroutable request fails in transport, never silently
		// at another actor.
		req, _ = http.NewRequest(e.o.Method, "http://invalid.invalid/", nil)
	}
	return req
}

// actorInURLHost reports whether a --url-template puts the actor in the
// host, so requests dial more than one address.
func actorInURLHost(t string) bool {
	_, rest, ok := strings.Cut(t, "://")
	if !ok {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	return strings.Contains(host, "{")
}

// dialOf is how a run opens its connections to the target: o.Dial, else
// TCP.
func dialOf(o *Options) transport.DialFunc {
	if o.Dial != nil {
		return o.Dial
	}
	return transport.TCPDial
}
