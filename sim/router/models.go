package router

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/textwrap"
)

// The models: each real Substrate dataplane the simulator can behave like,
// with everything that tells it from the others, in one table. The
// simulator resolves its row once, at Start (Config.traits); nothing else
// asks which model runs. Adding a model is adding a row (and its name to
// Models).

// Model names which real Substrate dataplane the simulator behaves like:
// the atenet router behind Envoy (github.com/agent-substrate/substrate,
// cmd/atenet/internal/router, at the commits named below) or
// agentgateway's own parking.
type Model string

const (
	// ModelSeed is the request-parking design the router is converging on
	// (--parked-request-* flags, budget_exhausted label, fast path for
	// running actors).
	ModelSeed Model = "seed"
	// ModelMain is agent-substrate/substrate main 86e138f6: no parking at
	// all; a full pool is answered at once, no parking metrics, no statusz
	// parking card.
	ModelMain Model = "main"
	// ModelPR221 is PR #221 head 4a8f978b: parking with its Host form
	// <actor>.actors.resources.substrate.ate.dev, outcome="error" for a
	// spent budget, "canceled" for a stream deadline, no fast path, a
	// statusz max_wait written as a Go duration, and parking series that
	// appear only once used.
	ModelPR221 Model = "pr221"
	// ModelMain202608 is agent-substrate/substrate upstream main at
	// 6210ad86 (2026-08-22), as measured on loopback (the captures in
	// sim/router/testdata/atenet-router-6210ad86): the seed's flags and
	// outcome labels; ResourceExhausted and FailedPrecondition, Unavailable
	// and Aborted parked to the budget, then 503 with ateapi's text; bodies
	// naming the actor atespace/id; the lot entered on arrival by every
	// request (running actors too); route-duration labels
	// ate_router_outcome/ate_router_resume/ate_template_*; parking series
	// only once used; statusz with "mode" and duration strings.
	ModelMain202608 Model = "main-2026-08"
	// ModelAfter1229 is the router after substrate #1229 ("take
	// parking-lot slots at the park transition, not at admission") with
	// the header addressing of substrate #1333 and the uncancelled resume
	// of #675, read in the public sources (not run): the actor in
	// `ate-target-actor: <atespace>/<actor>`; a request takes a lot slot
	// only at its flight's first retryable error, so a request resolved on
	// its first attempt never touches the lot and a full lot sheds after
	// one resume attempt; a resume still running at the budget completes,
	// so a request can be served late.
	ModelAfter1229 Model = "after-1229"
	// ModelAgentgateway is agentgateway's own parking
	// (--atenet-dataplane=agentgateway; agentgateway/agentgateway PR #3051
	// and later main), read in the public sources (not run): the actor in
	// `ate-target-actor`, bodies naming it "<name>" quoted without the
	// atespace, a full lot answered 503 `request parking capacity
	// exhausted` at once, a spent budget 504 `request timed out`, a
	// ResourceExhausted it does not park 429 `rate limited`, one permit
	// per lookup that misses its actor cache, Prometheus metrics of its
	// own (agentgateway_substrate_request_parking_active, a gauge) and no
	// statusz.
	ModelAgentgateway Model = "agentgateway"
)

// addressing is where a model's router reads the actor from.
type addressing uint8

const (
	// addrHostSim: <actor>.<atespace>.actors.resources.substrate.ate.dev,
	// read by ParseHost (the seed and main, whose error texts the
	// simulator writes itself).
	addrHostSim addressing = iota
	// addrHostPR221: PR #221's <actor>.actors.resources.substrate.ate.dev.
	addrHostPR221
	// addrHost202608: the atespace form with 6210ad86's error texts.
	addrHost202608
	// addrTargetActor: the header ate-target-actor: <atespace>/<actor>
	// (substrate #1333; agentgateway #3409); Host is not read.
	addrTargetActor
)

// TargetActorHeader is the header the newest dataplanes read the actor
// from, as <atespace>/<actor> (substrate #1333, agentgateway #3409).
const TargetActorHeader = "ate-target-actor"

// targetActorKey is its canonical form, for a map lookup.
var targetActorKey = http.CanonicalHeaderKey(TargetActorHeader)

