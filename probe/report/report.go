package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The report's wire form: histogram encoding and the JSON it is written
// and read back as. The schema is in report_schema.go, its assembly from a
// run in assemble.go.

func seconds(d time.Duration) float64 { return d.Seconds() }

func usToSeconds(us int64) float64 { return float64(us) / 1e6 }

func summarise(h *hdr.Histogram) *LatencySummary {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	return &LatencySummary{
		P50: usToSeconds(h.ValueAtQuantile(50)),
		P90: usToSeconds(h.ValueAtQuantile(90)),
		P99: usToSeconds(h.ValueAtQuantile(99)),
		Max: usToSeconds(h.Max()),
	}
}

func encodeHist(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

func decodeHist(s string) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, err
	}
	if h.LowestTrackableValue() != histLowest || h.HighestTrackableValue() != histHighest || h.SignificantFigures() != histDigits {
		// Re-bin into the standard geometry so merges stay exact within it.
		std := NewHistogram()
		if dropped := std.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("histogram holds %d values outside 1µs..1h", dropped)
		}
		return std, nil
	}
	return h, nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Check names hold < and >; keep them readable.
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadReport reads a JSON report, as -o json or --out wrote it, with its
// histograms.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a parking-probe JSON report: %s", firstLine(err.Error()))
	}
	if r.Outcomes == nil {
		return nil, errors.New(`not a parking-probe JSON report: no "outcomes"`)
	}
	var total int64
	for name, s := range r.Outcomes {
		if s == nil {
			return nil, fmt.Errorf("outcome %q is null", name)
		}
		if _, ok := ParseOutcome(name); !ok {
			return nil, fmt.Errorf("unknown outcome %q", name)
		}
		if s.Count < 0 {
			return nil, fmt.Errorf("outcome %s has a negative count", name)
		}
		total += s.Count
		if s.Count == 0 {
			continue
		}
		if s.HDR == "" {
			return nil, fmt.Errorf("outcome %s has %d answers but no histogram (hdr); cannot merge it exactly", name, s.Count)
		}
		h, err := decodeHist(s.HDR)
		if err != nil {
			return nil, fmt.Errorf("outcome %s: bad histogram: %v", name, err)
		}
		if h.TotalCount() != s.Count {
			return nil, fmt.Errorf("outcome %s: histogram holds %d answers but count says %d", name, h.TotalCount(), s.Count)
		}
		s.lat = h
		if s.ServiceHDR != "" {
			if s.svc, err = decodeHist(s.ServiceHDR); err != nil {
				return nil, fmt.Errorf("outcome %s: bad service histogram: %v", name, err)
			}
		}
	}
	if total != r.Requests {
		return nil, fmt.Errorf("outcomes add up to %d but requests says %d", total, r.Requests)
	}
	if r.SendLatenessHDR != "" {
		h, err := decodeHist(r.SendLatenessHDR)
		if err != nil {
			return nil, fmt.Errorf("bad send lateness histogram: %v", err)
		}
		r.lateness = h
	}
	return &r, nil
}
