package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"
)

// Reading reports out of a log stream: what
//
//	kubectl logs -l job-name=X --tail=-1 --max-log-requests=N [--prefix] [--timestamps]
//
// prints for an Indexed Job's pods. Each probe prints its report as one
// JSON document, indented (-o json) or on one line, among other lines of
// the pod's log (stderr is in the same log: warnings, "waiting until …").
// With --prefix every line starts with "[pod/NAME/CONTAINER] " and pods may
// interleave, so documents are assembled per prefix.

// MaxStreamDocument bounds one document (and one line) of a log stream:
// a report is at most MaxReportBytes; anything larger is dropped and
// reported, not buffered.
const MaxStreamDocument = MaxReportBytes

// StreamLimits bound what ExtractReportsWithin reads and keeps, so a
// stream with no end (merge - < /dev/zero) or one of many huge documents
// ends with an error instead of taking the machine's memory.
type StreamLimits struct {
	// Document bounds one document and one line.
	Document int
	// Held bounds the bytes of the report documents kept and of those
	// still being assembled, together.
	Held int64
	// Stream bounds the bytes read from the stream.
	Stream int64
}

// DefaultStreamLimits are those of ExtractReports: a document of
// MaxReportBytes, 256 MiB of reports held (a few hundred shards of an
// hour's run), 4 GiB of log read.
func DefaultStreamLimits() StreamLimits {
	return StreamLimits{Document: MaxStreamDocument, Held: 256 << 20, Stream: 4 << 30}
}

// StreamLimitError says a log stream passed one of its StreamLimits.
type StreamLimitError struct {
	// What is the stream or the reports it holds; Limit the bound in bytes.
	What  string
	Limit int64
}