// lotPolicy says which requests take a parking-lot slot, and when.
type lotPolicy uint8

const (
	// lotSuspendedOnArrival: a running actor is served without a slot; a
	// request for any other actor takes one on arrival (the seed).
	lotSuspendedOnArrival lotPolicy = iota
	// lotOnArrival: every request whose actor parses takes a slot on
	// arrival, running actors too (PR #221, 6210ad86).
	lotOnArrival
	// lotAtParkTransition: a request takes a slot only when its flight
	// meets its first retryable error, or on joining a flight already
	// retrying (#1229); a full lot sheds then.
	lotAtParkTransition
	// lotOnCacheMiss: a request whose actor is in the resolved-actor cache
	// takes no permit; every other takes one on arrival (agentgateway).
	lotOnCacheMiss
)

// parkingSwitch is how parking is turned off.
type parkingSwitch uint8

const (
	// parkingOffAtLotZero: --parked-request-max 0.
	parkingOffAtLotZero parkingSwitch = iota
	// parkingNever: the router has no parking.
	parkingNever
	// parkingOffByFlag: PR #221's --parking-enabled=false; a lot of 0
	// keeps parking on and sheds every request.
	parkingOffByFlag
)

// breakerKind is Envoy's ext_proc circuit breaker as a model sets it.
type breakerKind uint8

const (
	// breakerExplicit: --extproc-max-requests, at least 1.
	breakerExplicit breakerKind = iota
	// breakerDerived: 0 derives twice the lot, at least 1024 (6210ad86).
	breakerDerived
	// breakerNone: no Envoy in front (agentgateway).
	breakerNone
)

// statuszForm is what a model's /statusz serves.
type statuszForm uint8

const (
	// statuszSim: the simulator's own JSON (the card, breaker, pool).
	statuszSim statuszForm = iota
	// statuszPR221: the same, unindented, with PR #221's flags.
	statuszPR221
	// statusz202608: 6210ad86's keys in its order.
	statusz202608
	// statuszNone: there is no statusz (agentgateway): 404.
	statuszNone
)

// metricsKind is how a model exports its metrics.
type metricsKind uint8

const (
	// metricsAtenetPR221: OpenTelemetry on meter atenet-router, PR #221's
	// route labels and wait outcomes (a spent budget is "error").
	metricsAtenetPR221 metricsKind = iota
	// metricsAtenetSeed: the same instruments with the seed's wait
	// outcomes and PR #221's route labels.
	metricsAtenetSeed
	// metricsAtenet202608: 6210ad86's route labels
	// (ate_router_outcome, ate_router_resume, ate_template_*).
	metricsAtenet202608
	// metricsAgentgateway: agentgateway's own Prometheus families.
	metricsAgentgateway
)

