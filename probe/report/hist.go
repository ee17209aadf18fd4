package report

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms record microseconds from 1 µs to 1 hour with three
// significant digits (0.1% resolution). Every report uses this geometry, so
// histograms from several machines merge exactly; a longer latency is
// recorded as 1 hour.
const (
	histLowest  = 1
	histHighest = int64(time.Hour / time.Microsecond)
	histDigits  = 3
)

func NewHistogram() *hdr.Histogram { return hdr.New(histLowest, histHighest, histDigits) }

func RecordDuration(h *hdr.Histogram, d time.Duration) {
	us := int64(d / time.Microsecond)
	if us < histLowest {
		us = histLowest
	}
	if us > histHighest {
		us = histHighest
	}
	_ = h.RecordValue(us)
}

func MergeHistogram(dst **hdr.Histogram, src *hdr.Histogram) {
	if src == nil {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	(*dst).Merge(src)
}
