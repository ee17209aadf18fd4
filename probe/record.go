package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/shakenfist/shakectl/probe/transport"
)

// maxDetails bounds the distinct detail strings kept per outcome and shard;
// the rest are counted under "other".
const maxDetails = 16

// shard collects results for a subset of the requests. Workers record into
// their own shard, so the lock is rarely contended; shards merge once at the
// end.
type shard struct {
	mu      sync.Mutex
	counts  [report.NumOutcomes]int64
	lat     [report.NumOutcomes]*hdr.Histogram
	svc     [report.NumOutcomes]*hdr.Histogram
	details [report.NumOutcomes]map[string]int64
	// done[s][o] counts answers of outcome o completed in second s; sent[s]
	// counts requests due in second s.
	done [][report.NumOutcomes]int64
	sent []int64

	// Samples are kept for plots, by reservoir sampling once full.
	keep    int
	seen    int64
	samples []report.Sample
	rng     *rand.Rand

	events        []flightEvent
	eventsDropped int64

	// timeline counts every answer per TimelineStep, exactly, for the
	// plots (samples are only a reservoir on long runs). One per shard
	// keeps its lock as uncontended as the shard's.
	timeline *report.Timeline

	// lateness is how late an open run's sends left against their
	// schedule, and lastSend the latest of them, from the start. They are
	// the shard's, under its lock, so only requests the run counted as
	// sent are in them (a send refused by a finalised shard is not).
	lateness *hdr.Histogram
	lastSend time.Duration

	// flying lists the shard's requests counted as sent and not yet
	// recorded, newest first, and oldest is its last: sent in the order
	// of their sentAt, which is read under the lock (waitTracker reads
	// them from the oldest). closed says the run was finalised (see
	// engine.abandonInFlight): what is still flying then was recorded as
	// cancelled, and the shard refuses every later send and answer.
	flying, oldest *sentRequest
	closed         bool
}

// link adds r to the requests in flight; s.mu is held.
func (s *shard) link(r *sentRequest) {
	r.next = s.flying
	if s.flying != nil {
		s.flying.prev = r
	} else {
		s.oldest = r
	}
	s.flying = r
}

// unlink takes r off the requests in flight; s.mu is held.
func (s *shard) unlink(r *sentRequest) {
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		s.flying = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		s.oldest = r.prev
	}
	r.prev, r.next = nil, nil
}

// noteLate records a send late by late, at sentAt from the start; s.mu
// is held.
func (s *shard) noteLate(late, sentAt time.Duration) {
	if s.lateness == nil {
		s.lateness = report.NewHistogram()
	}
	report.RecordDuration(s.lateness, late)
	s.lastSend = max(s.lastSend, sentAt)
}

type result struct {
	outcome report.Outcome
	detail  string
	// due is when the request should have been sent and sentAt when it was,
	// both from the start of the run; doneAt is when the answer completed.
	due, sentAt, doneAt time.Duration
	// actor is the index of the request's actor.
	actor int
}

// maxFlightEvents bounds the per-request records kept (per shard) to find
// per-actor flights; 16 bytes each.
const maxFlightEvents = 1 << 18

// flightEvent is one request as the parked check needs it.
type flightEvent struct {
	actor          uint32
	outcome        report.Outcome
	sentMs, doneMs int32
}

func (s *shard) record(r result, trackService bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(r, trackService)
}