// modelTraits is one row of the table: everything that tells a model from
// the others.
type modelTraits struct {
	model Model
	// help is the --help paragraph: the real dataplane and what
	// distinguishes it.
	help string

	addressing addressing
	// refInBodies writes the actor as <atespace>/<id> unquoted (6210ad86
	// and later); otherwise "<id>", quoted, without the atespace.
	refInBodies bool
	// lotFull is the body of a lot-full shed.
	lotFull func(ref string) string
	lot     lotPolicy
	parking parkingSwitch
	// parks are the codes a flight retries while parking is on, besides
	// Aborted, which every model retries.
	parks []Code
	// passesDescription: a capacity refusal's 503 carries ateapi's own
	// description (`actor <ref> unavailable: <description>`), Aborted's
	// included (6210ad86 and later).
	passesDescription bool
	// abortedIsResumeError: Aborted until the budget ends is 500 `error
	// resuming actor` (PR #221's mapResumeError has no Aborted case).
	abortedIsResumeError bool
	// budgetEndTimedOut: a spent budget is 504 `request timed out`
	// whatever the last error (agentgateway).
	budgetEndTimedOut bool
	// unparkedExhaustionIs429: a ResourceExhausted the flight does not
	// retry (parking off) is 429 `rate limited` even where other capacity
	// refusals carry ateapi's text (agentgateway; 6210ad86 answers it 503).
	unparkedExhaustionIs429 bool
	// attemptOutlivesBudget: a ResumeActor call still running when the
	// budget ends completes, and its result stands: served late, or its
	// own non-retryable error (#675). Otherwise the call is cut at the
	// budget and a late non-retryable error reads as the spent budget.
	attemptOutlivesBudget bool
	// budgetEvenUnparked: the flight's budget is the park budget whenever
	// it is positive, parking on or off (PR #221's withParking); others
	// retry Aborted within 15s when parking is off.
	budgetEvenUnparked bool
	// noJitter: the retry backoff has no jitter (agentgateway has no
	// knob for it).
	noJitter bool
	// poolFull is ateapi's default code for a full pool in the model's era,
	// and poolFullText its text ("" is "no free workers available"; the
	// ateapi of #1229's time says "no worker has room for the actor",
	// which substrate's e2e at 603c7c34 expects in the 503).
	poolFull     Code
	poolFullText string
	metrics      metricsKind
	// zeroAtStart exports the parking gauge and counter at zero before
	// first use (the seed's simulator always did).
	zeroAtStart bool
	breaker     breakerKind
	statusz     statuszForm
	// queries keeps statusz's query log (6210ad86 and later).
	queries bool
	// drainFlags: the model has --route-timeout and the drain flags, and
	// bounds a graceful stop with its drain timeout.
	drainFlags bool
	// grpcAnswers: a gRPC client's refusal is HTTP 200 with grpc-status
	// and grpc-message (agentgateway).
	grpcAnswers bool
	// failuresAreResumeErrors: the route histogram records every failed
	// resolution as resume_error (agentgateway's resolve_target).
	failuresAreResumeErrors bool
	// defaults puts the model's own defaults into every setting whose
	// flag was not set (changed reports whether one was); nil: the seed's.
	defaults func(c *Config, changed func(flag string) bool)
}

