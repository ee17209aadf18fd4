package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shakenfist/shakectl/output/termtext"
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

// WriteJSON writes the report as indented JSON. A report quotes the
// router's text (an answer's detail, a target), so C1 controls are
// escaped (termtext.JSON), as in every JSON shakectl prints.
func (r *Report) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	// Check names hold < and >; keep them readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(b.Bytes()))
	return err
}

// MaxReportBytes bounds one JSON report, read alone or out of a log
// stream. A report of an hour's run is about 1 MB (its per-second series
// and up to 35 histograms); its plot samples are never in the JSON.
const MaxReportBytes = 16 << 20

// MaxRunSeconds bounds the time one report, or a merge of several, spans:
// the merged series holds a point for every second of it, and the plot a
// point for every second and outcome. A day is far beyond any run the
// probe makes (its plot timeline stops at an hour), and a day's series
// merges, renders and writes in well under a second and 100 MB.
const MaxRunSeconds = 24 * 3600

// ReadReport reads a JSON report, as -o json or --out wrote it, and
// checks everything that is cheap to check: its size, its schema version,
// the outcomes and their counts, each histogram's geometry (from its
// header) and the series against the run's duration. Histograms are
// decoded only when they are used (Merge, NewFigure), so reports that
// must not be merged (duplicates, other runs) are refused before any is.
func ReadReport(rd io.Reader) (*Report, error) {
	b, err := io.ReadAll(io.LimitReader(rd, MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the report: %w", err)
	}
	if len(b) > MaxReportBytes {
		return nil, fmt.Errorf("not a parking-probe JSON report: larger than %d MiB", MaxReportBytes>>20)
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a parking-probe JSON report: %s", firstLine(err.Error()))
	}
	if r.Outcomes == nil {
		return nil, errors.New(`not a parking-probe JSON report: no "outcomes"`)
	}
	if err := CheckSchema(&r); err != nil {
		return nil, err
	}
	var total int64
	var peek histPeeker
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
		if total += s.Count; total < 0 {
			return nil, fmt.Errorf("outcome counts overflow")
		}
		if s.Count == 0 {
			continue
		}
		if s.HDR == "" {
			return nil, fmt.Errorf("outcome %s has %d answers but no histogram (hdr); cannot merge it exactly", name, s.Count)
		}
		if err := peek.check(s.HDR); err != nil {
			return nil, fmt.Errorf("outcome %s: bad histogram: %v", name, err)
		}
		if s.ServiceHDR != "" {
			if err := peek.check(s.ServiceHDR); err != nil {
				return nil, fmt.Errorf("outcome %s: bad service histogram: %v", name, err)
			}
		}
	}
	if total != r.Requests {
		return nil, fmt.Errorf("outcomes add up to %d but requests says %d", total, r.Requests)
	}
	if r.SendLatenessHDR != "" {
		if err := peek.check(r.SendLatenessHDR); err != nil {
			return nil, fmt.Errorf("bad send lateness histogram: %v", err)
		}
	}
	if err := r.checkSpan(); err != nil {
		return nil, err
	}
	return &r, nil
}

// checkSpan holds the run's duration and its series to each other: a
// point's second is within the run (the last one may close a second
// after it), so merging or plotting the series allocates no more than
// the run's seconds.
func (r *Report) checkSpan() error {
	d := r.DurationSeconds
	if math.IsNaN(d) || d < 0 || d > MaxRunSeconds {
		return fmt.Errorf("duration_seconds %v: want 0 to %d (a day)", d, MaxRunSeconds)
	}
	limit := seriesLimit(d)
	if len(r.Series) > limit {
		return fmt.Errorf("series has %d points but the run lasted %s", len(r.Series), FormatDuration(time.Duration(d*float64(time.Second))))
	}
	for _, p := range r.Series {
		if p.Second < 0 || p.Second >= limit {
			return fmt.Errorf("series point at second %d of a run of %s", p.Second, FormatDuration(time.Duration(d*float64(time.Second))))
		}
	}
	return nil
}

// seriesLimit is one more than the last second a run of d seconds can
// have a series point at.
func seriesLimit(d float64) int { return int(math.Ceil(d)) + 2 }

// Histograms returns the outcome's latency and service histograms: the
// ones a run just made, or those decoded from a report read back (not
// kept, so merging many reports holds one report's at a time), checked
// against the count.
func (s *OutcomeStats) Histograms() (lat, svc *hdr.Histogram, err error) {
	lat, svc = s.lat, s.svc
	if lat == nil && s.HDR != "" {
		if lat, err = decodeHist(s.HDR); err != nil {
			return nil, nil, fmt.Errorf("bad histogram: %v", err)
		}
		if lat.TotalCount() != s.Count {
			return nil, nil, fmt.Errorf("histogram holds %d answers but count says %d", lat.TotalCount(), s.Count)
		}
	}
	if svc == nil && s.ServiceHDR != "" {
		if svc, err = decodeHist(s.ServiceHDR); err != nil {
			return nil, nil, fmt.Errorf("bad service histogram: %v", err)
		}
	}
	return lat, svc, nil
}

// sendLateness is the open run's send lateness histogram, decoded from a
// report read back when needed.
func (r *Report) sendLateness() (*hdr.Histogram, error) {
	if r.lateness != nil || r.SendLatenessHDR == "" {
		return r.lateness, nil
	}
	h, err := decodeHist(r.SendLatenessHDR)
	if err != nil {
		return nil, fmt.Errorf("bad send lateness histogram: %v", err)
	}
	return h, nil
}