// recordLocked is record with s.mu held.
func (s *shard) recordLocked(r result, trackService bool) {
	o := r.outcome
	s.counts[o]++
	if s.lat[o] == nil {
		s.lat[o] = report.NewHistogram()
	}
	report.RecordDuration(s.lat[o], r.doneAt-r.due)
	if trackService {
		if s.svc[o] == nil {
			s.svc[o] = report.NewHistogram()
		}
		report.RecordDuration(s.svc[o], r.doneAt-r.sentAt)
	}
	if r.detail != "" {
		if s.details[o] == nil {
			s.details[o] = map[string]int64{}
		}
		if _, ok := s.details[o][r.detail]; ok || len(s.details[o]) < maxDetails {
			s.details[o][r.detail]++
		} else {
			s.details[o]["other"]++
		}
	}
	if len(s.events) < maxFlightEvents {
		s.events = append(s.events, flightEvent{actor: uint32(r.actor), outcome: o,
			sentMs: int32(min(r.sentAt/time.Millisecond, math.MaxInt32)), doneMs: int32(min(r.doneAt/time.Millisecond, math.MaxInt32))})
	} else {
		s.eventsDropped++
	}
	doneSec := secondOf(r.doneAt)
	for len(s.done) <= doneSec {
		s.done = append(s.done, [report.NumOutcomes]int64{})
	}
	s.done[doneSec][o]++
	dueSec := secondOf(r.due)
	for len(s.sent) <= dueSec {
		s.sent = append(s.sent, 0)
	}
	s.sent[dueSec]++
	if s.keep > 0 {
		smp := report.Sample{Sent: r.due, Latency: r.doneAt - r.due, Outcome: o}
		s.seen++
		if len(s.samples) < s.keep {
			s.samples = append(s.samples, smp)
		} else if j := s.rng.Int64N(s.seen); j < int64(s.keep) {
			s.samples[j] = smp
		}
	}
}

func secondOf(d time.Duration) int {
	if d < 0 {
		return 0
	}
	return int(d / time.Second)
}

// recorder is the set of shards of one run.
type recorder struct {
	shards       []*shard
	trackService bool
}

func newRecorder(n int, trackService bool, keepSamples int, seed uint64) *recorder {
	if n < 1 {
		n = 1
	}
	r := &recorder{shards: make([]*shard, n), trackService: trackService}
	for i := range r.shards {
		s := &shard{timeline: report.NewTimeline(0)}
		if keepSamples > 0 {
			s.keep = max(keepSamples/n, 1)
			s.rng = rand.New(rand.NewPCG(seed, uint64(i)))
		}
		r.shards[i] = s
	}
	return r
}

func (r *recorder) record(i uint64, res result) {
	r.shards[i%uint64(len(r.shards))].record(res, r.trackService)
}

// tally is the merged content of all shards.
type tally struct {
	counts  [report.NumOutcomes]int64
	lat     [report.NumOutcomes]*hdr.Histogram
	svc     [report.NumOutcomes]*hdr.Histogram
	details [report.NumOutcomes]map[string]int64
	done    [][report.NumOutcomes]int64
	sent    []int64
	samples []report.Sample
	events  [][]flightEvent // each shard's records
	// eventsDropped counts requests beyond the flight records' bound.
	eventsDropped int64
	timeline      *report.Timeline
	// lateness (nil: no send was late or early, not an open run) and
	// lastSend are the open run's send lateness and its last send.
	lateness *hdr.Histogram
	lastSend time.Duration
}

func (r *recorder) merge() *tally {
	t := &tally{timeline: report.NewTimeline(0)}
	for _, s := range r.shards {
		t.timeline.Add(s.timeline)
		s.mu.Lock()
		for o := range report.NumOutcomes {
			t.counts[o] += s.counts[o]
			report.MergeHistogram(&t.lat[o], s.lat[o])
			report.MergeHistogram(&t.svc[o], s.svc[o])
			for k, v := range s.details[o] {
				if t.details[o] == nil {
					t.details[o] = map[string]int64{}
				}
				t.details[o][k] += v
			}
		}
		for len(t.done) < len(s.done) {
			t.done = append(t.done, [report.NumOutcomes]int64{})
		}
		for sec, row := range s.done {
			for o, n := range row {
				t.done[sec][o] += n
			}
		}
		for len(t.sent) < len(s.sent) {
			t.sent = append(t.sent, 0)
		}
		for sec, n := range s.sent {
			t.sent[sec] += n
		}
		t.samples = append(t.samples, s.samples...)
		if len(s.events) > 0 {
			// Each shard's own, not copied into one: the analysis reads
			// few of them (analyseFlights), and a copy of every request's
			// record was a page fault each 256 requests at the end.
			t.events = append(t.events, s.events)
		}
		t.eventsDropped += s.eventsDropped
		report.MergeHistogram(&t.lateness, s.lateness)
		t.lastSend = max(t.lastSend, s.lastSend)
		s.mu.Unlock()
	}
	return t
}

