package report

import (
	"bufio"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
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

// NewHistogram returns an empty latency histogram of the reports' geometry.
func NewHistogram() *hdr.Histogram { return hdr.New(histLowest, histHighest, histDigits) }

// RecordDuration records d in microseconds, clamped to the geometry.
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

// MergeHistogram adds src to *dst, making *dst first if it is nil.
func MergeHistogram(dst **hdr.Histogram, src *hdr.Histogram) {
	if src == nil {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	(*dst).Merge(src)
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

// maxHDRChars bounds one encoded histogram in a report. A histogram of the
// reports' geometry holds at most about 22,500 counts, a few tens of KB
// encoded even when every one is set; anything longer is not one.
const maxHDRChars = 1 << 20

// The V2 compressed encoding, as hdrhistogram-go v1.4.0's hdr_encoding.go
// writes it (the HdrHistogram family's shared format): base64 of a 4-byte
// cookie, a 4-byte length and a zlib stream whose first 40 bytes are the
// header: cookie, payload length, normalizing offset, significant digits
// (int32 each), lowest and highest trackable values (int64 each) and a
// float64 ratio.
const (
	hdrCompressedCookie = 0x1c849304
	hdrHeaderBytes      = 40
)

// histPeeker reads only the header of encoded histograms. hdr.Decode
// allocates the counts array the header asks for before it looks at the
// counts (8 bytes for each of about 6.8 million counts for 1..2^62 at 5
// digits, 54 MB), so a report is held to the geometry first: with at most
// the reports' 3 digits a histogram of any range stays under half a MB.
// One peeker reuses its zlib reader across a report's histograms.
type histPeeker struct {
	src strings.Reader
	z   io.ReadCloser
}

func (p *histPeeker) geometry(s string) (lowest, highest int64, digits int32, err error) {
	if len(s) > maxHDRChars {
		return 0, 0, 0, fmt.Errorf("encoded histogram of %d bytes, more than the %d a report's can take", len(s), maxHDRChars)
	}
	// Decoded as a stream: only as much as the header needs.
	p.src.Reset(s)
	b64 := bufio.NewReaderSize(base64.NewDecoder(base64.StdEncoding, &p.src), 512)
	var outer [8]byte
	if _, err := io.ReadFull(b64, outer[:]); err != nil || binary.BigEndian.Uint32(outer[0:4])&^0xf0 != hdrCompressedCookie&^0xf0 {
		return 0, 0, 0, fmt.Errorf("not an HdrHistogram V2 compressed histogram")
	}
	if p.z == nil {
		p.z, err = zlib.NewReader(b64)
	} else {
		err = p.z.(zlib.Resetter).Reset(b64, nil)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("histogram not zlib-compressed: %v", err)
	}
	var h [hdrHeaderBytes]byte
	if _, err := io.ReadFull(p.z, h[:]); err != nil {
		return 0, 0, 0, fmt.Errorf("histogram header truncated")
	}
	digits = int32(binary.BigEndian.Uint32(h[12:16]))
	lowest = int64(binary.BigEndian.Uint64(h[16:24]))
	highest = int64(binary.BigEndian.Uint64(h[24:32]))
	return lowest, highest, digits, nil
}

// check refuses, from its header alone, an encoded histogram whose
// decoding would take more memory than a report's may.
func (p *histPeeker) check(s string) error {
	lowest, highest, digits, err := p.geometry(s)
	if err != nil {
		return err
	}
	if digits < 1 || digits > histDigits || lowest < 1 || highest < 2*lowest {
		return fmt.Errorf("histogram geometry %d..%d at %d significant digits: reports use %d..%d at %d", lowest, highest, digits, histLowest, histHighest, histDigits)
	}
	return nil
}

// decodeHist decodes a histogram of a report, re-binned into the reports'
// geometry.
func decodeHist(s string) (*hdr.Histogram, error) {
	var p histPeeker
	if err := p.check(s); err != nil {
		return nil, err
	}
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
