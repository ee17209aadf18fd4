package probe

import (
	"errors"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/httpurl"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/probe/transport"
)

// Mode is the load shape.
type Mode string

const (
	// Burst releases Requests requests together, behind a barrier.
	Burst Mode = report.ModeBurst
	// Closed runs Concurrency workers back to back for Duration.
	Closed Mode = report.ModeClosed
	// Open sends Rate requests a second on a fixed schedule for Duration.
	Open Mode = report.ModeOpen
)

// AddressingForm is a named way of putting the actor in a request: as one
// generation of Substrate dataplane reads it, in the Host, in headers, or
// both.
type AddressingForm struct {
	Name string
	// Host is the Host template, "" when the form sends the target's own.
	Host string
	// Headers are the header templates the form sends, name then value.
	Headers [][2]string
	// Dataplanes says which dataplanes read the actor so.
	Dataplanes string
}

// TargetActorHeader is the header the newest dataplanes read the actor
// from, as <atespace>/<actor>: the router after substrate #1333 and
// agentgateway after #3409 (router-dataplanes.md §0, §3.6).
const TargetActorHeader = "ate-target-actor"

// AddressingForms are the named forms, oldest dataplane first. Their
// templates are expanded per request as any other ({actor},
// {atespace}).
var AddressingForms = []AddressingForm{
	{Name: "pr221", Host: PR221HostTemplate,
		Dataplanes: "the router of PR #221, which predates the atespace"},
	{Name: "atespace", Host: DefaultHostTemplate,
		Dataplanes: "the router from 6210ad86 (2026-08) until substrate #1333, agentgateway until #3409 (5f96588b7), and sim router's seed, main and main-2026-08 models"},
	{Name: "x-ate-headers", Headers: [][2]string{{"x-ate-actor-name", "{actor}"}, {"x-ate-atespace", "{atespace}"}},
		Dataplanes: "the router's interim header form (ingress/ingress.go at 0847a350)"},
	{Name: TargetActorHeader, Headers: [][2]string{{TargetActorHeader, "{atespace}/{actor}"}},
		Dataplanes: "the router after substrate #1333 and agentgateway after #3409 (sim router's after-1229 and agentgateway models)"},
}

// addressingForm returns the form named name.
func addressingForm(name string) (AddressingForm, bool) {
	for _, f := range AddressingForms {
		if f.Name == name {
			return f, true
		}
	}
	return AddressingForm{}, false
}