// models is the table, in --help order.
var models = []modelTraits{
	{
		model: ModelSeed,
		help: `the request-parking design (agent-substrate/substrate docs, "Request
parking"): the parked-request flags ({ParkedRequestMax},
{ParkedRequestBudget}, {ParkedRequestRetryInterval}, …), 5s budget, lot 1024, outcome
"budget_exhausted", a fast path for running actors.`,
		addressing: addrHostSim, lotFull: lotFullQuotedID, lot: lotSuspendedOnArrival, parking: parkingOffAtLotZero,
		parks: []Code{FailedPrecondition, Unavailable}, poolFull: FailedPrecondition,
		metrics: metricsAtenetSeed, zeroAtStart: true, breaker: breakerExplicit, statusz: statuszSim,
	},
	{
		model: ModelMain,
		help: `agent-substrate/substrate main (86e138f6): no parking at all. A full
pool is answered at once with 503 "no free workers available"; no parking
metrics; no parking card on /statusz.`,
		addressing: addrHostSim, lotFull: lotFullQuotedID, lot: lotSuspendedOnArrival,
		parking: parkingNever, poolFull: FailedPrecondition,
		metrics: metricsAtenetSeed, statusz: statuszSim,
	},
	{
		model: ModelPR221,
		help: `PR #221 (4a8f978b): parks, but wants the Host
<actor>.actors.resources.substrate.ate.dev (the atespace form is a 404
"invalid host"), records a spent budget as outcome "error" and a request's
own deadline as "canceled", has no fast path (every request takes a lot
slot), writes statusz max_wait as "30s", and exports parking series only
once used. Unless set by flag its defaults are PR #221's: lot 2048, budget
30s, first retry 500ms, and Envoy's default ext_proc breaker of 1024 (below
the lot). A lot of 0 keeps parking on and sheds every request, as PR #221
does; {ParkingDisabled} turns parking off (statusz then shows
enabled:false with the configured lot).`,
		addressing: addrHostPR221, lotFull: lotFullQuotedID, lot: lotOnArrival,
		parking: parkingOffByFlag, parks: []Code{FailedPrecondition}, poolFull: FailedPrecondition,
		abortedIsResumeError: true, budgetEvenUnparked: true,
		metrics: metricsAtenetPR221, statusz: statuszPR221, defaults: ApplyPR221Defaults,
	},
	{
		model: ModelMain202608,
		help: `agent-substrate/substrate upstream main 6210ad86 (2026-08-22), as
measured on loopback: the seed's flags and outcome labels, plus
{RouteTimeout} and the drain flags; a full pool is ResourceExhausted (or
FailedPrecondition, {PoolFullCode}) and, like Unavailable and Aborted,
parked to the budget, then 503 "actor <atespace>/<id> unavailable:
<ateapi's text>" (Unavailable: no text). Bodies name the actor
<atespace>/<id>; only the lot-full body quotes it. Every request enters the
lot on arrival and calls ResumeActor, so a full lot sheds running actors
too. {ExtprocMaxRequests} 0 (its default) is twice the lot, at least
1024. Route-duration labels ate_router_outcome, ate_router_resume and
ate_template_*; parking series only once used; statusz JSON with the real
router's keys ("mode", "flags", "queries", ...) and max_wait "5s".`,
		addressing: addrHost202608, refInBodies: true, lotFull: lotFullQuotedRef, lot: lotOnArrival,
		parks: []Code{ResourceExhausted, FailedPrecondition, Unavailable}, poolFull: ResourceExhausted,
		passesDescription: true, metrics: metricsAtenet202608, breaker: breakerDerived,
		statusz: statusz202608, queries: true, drainFlags: true, defaults: ApplyMain202608Defaults,
	},
	{
		model: ModelAfter1229,
		help: `the router after substrate #1229, with #1333's header addressing and
#675's uncancelled resume (read in the sources, not run): the actor in the
header ate-target-actor: <atespace>/<actor> (a missing or malformed one is
404 invalid "ate-target-actor": expected <atespace>/<actor>); a request
takes a lot slot only at its flight's first retryable error (the park
transition), so a request resolved on its first attempt never touches the
lot, running actors are never shed, and a full lot sheds after one resume
attempt; parking_active, statusz active and the wait histogram count only
requests that parked; a resume still running when the budget ends
completes, so a request can be served late (up to one attempt past the
budget); ateapi's pool-full text is its newer "no worker has room for the
actor". Otherwise as main-2026-08.`,
		addressing: addrTargetActor, refInBodies: true, lotFull: lotFullQuotedRef, lot: lotAtParkTransition,
		parks: []Code{ResourceExhausted, FailedPrecondition, Unavailable}, poolFull: ResourceExhausted, poolFullText: msgNoRoom,
		passesDescription: true, attemptOutlivesBudget: true, metrics: metricsAtenet202608, breaker: breakerDerived,
		statusz: statusz202608, queries: true, drainFlags: true, defaults: ApplyMain202608Defaults,
	},
	{
		model: ModelAgentgateway,
		help: `agentgateway's own parking (atenet's dataplane setting agentgateway;
agentgateway PR #3051 and later main; read in the sources, not run): the
actor in the header ate-target-actor: <atespace>/<actor>; bodies name it
"<id>", quoted, without the atespace; a full lot is 503 "request parking
capacity exhausted" at once, a spent budget 504 "request timed out" (a
resume still running is cut at the budget), ResourceExhausted is parked
(with parking off, {ParkedRequestMax} 0, it is 429 "rate limited" at
once: parking never engages); a request whose actor was resolved within
the last 5s takes no permit, every other takes one (running actors'
lookups too); no retry jitter, no Envoy breaker, no statusz; metrics are
its own Prometheus families, agentgateway_substrate_request_parking_active
(a gauge) and agentgateway_atenet_router_route_duration_seconds; a gRPC
client's refusal is HTTP 200 with grpc-status.`,
		addressing: addrTargetActor, lotFull: lotFullAgentgateway, lot: lotOnCacheMiss,
		parks: []Code{ResourceExhausted, FailedPrecondition, Unavailable}, poolFull: ResourceExhausted, poolFullText: msgNoRoom,
		passesDescription: true, budgetEndTimedOut: true, unparkedExhaustionIs429: true, noJitter: true,
		metrics: metricsAgentgateway, breaker: breakerNone, statusz: statuszNone, grpcAnswers: true, failuresAreResumeErrors: true,
	},
}