// recordResult records r's result res, with its resends: into its shard
// and the shard's timeline, and in the live counts progress shows. It
// reports false, recording nothing, when the run was finalised first:
// abandonInFlight counted r then, once, as cancelled, and the report may
// already be being built from the shards.
func (e *engine) recordResult(r *sentRequest, res result, resends int) bool {
	s := e.rec.shards[r.shard]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.unlink(r)
	e.recordLocked(s, res)
	if resends > 0 {
		e.resends.Add(int64(resends))
	}
	return true
}

// recordLocked records res in shard s, whose lock is held.
func (e *engine) recordLocked(s *shard, res result) {
	s.recordLocked(res, e.rec.trackService)
	s.timeline.Observe(res.sentAt, res.doneAt, res.outcome)
	e.counts[res.outcome].Add(1)
}

// abandonInFlight finalises an interrupted run whose requests did not all
// end within drainGrace: every request still in flight is recorded once
// as a transport error with detail "canceled" (the detail finishSend gives
// a request the interrupt cancelled), answered when the run stopped
// waiting; each shard is then closed, so answers that come later are
// dropped and sends not yet counted are not made. It returns how many
// requests it recorded.
func (e *engine) abandonInFlight() int64 {
	var n int64
	for _, s := range e.rec.shards {
		s.mu.Lock()
		s.closed = true
		for r := s.flying; r != nil; r = r.next {
			res := result{outcome: report.TransportError, detail: canceledDetail, due: r.due, sentAt: r.sentAt,
				doneAt: time.Since(r.start), actor: r.idx}
			if wrote := time.Duration(r.wrote.Load()); wrote > 0 && e.rec.trackService {
				res.sentAt = wrote
			}
			e.recordLocked(s, res)
			n++
		}
		// The requests keep their links (their goroutines may still hold
		// them); the shard no longer looks at them.
		s.flying, s.oldest = nil, nil
		s.mu.Unlock()
	}
	return n
}

// canceledDetail is the transport-error detail of a request the probe
// itself cancelled (an interrupted run).
const canceledDetail = "canceled"

// answerDetail says a little more about answers whose outcome alone is not
// enough to act on. The router's own reasons are kept without the actor,
// so one detail stands for every actor: which text a capacity refusal
// carried, which Host form the router refused, and whether a 404 was the
// router's at all.
func answerDetail(o report.Outcome, a Answer, rd Reading) string {
	if rd.GRPC != "" && !rd.Capacity {
		return rd.GRPC
	}
	switch o {
	case report.TransportError:
		return transport.Detail(a.Err)
	case report.BudgetExhausted, report.Unavailable:
		if rd.Capacity {
			return rd.Reason
		}
	case report.NotFound:
		if rd.Router {
			if strings.HasPrefix(rd.Reason, "invalid host") || strings.HasPrefix(rd.Reason, "invalid header") {
				return rd.Reason
			}
			return "the router's actor … " + rd.Reason
		}
	}
	switch o {
	case report.NotFound, report.ProxyError, report.Other, report.Unavailable, report.EnvoyOverflow, report.ExtProcError:
		b := bytes.TrimSpace(a.Body)
		if len(b) > 60 {
			b = b[:60]
		}
		if len(b) == 0 {
			return fmt.Sprintf("HTTP %d", a.Status)
		}
		return fmt.Sprintf("HTTP %d %s", a.Status, bytes.ToValidUTF8(b, []byte("?")))
	}
	return ""
}