// AddressingFormNames lists the forms' names, "a, b or c".
func AddressingFormNames() string {
	names := make([]string, len(AddressingForms))
	for i, f := range AddressingForms {
		names[i] = f.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// HostForms are the Host forms --host-template knows by name: the
// addressing forms that have a Host.
var HostForms = func() map[string]string {
	m := map[string]string{}
	for _, f := range AddressingForms {
		if f.Host != "" {
			m[f.Name] = f.Host
		}
	}
	return m
}()

// Defaults of the options the command exposes.
const (
	// DefaultHostTemplate is today's router's Host form (upstream main
	// 6210ad86 and later): the actor, then its atespace.
	DefaultHostTemplate = "{actor}.{atespace}.actors.resources.substrate.ate.dev"
	// PR221HostTemplate is PR #221's Host form, which predates the
	// atespace; 6210ad86 answers it with 404 `invalid host … expected
	// <actor_name>.<atespace>.actors…`.
	PR221HostTemplate = "{actor}.actors.resources.substrate.ate.dev"
	DefaultAtespace   = "default"
	// MaxActors bounds the actors of a run. Generated names are rendered
	// on demand; zipf holds a table of MaxZipfActors at most.
	MaxActors     = 1_000_000_000
	MaxZipfActors = 1_000_000
	// MaxBurst bounds a burst: each request is a goroutine and a
	// connection, so more is for several machines (see merge).
	MaxBurst = 1_000_000
	// MaxConcurrency bounds closed-mode workers and MaxRate open mode.
	MaxConcurrency = 1_000_000
	MaxRate        = 1_000_000
	// timeoutOverBudget is how much longer than the park budget a request
	// may take by default before the probe gives up on it.
	timeoutOverBudget = 10 * time.Second
)

// Options configure one probe run.
type Options struct {
	// Target is the router's base URL; requests go to it with the actor in
	// the Host header, unless URLTemplate places the actor in the URL.
	Target string
	Mode   Mode
	// Requests is the burst size.
	Requests int
	// Concurrency is the number of closed-mode workers.
	Concurrency int
	// Rate is the open-mode schedule in requests a second.
	Rate float64
	// Duration bounds closed and open runs.
	Duration time.Duration

	// Actors are named actors, and ActorCount more are generated
	// (actor-0001 …) on demand; Distribution and Seed choose among them.
	Actors       []string
	ActorCount   int
	Distribution Distribution
	Seed         uint64

	Atespace string
	// Addressing names one of AddressingForms, which sets HostTemplate
	// and adds its headers; it excludes HostTemplate and URLTemplate.
	Addressing string
	// HostTemplate renders the Host header ({actor}, {atespace}); used when
	// URLTemplate is empty. Empty, and no header carries {actor}, it is
	// DefaultHostTemplate.
	HostTemplate string
	// URLTemplate renders the request URL: a full URL, or a path joined to
	// Target.
	URLTemplate string
	Method      string
	// Header is sent with every request; its values are templates too,
	// expanded per request ({actor}, {atespace}; other braces are sent as
	// they are). The actor must be in the Host, the URL or a header.
	Header http.Header
	Body   []byte

	// Timeout is the per-request timeout; 0 means Budget + 10s.
	Timeout time.Duration
	// StartAt delays the load until then (zero: start at once), so probes
	// on several machines can fire together.
	StartAt time.Time

	// MetricsURL and StatuszURL are the router's Prometheus and status
	// endpoints, scraped before, during and after the run ("" to skip).
	MetricsURL string
	StatuszURL string

	Checks report.CheckConfig

	// KeepSamples keeps up to this many per-request samples for a plot.
	KeepSamples int
	// Progress, when set, is called about four times a second during the
	// run, from one goroutine.
	Progress func(Progress)
	// Warn receives diagnostics for the user (e.g. an open-file limit that
	// is too low); nil discards them. A warning names the options it is
	// about as OptionError does: Error writes their field paths, Render
	// the caller's names for them (parking-probe's flags).
	Warn func(*Warning)
	// Transport picks the HTTP client that sends the load: "wire" (the
	// probe's own connections, read and written with net/http's codec;
	// plain http:// to one address) or "net/http". "" is wire where it
	// can send, else net/http (https://, or a URL template with the actor
	// in the host). The report's "transport" says which ran.
	Transport string
	// RoundTripper, when set, carries the load through the net/http
	// sender instead of its own tuned transport, and ScrapeTransport the
	// scrapes (tests run the probe over in-memory connections).
	RoundTripper    http.RoundTripper
	ScrapeTransport http.RoundTripper
	// Dial, when set, opens every connection to the target (either
	// sender's, the pre-dialled ones and the preflight's), and the
	// scrapes' when ScrapeTransport is nil, instead of a TCP dialer, and
	// open mode waits on the runtime's timers rather than a kernel one:
	// tests run the probe, the wire sender included, over in-memory
	// connections on a synctest bubble's clock.
	Dial transport.DialFunc

	// Shard makes this run one of Shard.Count processes that together
	// send the load the other options describe: burst
	// --requests and closed --concurrency are split, open mode sends every
	// Count-th request of the one schedule, and actors are partitioned (see
	// shardIndex). The zero value is the whole run.
	Shard Shard

	// budgetFromStatusz: no budget was given and statusz may tell it.
	budgetFromStatusz bool
	// runID is RunID of the command line, before the load is cut into
	// this shard's part.
	runID string
	// burstFirst is the unsharded number of this shard's first burst
	// request: the lower shards send the ones before it.
	burstFirst uint64
	// paceClock, when set (tests), is the open pacer's clock (openShape's
	// elapsed): a test makes the sender fall behind its schedule with it,
	// deterministically.
	paceClock func(start time.Time) time.Duration
}

// OptionError is an invalid option: the caller's mistake, not the target's.
//
// Its message names the options it is about as {Field} placeholders, the
// Options field paths ({Requests}, {Checks.Budget}, {Shard.Count}), never as
// command-line flags: the probe is a library, and which flag or setting
// fills a field is its caller's business. Error spells the placeholders as
// field names; cmd renders them with its flag names (Render).
type OptionError = fielderr.Error

// Warning is a diagnostic for the user, naming options as OptionError does.
type Warning = fielderr.Error

func optionErrorf(format string, a ...any) error {
	return fielderr.Errorf(format, a...)
}

// EffectiveTimeout is the per-request timeout the run uses.
func (o *Options) EffectiveTimeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	b := o.Checks.Budget
	if b == 0 {
		b = report.DefaultBudget
	}
	return b + timeoutOverBudget
}

// sentWhenDue says a request goes out the moment it is due: a closed
// run's worker sends as it reads the clock for the due time, so that
// reading is the send time. An open or burst run's sends may wait behind
// each other.
func (o *Options) sentWhenDue() bool { return o.Mode == Closed }

// measuresFromWrite says whether the run measures service times from
// when each request was written whole, which costs a clock read a
// request: only where a request is not sent when it is due.
func (o *Options) measuresFromWrite() bool { return !o.sentWhenDue() }

// Validate reports whether Run would accept these options, without
// running: the checks Run makes first, on a copy (Run also fills defaults).
func (o Options) Validate() error { return o.validate() }

// validate fills defaults and refuses what cannot run.
func (o *Options) validate() error {
	for name, d := range map[string]time.Duration{"{Checks.Budget}": o.Checks.Budget, "{Checks.Slack}": o.Checks.Slack, "{Checks.ShedMax}": o.Checks.ShedMax} {
		if d < 0 {
			return optionErrorf(name+" must be positive, got %s", d)
		}
	}
	if o.Checks.Budget == 0 && o.StatuszURL != "" {
		// Run takes the router's own budget from statusz, if it has one,
		// before applying the defaults.
		o.budgetFromStatusz = true
	}
	o.Checks.ApplyDefaults()
	if o.Mode == "" {
		o.Mode = Burst
	}
	if o.Method == "" {
		o.Method = http.MethodGet
	}
	if o.Atespace == "" {
		o.Atespace = DefaultAtespace
	}
	if err := o.resolveAddressing(); err != nil {
		return err
	}
	if o.Distribution.Kind == "" {
		o.Distribution.Kind = "uniform"
	}
	if o.Shard.Count == 0 {
		o.Shard.Count = 1
	}
	if _, err := NewShard(o.Shard.Index, o.Shard.Count); err != nil {
		return err
	}
	switch o.Mode {
	case Burst:
		if o.Requests <= 0 {
			return optionErrorf("{Requests} must be a positive number, got %d", o.Requests)
		}
		// The bound is per process: shards are how a bigger burst is sent.
		if o.Shard.SplitCount(o.Requests) > MaxBurst {
			return optionErrorf("{Requests} %d is more than %d at once; run several probes with {StartAt} and merge them, or split it with {Shard.Count}", o.Requests, MaxBurst)
		}
	case Closed:
		if o.Concurrency <= 0 {
			return optionErrorf("{Concurrency} must be a positive number, got %d", o.Concurrency)
		}
		if o.Concurrency > MaxConcurrency {
			return optionErrorf("{Concurrency} %d is more than %d", o.Concurrency, MaxConcurrency)
		}
		if o.Duration <= 0 {
			return optionErrorf("{Duration} must be positive, got %s", o.Duration)
		}
	case Open:
		if !(o.Rate > 0) || math.IsInf(o.Rate, 0) {
			return optionErrorf("{Rate} must be a positive number of requests a second, got %g", o.Rate)
		}
		if o.Duration <= 0 {
			return optionErrorf("{Duration} must be positive, got %s", o.Duration)
		}
		if o.Rate > MaxRate {
			return optionErrorf("{Rate} %g is more than %d a second", o.Rate, MaxRate)
		}
		if o.pacer().Requests() == 0 {
			return optionErrorf("{Rate} %g for {Duration} %s sends no request; raise one of them", o.Rate, o.Duration)
		}
	default:
		return optionErrorf("unknown mode %q: want burst, closed or open", o.Mode)
	}
	switch o.Transport {
	case "":
		if o.RoundTripper != nil {
			// Only the net/http sender sends through a RoundTripper.
			o.Transport = transport.NetHTTP
		}
	case transport.NetHTTP:
	case transport.Wire:
		if o.RoundTripper != nil {
			return optionErrorf("{Transport} wire sends over its own connections, not through Options.RoundTripper")
		}
	default:
		return optionErrorf("unknown {Transport} %q: want %s or %s", o.Transport, transport.Wire, transport.NetHTTP)
	}
	if o.Timeout < 0 {
		return optionErrorf("{Timeout} must be positive, got %s", o.Timeout)
	}
	if !o.budgetFromStatusz {
		// A budget read from statusz is checked once read (scrapeBefore).
		if err := o.checkTimeoutCoversBudget(); err != nil {
			return err
		}
	}
	if o.ActorCount < 0 {
		return optionErrorf("{ActorCount} must be a positive number, got %d", o.ActorCount)
	}
	if n := len(o.Actors) + o.ActorCount; n == 0 {
		return optionErrorf("no actors: give {ActorCount} N, {Actors} NAME or {ActorsFile} FILE")
	} else if n > MaxActors || o.ActorCount > MaxActors {
		if len(o.Actors) == 0 {
			return optionErrorf("{ActorCount} %d is more than %d", n, MaxActors)
		}
		return optionErrorf("{ActorCount} and {Actors} give %d actors, more than %d", n, MaxActors)
	}
	for _, a := range o.Actors {
		if a == "" || strings.ContainsAny(a, " \t\r\n/") {
			return optionErrorf("invalid actor name %q", a)
		}
	}
	if o.Distribution.Kind == "zipf" && len(o.Actors)+o.ActorCount > MaxZipfActors {
		return optionErrorf("zipf over %d actors is more than %d", len(o.Actors)+o.ActorCount, MaxZipfActors)
	}
	switch o.Distribution.Kind {
	case "uniform", "hot", "zipf":
	default:
		return optionErrorf("unknown distribution %q: want uniform, hot:FRACTION or zipf:S", o.Distribution.Kind)
	}
	if err := checkHTTPURL("{Target}", o.Target, o.URLTemplate == ""); err != nil {
		return err
	}
	if o.MetricsURL != "" {
		if err := checkHTTPURL("{MetricsURL}", o.MetricsURL, true); err != nil {
			return err
		}
	}
	if o.StatuszURL != "" {
		if err := checkHTTPURL("{StatuszURL}", o.StatuszURL, true); err != nil {
			return err
		}
	}
	if err := o.checkTemplates(); err != nil {
		return err
	}
	if !validMethod(o.Method) {
		return optionErrorf("invalid {Method} %q", o.Method)
	}
	return o.cutShard()
}

// checkTimeoutCoversBudget refuses a per-request timeout no longer than a
// known park budget (given, or read from statusz): every parked request
// would end as the probe's own client_timeout, budget_bound would judge
// none, and the run would still pass (--timeout 15s against PR #221's
// 30s). An expectation on client_timeout (client_timeout>0) says
// the user means it, as parking=off does. An assumed budget is not known:
// the run warns instead (Run).
func (o *Options) checkTimeoutCoversBudget() error {
	if o.Timeout <= 0 || o.Timeout > o.Checks.Budget || o.Checks.BudgetSource == report.BudgetDefault || o.shortTimeoutMeant() {
		return nil
	}
	src := "as given"
	if o.Checks.BudgetSource == report.BudgetStatusz {
		src = "the router's statusz max_wait"
	}
	return optionErrorf("{Timeout} %s is not longer than the park budget %s (%s): every parked request would end as the probe's own client_timeout and no budget could be judged; give a {Timeout} above the budget plus slack, or say the short timeout is meant with an expectation on it (client_timeout>0)",
		report.FormatDuration(o.Timeout), report.FormatDuration(o.Checks.Budget), src)
}

// shortTimeoutMeant: an expectation says the user wants client timeouts
// (one on client_timeout's count or latency), or that the router parks
// nothing (parking=off), so no park budget applies.
func (o *Options) shortTimeoutMeant() bool {
	for _, e := range o.Checks.Expect {
		if e.Parking == report.ParkingOffWord || e.Parking == "" && !e.Requests && e.Outcome == report.ClientTimeout {
			return true
		}
	}
	return false
}

// cutShard names the run and then keeps only this shard's part of the
// load, so the report's load is what this process sent and the loads of
// all shards add up to the command line's. Open mode keeps the schedule's
// rate: the shard sends its slots of that one schedule (openShape).
func (o *Options) cutShard() error {
	o.runID = o.RunID()
	s := o.Shard
	if s.Count == 1 {
		return nil
	}
	actors := len(o.Actors) + o.ActorCount
	if o.Distribution.Kind != "uniform" {
		// Skewed shards share the actors (shardIndex): any number will do.
		actors = max(actors, s.Count)
	}
	switch o.Mode {
	case Burst:
		if err := s.SplitLoad("{Requests}", uint64(o.Requests), actors); err != nil {
			return err
		}
		o.burstFirst = uint64(s.firstOf(o.Requests))
		o.Requests = s.SplitCount(o.Requests)
	case Closed:
		if err := s.SplitLoad("{Concurrency}", uint64(o.Concurrency), actors); err != nil {
			return err
		}
		o.Concurrency = s.SplitCount(o.Concurrency)
	case Open:
		if err := s.SplitLoad("{Rate} × {Duration}", o.pacer().Requests(), actors); err != nil {
			return err
		}
	}
	return nil
}

// pacer is the open-mode schedule the options describe: the one place
// the rate meets the duration.
func (o *Options) pacer() Pacer { return NewPacer(o.Rate, o.Duration) }

// checkHTTPURL checks an http(s) URL option, field its placeholder
// ({Target}); an empty one is refused when required.
func checkHTTPURL(field, raw string, required bool) error {
	if raw == "" && !required {
		return nil
	}
	_, err := httpurl.Check(raw, httpurl.Rules{})
	var ue *httpurl.Error
	switch {
	case !errors.As(err, &ue):
		return err
	case ue.Problem == httpurl.Empty:
		return optionErrorf(field + " is required, e.g. " + field + " http://127.0.0.1:8080")
	}
	return optionErrorf("invalid "+field+" %q: %s", ue.URL, ue.Reason())
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, r := range m {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return false
		}
	}
	return true
}

