package report

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue 28 item 7: merge checks what is cheap (identity, duplicates,
// schema, the series against the run's duration, histogram geometry)
// before it decodes a histogram or allocates a series point, and the log
// stream reader has per-report and per-stream bounds. The memory tests
// bound what the checks may allocate; without the checks each input
// allocates from tens of MB (the decodes) to terabytes (the series).

// shardReport is shard i of n of a 10-second run with an answer of every
// outcome, as JSON.
func shardReport(t testing.TB, i, n int) []byte {
	t.Helper()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	shard := i
	r := &Report{
		RunInfo:         RunInfo{Schema: SchemaVersion, RunID: "run-1", Shard: &shard, Shards: n},
		Target:          "http://router.test",
		Mode:            ModeBurst,
		StartedAt:       start,
		DurationSeconds: 10,
		Requests:        int64(NumOutcomes),
		Outcomes:        map[string]*OutcomeStats{},
		Series:          []SeriesPoint{{Second: 0, Sent: int64(NumOutcomes), Outcomes: map[string]int64{}}},
	}
	for _, o := range AllOutcomes() {
		h := NewHistogram()
		// Spread over the whole range so every bucket is allocated.
		RecordDuration(h, time.Duration(o+1)*7*time.Minute)
		r.SetOutcome(o, 1, h, h, nil)
	}
	r.Series[0].Outcomes[Served.String()] = 1
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestReadReportRefusesASeriesBeyondTheRun(t *testing.T) {
	good := string(shardReport(t, 0, 1))
	for name, in := range map[string]string{
		"second 1e12":      strings.Replace(good, `"second": 0`, `"second": 1000000000000`, 1),
		"second past end":  strings.Replace(good, `"second": 0`, `"second": 12`, 1),
		"negative second":  strings.Replace(good, `"second": 0`, `"second": -1`, 1),
		"duration of 1e12": strings.Replace(good, `"duration_seconds": 10`, `"duration_seconds": 1000000000000`, 1),
		"schema v2":        strings.Replace(good, `"schema": "parking-probe/v1"`, `"schema": "parking-probe/v2"`, 1),
	} {
		if in == good {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		var err error
		if n := allocated(func() { _, err = ReadReport(strings.NewReader(in)) }); n > 8<<20 {
			t.Errorf("%s: reading took %d MB", name, n>>20)
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if name == "second 1e12" && !strings.Contains(err.Error(), "second 1000000000000 of a run of 10s") {
			t.Errorf("%s: %v, want the second and the run's length", name, err)
		}
	}
	if r, err := ReadReport(strings.NewReader(strings.Replace(good, `"second": 0`, `"second": 11`, 1))); err != nil || r.Series[0].Second != 11 {
		t.Errorf("a point closing the second after the run was refused: %v", err)
	}
}

// Merge holds reports it did not read itself to the same bounds, and the
// reports together to a week.
func TestMergeRefusesSpansBeforeAllocating(t *testing.T) {
	read := func() *Report {
		r, err := ReadReport(bytes.NewReader(shardReport(t, 0, 1)))
		if err != nil {
			t.Fatal(err)
		}
		r.RunInfo = RunInfo{Schema: SchemaVersion}
		return r
	}
	far := read()
	// Without the check this merge would allocate a point for each of the
	// 691,200 seconds in between (about 100 MB).
	far.StartedAt = far.StartedAt.Add(8 * 24 * time.Hour)
	hostile := read()
	hostile.Series[0].Second = 500_000
	for name, reports := range map[string][]*Report{
		"runs 8 days apart":        {read(), far},
		"a series past its run":    {read(), hostile},
		"an unknown schema":        {read(), {RunInfo: RunInfo{Schema: "parking-probe/v9"}, Outcomes: map[string]*OutcomeStats{}}},
		"a start in the far past":  {read(), {StartedAt: time.Time{}, Outcomes: map[string]*OutcomeStats{}}},
		"a series point before it": {read(), {Series: []SeriesPoint{{Second: -3}}, StartedAt: far.StartedAt, Outcomes: map[string]*OutcomeStats{}}},
	} {
		var err error
		if n := allocated(func() { _, err = Merge(reports, CheckConfig{}) }); n > 8<<20 {
			t.Errorf("%s: merge took %d MB before refusing", name, n>>20)
		}
		if err == nil {
			t.Errorf("%s: merged", name)
		}
	}
	if _, err := Merge([]*Report{read(), read()}, CheckConfig{}); err != nil {
		t.Errorf("two reports of the same second: %v", err)
	}
}

// Fifty copies of one shard, each with a histogram of every outcome, are
// refused as duplicates before any histogram is decoded: reading them
// decodes none (eagerly, each would take 17 × 2 histograms of about 180
// KB), and the duplicates are named.
func TestDuplicateShardsRefusedBeforeDecoding(t *testing.T) {
	doc := shardReport(t, 0, 2)
	var reports []*Report
	var names []string
	n := allocated(func() {
		for i := range 50 {
			r, err := ReadReport(bytes.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			reports, names = append(reports, r), append(names, fmt.Sprintf("copy-%d", i))
		}
	})
	if n > 32<<20 {
		t.Errorf("reading 50 reports of %d KB took %d MB: histograms were decoded", len(doc)>>10, n>>20)
	}
	err := CheckRun(reports, names)
	var me *MergeError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "shard 0 appears 50 times") {
		t.Errorf("CheckRun: %v, want shard 0 refused as a duplicate", err)
	}
	// The two shards of the run merge, and their histograms are exact.
	a, _ := ReadReport(bytes.NewReader(shardReport(t, 0, 2)))
	b, _ := ReadReport(bytes.NewReader(shardReport(t, 1, 2)))
	if err := CheckRun([]*Report{a, b}, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	m, err := Merge([]*Report{a, b}, CheckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if h := m.Stats(Other).LatencyHistogram(); m.Requests != 2*int64(NumOutcomes) || h == nil || h.TotalCount() != 2 {
		t.Errorf("merged %d requests, other's histogram %v", m.Requests, h)
	}
}

// hdrEncoding builds a V2 compressed histogram with the geometry given in
// its header and an empty payload, as a hostile report could: small on
// the wire, large to decode.
func hdrEncoding(lowest, highest int64, digits int32) string {
	var inner bytes.Buffer
	binary.Write(&inner, binary.BigEndian, []int32{0x1c849303, 0, 0, digits})
	binary.Write(&inner, binary.BigEndian, []int64{lowest, highest})
	binary.Write(&inner, binary.BigEndian, 1.0)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(inner.Bytes())
	w.Close()
	var outer bytes.Buffer
	binary.Write(&outer, binary.BigEndian, []int32{hdrCompressedCookie, int32(z.Len())})
	outer.Write(z.Bytes())
	return base64.StdEncoding.EncodeToString(outer.Bytes())
}

// A histogram whose header asks for a wide geometry (1..2^62 at 5 digits:
// 54 MB of counts) is refused from its header, on reading.
func TestWideHistogramRefusedFromItsHeader(t *testing.T) {
	good := string(shardReport(t, 0, 1))
	start := strings.Index(good, `"hdr": "`) + len(`"hdr": "`)
	end := start + strings.IndexByte(good[start:], '"')
	for name, h := range map[string]string{
		"5 digits, 1..2^62": hdrEncoding(1, 1<<62, 5),
		"0 digits":          hdrEncoding(1, 1<<30, 0),
		"lowest 0":          hdrEncoding(0, 1<<30, 3),
		"truncated":         hdrEncoding(1, 1<<30, 3)[:12],
		"not base64":        "%%%%",
		"too long":          strings.Repeat("A", maxHDRChars+4),
	} {
		in := good[:start] + h + good[end:]
		var err error
		if n := allocated(func() { _, err = ReadReport(strings.NewReader(in)) }); n > 16<<20 {
			t.Errorf("%s: reading took %d MB", name, n>>20)
		}
		if err == nil || !strings.Contains(err.Error(), "bad histogram") {
			t.Errorf("%s: %v, want a bad histogram", name, err)
		}
	}
	if _, err := ReadReport(strings.NewReader(good)); err != nil {
		t.Errorf("the good report: %v", err)
	}
}

// A histogram that holds other answers than its count says is found when
// the merge decodes it, and named.
func TestMergeRefusesAHistogramThatDisagreesWithItsCount(t *testing.T) {
	good := string(shardReport(t, 0, 1))
	in := strings.Replace(strings.Replace(good, `"count": 1`, `"count": 2`, 1), fmt.Sprintf(`"requests": %d`, NumOutcomes), fmt.Sprintf(`"requests": %d`, NumOutcomes+1), 1)
	r, err := ReadReport(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Merge([]*Report{r}, CheckConfig{}); err == nil || !strings.Contains(err.Error(), "histogram holds 1 answers but count says 2") {
		t.Errorf("merge: %v", err)
	}
}

func TestReadReportBoundsItsSize(t *testing.T) {
	in := io.MultiReader(strings.NewReader(`{"outcomes": {}, "target": "`), &zeros{n: MaxReportBytes})
	if _, err := ReadReport(in); err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("a 16 MiB report: %v", err)
	}
}

// zeros reads n zero bytes (n < 0: without end), and counts what it gave.
type zeros struct{ n, read int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n >= 0 && z.read >= z.n {
		return 0, io.EOF
	}
	if z.n >= 0 {
		p = p[:min(len(p), z.n-z.read)]
	}
	clear(p)
	z.read += len(p)
	return len(p), nil
}

// merge - < /dev/zero: the stream bound ends the read.
func TestExtractReportsStopsAtTheStreamBound(t *testing.T) {
	// Without a bound the reader would read on; the source ends at 64 MB
	// so the test ends either way.
	src := &zeros{n: 64 << 20}
	lim := StreamLimits{Document: 1 << 20, Held: 4 << 20, Stream: 8 << 20}
	_, _, err := ExtractReportsWithin(src, lim)
	var le *StreamLimitError
	if !errors.As(err, &le) || le.Limit != lim.Stream || !strings.Contains(err.Error(), "the stream holds more than 8 MiB") {
		t.Errorf("err %v, want the stream bound", err)
	}
	if src.read > int(lim.Stream)+1<<20 {
		t.Errorf("read %d MB past a bound of 8 MB", src.read>>20)
	}
	if d := DefaultStreamLimits(); d.Document != MaxReportBytes || d.Stream < d.Held || d.Held < int64(d.Document) {
		t.Errorf("default limits %+v", d)
	}
}

// Many whole reports, or many sources each assembling a large one, stop
// at the bound on what is held.
func TestExtractReportsBoundsWhatItHolds(t *testing.T) {
	doc := shardReport(t, 0, 1)
	lim := StreamLimits{Document: 1 << 20, Held: 10 * int64(len(doc)), Stream: 1 << 30}
	var many bytes.Buffer
	for range 20 {
		many.Write(doc)
	}
	docs, _, err := ExtractReportsWithin(&many, lim)
	var le *StreamLimitError
	if !errors.As(err, &le) || le.Limit != lim.Held || len(docs) > 10 {
		t.Errorf("20 reports within a bound of 10: %d docs, %v", len(docs), err)
	}
	// 40 pods each printing the start of a large document, never ending.
	var open bytes.Buffer
	for line := range 2000 {
		fmt.Fprintf(&open, "[pod/p-%d/probe] ", line%40)
		if line < 40 {
			open.WriteString(`{"outcomes": {`)
		} else {
			open.WriteString(`"x": "` + strings.Repeat("y", 2000) + `",`)
		}
		open.WriteByte('\n')
	}
	lim.Held = 1 << 20
	if _, _, err := ExtractReportsWithin(&open, lim); !errors.As(err, &le) {
		t.Errorf("40 pending documents of 100 KB within 1 MB: %v", err)
	}
	// The same within the bound is read to its end: each document is cut off.
	lim.Held = 8 << 20
	open.Reset()
	for line := range 200 {
		fmt.Fprintf(&open, "[pod/p-%d/probe] ", line%4)
		if line < 4 {
			open.WriteString(`{"outcomes": {`)
		} else {
			open.WriteString(`"x": 1,`)
		}
		open.WriteByte('\n')
	}
	if _, problems, err := ExtractReportsWithin(&open, lim); err != nil || len(problems) != 4 {
		t.Errorf("4 cut-off documents: %v, %v", problems, err)
	}
}

// FuzzMergeInput feeds a log stream through everything merge - does with
// it: extract the reports, read each, check the run and the duplicates,
// merge, render and plot. Nothing may panic, and what is allocated stays
// within the bounds (small ones here, so the fuzzer runs fast).
func FuzzMergeInput(f *testing.F) {
	a, b := shardReport(f, 0, 2), shardReport(f, 1, 2)
	whole := append(append(bytes.Clone(a), '\n'), b...)
	hostile := func(doc []byte, old, new string) []byte {
		return bytes.Replace(doc, []byte(old), []byte(new), 1)
	}
	start := bytes.Index(a, []byte(`"hdr": "`)) + len(`"hdr": "`)
	end := start + bytes.IndexByte(a[start:], '"')
	wide := slicesConcat(a[:start], []byte(hdrEncoding(1, 1<<62, 5)), a[end:])
	for _, seed := range [][]byte{
		whole,
		append(append(bytes.Clone(a), '\n'), a...), // a duplicate shard
		hostile(a, `"second": 0`, `"second": 1000000000000`),
		hostile(a, `"second": 0`, `"second": -5`),
		hostile(a, `"duration_seconds": 10`, `"duration_seconds": 1e300`),
		hostile(a, `"started_at": "2030`, `"started_at": "0001`),
		wide,
		a[:len(a)/2], // truncated JSON
		hostile(a, `"shards": 2`, `"shards": 1000000000`),
		hostile(a, `"shard": 0`, `"shard": -1`),
		[]byte(prefixed("[pod/p-0/probe] ", string(a)) + prefixed("[pod/p-0/probe] ", string(a))),
		[]byte("{\"outcomes\": {\"served\": {\"count\": 1, \"hdr\": \"" + hdrEncoding(1, 1<<30, 3) + "\"}}, \"requests\": 1}"),
	} {
		f.Add(seed)
	}
	lim := StreamLimits{Document: 256 << 10, Held: 1 << 20, Stream: 4 << 20}
	f.Fuzz(func(t *testing.T, in []byte) {
		docs, _, err := ExtractReportsWithin(bytes.NewReader(in), lim)
		if err != nil && !errors.As(err, new(*StreamLimitError)) {
			t.Fatalf("stream: %v", err)
		}
		var reports []*Report
		var names []string
		for _, d := range docs {
			if len(d.Raw) > lim.Document {
				t.Fatalf("a document of %d bytes passed a bound of %d", len(d.Raw), lim.Document)
			}
			r, err := ReadReport(bytes.NewReader(d.Raw))
			if err != nil {
				continue
			}
			reports, names = append(reports, r), append(names, d.Name())
		}
		if len(reports) == 0 || CheckRun(reports, names) != nil || CheckMergeable(reports, names, true) != nil {
			return
		}
		m, err := Merge(reports, CheckConfig{})
		if err != nil {
			return
		}
		if len(m.Series) > MaxRunSeconds+2 {
			t.Fatalf("merged series of %d points", len(m.Series))
		}
		if err := WriteText(io.Discard, m, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := NewFigure(m); err != nil && !strings.Contains(err.Error(), "nothing to plot") {
			t.Fatalf("a merged report does not plot: %v", err)
		}
	})
}

func slicesConcat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// A report claiming a huge shard count is refused with the first missing
// shards named and the rest counted, not listed one by one.
func TestCheckRunNamesAFewMissingShards(t *testing.T) {
	r, err := ReadReport(bytes.NewReader(shardReport(t, 3, 5_000_000)))
	if err != nil {
		t.Fatal(err)
	}
	n := allocated(func() { err = CheckRun([]*Report{r}, []string{"r"}) })
	if n > 8<<20 {
		t.Errorf("CheckRun took %d MB", n>>20)
	}
	if err == nil || !strings.Contains(err.Error(), "shard 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, and 4999989 more of 5000000 missing") {
		t.Errorf("CheckRun: %v", err)
	}
}