func (e *StreamLimitError) Error() string {
	return fmt.Sprintf("%s more than %s: stopped reading (give the reports as files, or fewer at a time)", e.What, fmtBytes(e.Limit))
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// countingReader fails once more than limit bytes were read.
type countingReader struct {
	r        io.Reader
	n, limit int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n > c.limit {
		return 0, &StreamLimitError{What: "the stream holds", Limit: c.limit}
	}
	if rest := c.limit + 1 - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// StreamDoc is a report document found in a log stream.
type StreamDoc struct {
	// Source is the kubectl prefix ("pod/x-0-abc/probe") or "" without one.
	Source string
	// Line is the stream line the document starts on (from 1).
	Line int
	Raw  []byte
}

// Name says where a document was found, for messages.
func (d StreamDoc) Name() string { return streamPlace(d.Source, d.Line) }

// StreamProblem is a report document that could not be read whole:
// truncated (the pod died mid-print, or the log was cut) or malformed.
type StreamProblem struct {
	Source string
	Line   int
	Reason string
}

func (p StreamProblem) Error() string {
	return fmt.Sprintf("%s: %s", streamPlace(p.Source, p.Line), p.Reason)
}

func streamPlace(source string, line int) string {
	if source == "" {
		return fmt.Sprintf("document at line %d", line)
	}
	return fmt.Sprintf("%s (line %d)", source, line)
}

// kubectlPrefix is what kubectl logs --prefix puts before each line;
// compiled on first use, not at start-up (only merge - reads it).
var kubectlPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\[([a-z0-9.-]+/[^\]\s]+)\] `)
})

// pendingDoc is a document being assembled from one source's lines.
type pendingDoc struct {
	line    int
	buf     []byte
	depth   int
	inStr   bool
	escaped bool
	tooBig  bool
}

// ExtractReports reads a log stream and returns the JSON documents in it
// that look like parking-probe reports (they have "outcomes" or a
// parking-probe "schema"), in stream order, and the report documents it
// could not read whole. Other lines, and JSON that is not a report, are
// skipped. The error is a read error of r or a *StreamLimitError (of
// DefaultStreamLimits), with what was found before it.
func ExtractReports(r io.Reader) ([]StreamDoc, []StreamProblem, error) {
	return ExtractReportsWithin(r, DefaultStreamLimits())
}

// ExtractReportsWithin is ExtractReports within other limits.
func ExtractReportsWithin(r io.Reader, lim StreamLimits) ([]StreamDoc, []StreamProblem, error) {
	br := bufio.NewReaderSize(&countingReader{r: r, limit: lim.Stream}, 64<<10)
	maxDoc := lim.Document
	pending := map[string]*pendingDoc{}
	var docs []StreamDoc
	var problems []StreamProblem
	// held counts the bytes of docs and of the pending buffers.
	var held int64
	drop := func(source string, p *pendingDoc) {
		delete(pending, source)
		held -= int64(len(p.buf))
	}
	finish := func(source string, p *pendingDoc) {
		drop(source, p)
		if p.tooBig {
			problems = append(problems, StreamProblem{source, p.line, fmt.Sprintf("document larger than %s, skipped", fmtBytes(int64(maxDoc)))})
			return
		}
		if !json.Valid(p.buf) {
			if looksLikeReport(p.buf) {
				problems = append(problems, StreamProblem{source, p.line, "malformed JSON report"})
			}
			return
		}
		if isReport(p.buf) {
			held += int64(len(p.buf))
			docs = append(docs, StreamDoc{Source: source, Line: p.line, Raw: p.buf})
		}
	}
	truncated := func(source string, p *pendingDoc, why string) {
		if p.tooBig {
			finish(source, p)
			return
		}
		drop(source, p)
		if looksLikeReport(p.buf) {
			problems = append(problems, StreamProblem{source, p.line, "truncated report: " + why})
		}
	}
	tooBig := func(p *pendingDoc) {
		held -= int64(len(p.buf))
		p.tooBig, p.buf = true, nil
	}
	// grow appends b to p's buffer within the limits.
	grow := func(p *pendingDoc, b ...[]byte) error {
		n := 0
		for _, x := range b {
			n += len(x)
		}
		if len(p.buf)+n > maxDoc {
			tooBig(p)
			return nil
		}
		if held+int64(n) > lim.Held {
			return &StreamLimitError{What: "the reports in the stream hold", Limit: lim.Held}
		}
		for _, x := range b {
			p.buf = append(p.buf, x...)
		}
		held += int64(n)
		return nil
	}
	lineNo := 0
	for {
		line, tooLong, err := readLine(br, maxDoc)
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return docs, problems, err
		}
		lineNo++
		source := ""
		if m := kubectlPrefix().FindSubmatchIndex(line); m != nil {
			source = string(line[m[2]:m[3]])
			line = line[m[1]:]
		}
		line = stripTimestamp(line)
		p := pending[source]
		if tooLong {
			if p != nil {
				tooBig(p)
				continue
			}
			if len(line) > 0 && line[0] == '{' {
				problems = append(problems, StreamProblem{source, lineNo, fmt.Sprintf("line longer than %s, skipped", fmtBytes(int64(maxDoc)))})
			}
			continue
		}
		// A document starts with "{" at the start of a line; an indented
		// one's inner objects never do, so a new one there means the
		// previous one was cut off.
		if len(line) > 0 && line[0] == '{' {
			if p != nil {
				truncated(source, p, "a new document starts before it ends")
			}
			p = &pendingDoc{line: lineNo}
			pending[source] = p
		}
		if p == nil {
			continue
		}
		end, ok := p.feed(line)
		var gerr error
		switch {
		case !ok:
			// A raw newline inside a string: not JSON as a probe prints it.
			if !p.tooBig {
				gerr = grow(p, line)
			}
			if gerr == nil {
				truncated(source, p, "a line ends inside a string")
			}
		case end >= 0:
			if !p.tooBig {
				gerr = grow(p, line[:end])
			}
			if gerr == nil {
				finish(source, p)
			}
		case !p.tooBig:
			gerr = grow(p, line, []byte{'\n'})
		}
		if gerr != nil {
			return docs, problems, gerr
		}
	}
	for source, p := range pending {
		truncated(source, p, "the stream ends inside it")
	}
	sortProblems(problems)
	return docs, problems, nil
}

// feed scans a line of the document: end is the offset just past the
// closing brace of the top-level object (-1 while it is still open); ok is
// false when the line ends inside a string.
func (p *pendingDoc) feed(line []byte) (end int, ok bool) {
	for i, c := range line {
		switch {
		case p.inStr:
			switch {
			case p.escaped:
				p.escaped = false
			case c == '\\':
				p.escaped = true
			case c == '"':
				p.inStr = false
			}
		case c == '"':
			p.inStr = true
		case c == '{' || c == '[':
			p.depth++
		case c == '}' || c == ']':
			p.depth--
			if p.depth <= 0 {
				return i + 1, true
			}
		}
	}
	return -1, !p.inStr
}

// readLine reads one line without its line ending; a line longer than
// maxLine is consumed whole and returned cut, with tooLong.
func readLine(br *bufio.Reader, maxLine int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > maxLine {
				// Keep the head: its prefix names the source and its
				// first byte says whether a document started.
				tooLong = true
				line = line[:min(len(line), 512)]
			} else {
				line = append(line, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if tooLong && len(line) == 0 {
			line = []byte{' '}
		}
		return line, tooLong, err
	}
}

// stripTimestamp drops the RFC 3339 time kubectl logs --timestamps puts
// first on a line.
func stripTimestamp(line []byte) []byte {
	if len(line) < 21 || line[0] < '0' || line[0] > '9' {
		return line
	}
	sp := bytes.IndexByte(line, ' ')
	if sp < 20 || sp > 40 {
		return line
	}
	if _, err := time.Parse(time.RFC3339Nano, string(line[:sp])); err != nil {
		return line
	}
	return line[sp+1:]
}

// isReport says a whole JSON document is a parking-probe report rather
// than another program's JSON log line.
func isReport(raw []byte) bool {
	var head struct {
		Schema   *string         `json:"schema"`
		Outcomes json.RawMessage `json:"outcomes"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return false
	}
	if head.Schema != nil {
		return bytes.HasPrefix([]byte(*head.Schema), []byte("parking-probe"))
	}
	return head.Outcomes != nil
}

// looksLikeReport says a document that is not whole was probably a
// report, so losing it is worth saying.
func looksLikeReport(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"schema": "parking-probe`)) || bytes.Contains(raw, []byte(`"schema":"parking-probe`)) ||
		bytes.Contains(raw, []byte(`"outcomes"`)) || bytes.Contains(raw, []byte(`"run_id"`))
}

func sortProblems(ps []StreamProblem) {
	// Stream order: the map of pending documents is drained in any order.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Line < ps[j-1].Line; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}