// resolveAddressing puts the named form's Host and headers in the
// options, and the default Host form when nothing else carries the actor.
func (o *Options) resolveAddressing() error {
	if o.Addressing != "" {
		f, ok := addressingForm(o.Addressing)
		if !ok {
			return optionErrorf("unknown {Addressing} %q: want %s", o.Addressing, AddressingFormNames())
		}
		if o.HostTemplate != "" || o.URLTemplate != "" {
			return optionErrorf("{Addressing} %s names where the actor goes: give it, or {HostTemplate} or {URLTemplate}, not both", o.Addressing)
		}
		o.HostTemplate = f.Host
		if len(f.Headers) > 0 {
			h := o.Header.Clone()
			if h == nil {
				h = http.Header{}
			}
			for _, kv := range f.Headers {
				if _, set := h[http.CanonicalHeaderKey(kv[0])]; set {
					return optionErrorf("{Addressing} %s sends the header %s itself; leave it out of {Header}", o.Addressing, kv[0])
				}
				h.Set(kv[0], kv[1])
			}
			o.Header = h
		}
	}
	if t, ok := HostForms[o.HostTemplate]; ok {
		o.HostTemplate = t
	}
	if o.HostTemplate == "" && o.URLTemplate == "" && o.Addressing == "" && !o.headerCarriesActor() {
		o.HostTemplate = DefaultHostTemplate
	}
	return nil
}

