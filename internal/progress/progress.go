// Package progress reports a transfer's progress: a bar on a terminal
// (bytes, rate, time left), JSON lines for -o json, or nothing. It owns
// no clock: the caller passes one, so tests decide what time it is. On
// stderr, a meter is one of the notifier's kinds (output.Notifier.Meter),
// which decides its mode and hands it its stream.
package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/output/termtext"
)

// Mode is how progress is shown.
type Mode int

const (
	// None shows nothing: piped output, --quiet.
	None Mode = iota
	// Bar redraws one line on a terminal.
	Bar
	// JSON writes one JSON object a line, at each whole percent and at
	// the end, for -o json.
	JSON
)

// Choose is the mode for a command: quiet wins, then -o json, then a
// terminal on w.
func Choose(quiet, jsonOutput, terminal bool) Mode {
	switch {
	case quiet:
		return None
	case jsonOutput:
		return JSON
	case terminal:
		return Bar
	}
	return None
}

// barEvery is how often the bar is redrawn at most.
const barEvery = 100 * time.Millisecond

// Meter reports one transfer. Update may be called from one goroutine at
// a time; Meter serialises its own writes.
type Meter struct {
	mu     sync.Mutex
	w      io.Writer
	mode   Mode
	op     string
	name   string
	total  int64
	now    func() time.Time
	start  time.Time
	from   int64
	drawn  time.Time
	pct    int
	width  int
	closed bool
}

// New starts a meter for op ("upload", "download", "checksum") of name,
// total bytes (0 if unknown), from bytes already done (a resume).
func New(w io.Writer, mode Mode, op, name string, total, from int64, now func() time.Time) *Meter {
	if now == nil {
		now = time.Now
	}
	m := &Meter{w: w, mode: mode, op: op, name: name, total: total, now: now, start: now(), from: from, pct: -1, width: 120}
	return m
}

// Line is one JSON progress line.
type Line struct {
	Progress string  `json:"progress"`
	Name     string  `json:"name"`
	Bytes    int64   `json:"bytes"`
	Total    int64   `json:"total,omitempty"`
	Percent  int     `json:"percent"`
	Rate     float64 `json:"bytes_per_second"`
	Done     bool    `json:"done,omitempty"`
}

func (m *Meter) rate(done int64) float64 {
	el := m.now().Sub(m.start).Seconds()
	if el <= 0 {
		return 0
	}
	return float64(done-m.from) / el
}

func (m *Meter) percent(done int64) int {
	if m.total <= 0 {
		return 0
	}
	return int(done * 100 / m.total)
}

// Update reports done bytes.
func (m *Meter) Update(done int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	switch m.mode {
	case JSON:
		if p := m.percent(done); p != m.pct {
			m.pct = p
			m.json(done, false)
		}
	case Bar:
		if t := m.now(); t.Sub(m.drawn) >= barEvery {
			m.drawn = t
			m.bar(done)
		}
	}
}

// Finish reports the end: the last line, and a newline after a bar. ok
// false (a failed or interrupted transfer) leaves the bar where it was.
func (m *Meter) Finish(done int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	switch m.mode {
	case JSON:
		if ok {
			m.json(done, true)
		}
	case Bar:
		m.bar(done)
		fmt.Fprintln(m.w)
	}
}

func (m *Meter) json(done int64, final bool) {
	b, _ := json.Marshal(Line{Progress: m.op, Name: m.name, Bytes: done, Total: m.total, Percent: m.percent(done), Rate: m.rate(done), Done: final})
	// The name may be the server's (a blob's); C1 controls are escaped.
	fmt.Fprintf(m.w, "%s\n", termtext.JSON(b))
}

func (m *Meter) bar(done int64) {
	rate := m.rate(done)
	var b strings.Builder
	b.WriteString(Size(done))
	if m.total > 0 {
		fmt.Fprintf(&b, " / %s %3d%%", Size(m.total), m.percent(done))
		const cells = 20
		filled := int(done * cells / m.total)
		b.WriteString(" [" + strings.Repeat("=", filled) + strings.Repeat(" ", cells-filled) + "]")
	}
	if rate > 0 {
		fmt.Fprintf(&b, "  %s/s", Size(int64(rate)))
		if m.total > 0 && done < m.total {
			left := time.Duration(float64(m.total-done) / rate * float64(time.Second))
			fmt.Fprintf(&b, "  %s left", left.Round(time.Second))
		}
	}
	figures := b.String()
	// A long name is shortened from the left, not the line from the
	// right: the figures (rate, time left) are what the bar is for, and
	// a path's end is the part that tells files apart.
	// The name may be a path or the server's text: it goes through the one
	// sanitiser, so the bar's own \r and ESC [K are the only controls on
	// the line.
	name := []rune(termtext.Line(m.name))
	room := m.width - 1 - len(m.op) - 1 - 2 - len(figures)
	if len(name) > room {
		if room < 2 {
			name = nil
		} else {
			name = append([]rune("…"), name[len(name)-(room-1):]...)
		}
	}
	line := m.op + " " + string(name) + "  " + figures
	// \r and clear to the end of the line: the bar is redrawn in place.
	fmt.Fprintf(m.w, "\r%s\x1b[K", line)
}

// Size is a byte count for people, binary units, one decimal.
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for v := n / unit; v >= unit && exp < 5; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
