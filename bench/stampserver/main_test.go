package main

import (
	"testing"
	"time"
)

func stampsAt(offsets ...time.Duration) *stamps {
	return &stamps{origin: time.Now(), at: offsets}
}

// A tool that sends exactly on schedule is judged perfect: the achieved
// rate is the asked one, no jitter, no lateness.
func TestReportOnSchedule(t *testing.T) {
	var at []time.Duration
	for i := range 1000 {
		at = append(at, time.Second+time.Duration(i)*time.Millisecond)
	}
	r := stampsAt(at...).report(1000, 1)
	if r.Arrived != 1000 || r.Expected != 1000 || r.Achieved < 999.999 || r.Achieved > 1000.001 {
		t.Errorf("%+v", r)
	}
	if r.JitterP99 != 0 || r.LatenessMax != 0 || r.LatenessEnd != 0 {
		t.Errorf("on schedule, yet jitter %v µs, lateness %v µs", r.JitterP99, r.LatenessMax)
	}
}

// A tool that falls behind and sends in bursts shows it in the lateness
// against the ideal schedule and in the gaps, though it sent every
// request: the achieved rate alone would hide it.
func TestReportLateBursts(t *testing.T) {
	// 100/s asked; requests come in pairs every 20 ms, the pair 10 ms late.
	var at []time.Duration
	for i := range 100 {
		pair := time.Duration(i/2) * 20 * time.Millisecond
		at = append(at, pair+10*time.Millisecond*time.Duration(min(i, 1)))
	}
	r := stampsAt(at...).report(100, 1)
	if r.LatenessMax < 9000 {
		t.Errorf("lateness max %v µs, want about 10,000 (the late pairs)", r.LatenessMax)
	}
	if r.JitterP50 < 9000 {
		t.Errorf("jitter p50 %v µs, want about 10,000 (gaps of 0 and 20 ms against 10 ms)", r.JitterP50)
	}
}