// headerCarriesActor reports whether a header value names {actor}.
func (o *Options) headerCarriesActor() bool {
	for _, vs := range o.Header {
		for _, v := range vs {
			if strings.Contains(v, "{actor}") {
				return true
			}
		}
	}
	return false
}

// checkTemplates parses every template and checks the actor goes
// somewhere: the Host, the URL or a header.
func (o *Options) checkTemplates() error {
	carried := o.headerCarriesActor()
	for k, vs := range o.Header {
		for _, v := range vs {
			if _, err := parseHeaderTemplate("{Header} "+k, v); err != nil {
				return err
			}
		}
	}
	if o.URLTemplate != "" {
		t, err := parseTemplateIn("{URLTemplate}", o.URLTemplate, !carried)
		carried = carried || t.hasActor
		if err != nil {
			return err
		}
	} else if o.HostTemplate != "" {
		t, err := parseTemplateIn("{HostTemplate}", o.HostTemplate, !carried)
		carried = carried || t.hasActor
		if err != nil {
			return err
		}
	}
	if !carried {
		return optionErrorf("nothing carries the actor: put {actor} in {HostTemplate}, {URLTemplate} or a {Header} value, or name an {Addressing} form")
	}
	return nil
}

// addressingSummary says how the run addresses the actor, for the report:
// "host <template>", "url <template>", "header <name>: <template>" for
// each header that carries a placeholder (other headers may hold secrets
// and are not named), joined by "; ", then the form's name if one was
// given.
func (o *Options) addressingSummary() string {
	var parts []string
	switch {
	case o.URLTemplate != "":
		parts = append(parts, "url "+o.URLTemplate)
	case o.HostTemplate != "":
		parts = append(parts, "host "+o.HostTemplate)
	}
	var hs []string
	for k, vs := range o.Header {
		for _, v := range vs {
			if strings.Contains(v, "{actor}") || strings.Contains(v, "{atespace}") {
				hs = append(hs, "header "+strings.ToLower(k)+": "+v)
			}
		}
	}
	sort.Strings(hs)
	parts = append(parts, hs...)
	s := strings.Join(parts, "; ")
	if o.Addressing != "" {
		s += " (form " + o.Addressing + ")"
	}
	return s
}