// Models lists the valid --model values, in --help order.
var Models = func() []Model {
	out := make([]Model, len(models))
	for i, m := range models {
		out[i] = m.model
	}
	return out
}()

// modelRow is the model's row, and whether there is one.
func modelRow(m Model) (modelTraits, bool) {
	if m == "" {
		m = ModelSeed
	}
	for _, r := range models {
		if r.model == m {
			return r, true
		}
	}
	return modelTraits{}, false
}

// traits is the configured model's row; an unknown model (which Validate
// refuses) reads as the seed.
func (c Config) traits() modelTraits {
	if r, ok := modelRow(c.Model); ok {
		return r
	}
	r, _ := modelRow(ModelSeed)
	return r
}

// ModelHelp describes every model for --help: its name, then what
// distinguishes it, indented under it. The descriptions name settings as
// fielderr {Field} placeholders, written by flag (the command's).
func ModelHelp(flag func(field string) string) string {
	// Every command tree builds this help (sim router's Long): the lines
	// are wrapped first, so that the help is written into one buffer of
	// its size. Wrapping counts bytes, as it always has here.
	wrapped := make([][]string, len(models))
	size := 0
	for i, m := range models {
		wrapped[i] = textwrap.Lines(fielderr.Placeholders(m.help, flag), helpIndent, helpIndent, helpWidth, byteLen)
		size += len("  ") + len(m.model) + len(" (default)\n") + len(wrapped[i])
		for _, l := range wrapped[i] {
			size += len(l)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i, m := range models {
		b.WriteString("  ")
		b.WriteString(string(m.model))
		if m.model == ModelSeed {
			b.WriteString(" (default)")
		}
		b.WriteByte('\n')
		for _, l := range wrapped[i] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func byteLen(s string) int { return len(s) }

// The --help layout of the models.
const (
	helpWidth  = 80
	helpIndent = "         "
)

// ModelNames is the models' names for a flag's help: "seed, main, … or
// agentgateway".
func ModelNames() string {
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = string(m.model)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ApplyModelDefaults puts the configured model's own defaults into every
// setting whose flag was not set (changed reports whether one was).
func ApplyModelDefaults(c *Config, changed func(flag string) bool) {
	if d := c.traits().defaults; d != nil {
		d(c, changed)
	}
}

// AddressExample says how a request names actor-0001 under the model, for
// the banner.
func (c Config) AddressExample() string {
	switch c.traits().addressing {
	case addrHostPR221:
		return "Host: actor-0001.actors.resources.substrate.ate.dev"
	case addrTargetActor:
		return TargetActorHeader + ": " + c.Atespace + "/actor-0001"
	}
	return "Host: actor-0001." + c.Atespace + HostSuffix
}

// HasExtprocBreaker reports whether the model has Envoy's ext_proc
// circuit breaker in front (agentgateway has no Envoy).
func (c Config) HasExtprocBreaker() bool { return c.traits().breaker != breakerNone }

// RetryJitter is the jitter the model's retries use: agentgateway has
// none, whatever --parked-request-retry-jitter says.
func (c Config) RetryJitter() float64 {
	if c.traits().noJitter {
		return 0
	}
	return c.ParkedRequestRetryJitter
}

// HasStatusz reports whether the model serves /statusz.
func (c Config) HasStatusz() bool { return c.traits().statusz != statuszNone }

// Lot-full bodies.
func lotFullQuotedID(ref string) string {
	return quotedActor(ref) + " unavailable: router at capacity"
}
func lotFullQuotedRef(ref string) string {
	return "actor " + strconv.Quote(ref) + " unavailable: router at capacity"
}
func lotFullAgentgateway(ref string) string {
	return quotedActor(ref) + " request parking capacity exhausted"
}

// parksCode reports whether the row retries c while parking is on.
func (m modelTraits) parksCode(c Code) bool {
	for _, p := range m.parks {
		if p == c {
			return true
		}
	}
	return false
}
