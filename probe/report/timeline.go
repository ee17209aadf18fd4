package report

import (
	"sync"
	"time"
)

// TimelineStep is the resolution of the plots' time axis: fine enough to
// show a burst draining, which per-second series hide.
const TimelineStep = 100 * time.Millisecond

// Timeline counts, per TimelineStep, the answers of each outcome and the
// requests sent, from which it derives the requests in flight. It is safe
// for concurrent use; Observe is the only method the recording path needs.
type Timeline struct {
	step time.Duration

	mu sync.Mutex
	// answers[i][o] is how many answers of outcome o completed in step i;
	// sent[i] how many requests were sent in step i.
	answers [][NumOutcomes]int64
	sent    []int64
	total   int64
}

// NewTimeline returns an empty timeline with steps of step (TimelineStep
// if step <= 0).
func NewTimeline(step time.Duration) *Timeline {
	if step <= 0 {
		step = TimelineStep
	}
	return &Timeline{step: step}
}

// maxTimelineSteps bounds the slices an absurd time could grow (an hour at
// 100 ms, a few MB, like the latency histograms' one-hour ceiling); later
// times count in the last step.
const maxTimelineSteps = 36000

func (t *Timeline) index(d time.Duration) int {
	if d < 0 {
		return 0
	}
	return int(min(int64(d/t.step), maxTimelineSteps-1))
}

// Observe records one request, sent at sent and answered at done (both
// from the start of the run), with outcome o.
func (t *Timeline) Observe(sent, done time.Duration, o Outcome) {
	if int(o) < 0 || int(o) >= NumOutcomes {
		o = Other
	}
	si, di := t.index(sent), t.index(done)
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.answers) <= max(si, di) {
		t.answers = append(t.answers, [NumOutcomes]int64{})
		t.sent = append(t.sent, 0)
	}
	t.answers[di][o]++
	t.sent[si]++
	t.total++
}

// Add adds o's counts (of the same step) to t: the engine keeps a
// timeline per recorder shard and adds them up at the end.
func (t *Timeline) Add(o *Timeline) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.answers) < len(o.answers) {
		t.answers = append(t.answers, [NumOutcomes]int64{})
		t.sent = append(t.sent, 0)
	}
	for i := range o.answers {
		for k, n := range o.answers[i] {
			t.answers[i][k] += n
		}
		t.sent[i] += o.sent[i]
	}
	t.total += o.total
}

// timelineView is a snapshot of a Timeline for drawing.
type timelineView struct {
	step    time.Duration
	answers [][NumOutcomes]int64
	// inFlight[i] is the number sent minus the number answered by the end
	// of step i.
	inFlight []int64
	total    int64
}

func (t *Timeline) view() timelineView {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := timelineView{step: t.step, answers: append([][NumOutcomes]int64(nil), t.answers...), total: t.total}
	v.inFlight = make([]int64, len(t.answers))
	var n int64
	for i := range t.answers {
		n += t.sent[i]
		for _, c := range t.answers[i] {
			n -= c
		}
		v.inFlight[i] = n
	}
	return v
}

// timelineFromSamples rebuilds a timeline from a report's kept samples.
// Every request is a sample unless the run outgrew Options.KeepSamples;
// then the samples are a uniform reservoir and each stands for
// requests/len(samples) requests, which scale says.
func timelineFromSamples(samples []Sample, requests int64) (tl *Timeline, scale float64) {
	tl = NewTimeline(TimelineStep)
	for _, s := range samples {
		tl.Observe(s.Sent, s.Sent+s.Latency, s.Outcome)
	}
	scale = 1
	if n := int64(len(samples)); n > 0 && requests > n {
		scale = float64(requests) / float64(n)
	}
	return tl, scale
}

// Sample is one request as a plot draws it.
type Sample struct {
	// Sent is when the request was due, from the start of the run.
	Sent time.Duration
	// Latency is from the due time to the complete answer.
	Latency time.Duration
	Outcome Outcome
}