// template is a string with {actor} and {atespace} placeholders.
type template struct {
	parts    []string
	hasActor bool
	// literal says the template has no placeholder: render is the string.
	literal bool
}

// parseTemplate checks a Host or URL template: {actor} is required, and
// no other placeholder is allowed.
func parseTemplate(flag, s string) (template, error) { return parseTemplateIn(flag, s, true) }

// parseTemplateIn checks a Host or URL template; requireActor says
// {actor} must be in it (it need not when a header carries the actor).
func parseTemplateIn(flag, s string, requireActor bool) (template, error) {
	var t template
	hasActor := false
	rest := s
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			if strings.Contains(rest, "}") {
				return t, optionErrorf("invalid "+flag+" %q: unmatched }", s)
			}
			t.parts = append(t.parts, rest)
			break
		}
		if strings.Contains(rest[:i], "}") {
			return t, optionErrorf("invalid "+flag+" %q: unmatched }", s)
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return t, optionErrorf("invalid "+flag+" %q: unmatched {", s)
		}
		name := rest[i+1 : i+j]
		switch name {
		case "actor":
			hasActor = true
		case "atespace":
		default:
			return t, optionErrorf("invalid "+flag+" %q: unknown placeholder {%s} (known: {actor}, {atespace})", s, name)
		}
		t.parts = append(t.parts, rest[:i], "{"+name+"}")
		rest = rest[i+j+1:]
	}
	if !hasActor && requireActor {
		return t, optionErrorf("invalid "+flag+" %q: it must contain {actor}", s)
	}
	t.hasActor = hasActor
	return t, nil
}

// parseHeaderTemplate splits a header value at its {actor} and
// {atespace} placeholders. A brace pair that is not a placeholder's form,
// {lower-case letters}, is sent as it is (a JSON value, say); an unknown
// placeholder is refused, so a typo ({actr}) is not sent literally.
func parseHeaderTemplate(flag, s string) (template, error) {
	var t template
	rest := s
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			t.parts = append(t.parts, rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			t.parts = append(t.parts, rest)
			break
		}
		name := rest[i+1 : i+j]
		switch {
		case name == "actor" || name == "atespace":
			t.hasActor = t.hasActor || name == "actor"
			t.parts = append(t.parts, rest[:i], "{"+name+"}")
		case isPlaceholderName(name):
			return t, optionErrorf("invalid "+flag+" value %q: unknown placeholder {%s} (known: {actor}, {atespace})", s, name)
		default:
			t.parts = append(t.parts, rest[:i+j+1])
		}
		rest = rest[i+j+1:]
	}
	t.literal = len(t.parts) == 1
	return t, nil
}

// isPlaceholderName reports whether s looks like a placeholder's name:
// lower-case letters and '_', as {actor} and {atespace} are.
func isPlaceholderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

func (t template) render(actor, atespace string) string {
	var b strings.Builder
	for _, p := range t.parts {
		switch p {
		case "{actor}":
			b.WriteString(actor)
		case "{atespace}":
			b.WriteString(atespace)
		default:
			b.WriteString(p)
		}
	}
	return b.String()
}
