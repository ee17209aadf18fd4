package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/output/termtext"
)

// Painter colours text for a terminal; output.ColourScheme satisfies it.
type Painter interface {
	Red(string) string
	Green(string) string
	Yellow(string) string
	Gray(string) string
	Bold(string) string
}

// safe is the one terminal-text sanitiser (output/termtext): a report's
// strings come from servers (bodies, statusz, metrics) and, for merge, from
// files anyone could have written, and a control sequence in them could
// retitle the terminal or forge a verdict.
func safe(s string) string { return termtext.Line(s) }

type noPaint struct{}

func (noPaint) Red(s string) string    { return s }
func (noPaint) Green(s string) string  { return s }
func (noPaint) Yellow(s string) string { return s }
func (noPaint) Gray(s string) string   { return s }
func (noPaint) Bold(s string) string   { return s }

// WriteText renders the report for people: a summary line, the outcome
// table (aligned; only outcomes that occurred), the router's view, and the
// checks with ✓/✗. A nil painter writes no colour.
func WriteText(w io.Writer, r *Report, p Painter) error {
	if p == nil {
		p = noPaint{}
	}
	var b strings.Builder
	b.WriteString(p.Bold("parking-probe " + describeLoad(r)))
	b.WriteString("\n")
	fmt.Fprintf(&b, "started %s, ran %s, %d requests, in flight peak %d",
		r.StartedAt.Format(time.RFC3339), FormatDuration(time.Duration(r.DurationSeconds*float64(time.Second))), r.Requests, r.InFlightPeak)
	if r.Interrupted {
		b.WriteString(" " + p.Yellow("(interrupted: partial results)"))
	}
	b.WriteString("\n")
	if len(r.Sources) > 0 {
		fmt.Fprintf(&b, "merged from %s\n", safe(strings.Join(r.Sources, ", ")))
	}
	if l := r.shardLine(); l != "" {
		b.WriteString(safe(l) + "\n")
	}
	b.WriteString("\n")
	writeOutcomeTable(&b, r, p)

	if r.AchievedRate != nil {
		b.WriteString("\n")
		fmt.Fprintf(&b, "rate: target %s req/s, achieved %s req/s", trimFloat(r.Load.Rate), trimFloat(*r.AchievedRate))
		if l := r.SendLateness; l != nil {
			fmt.Fprintf(&b, "; send lateness p50 %s, p99 %s, max %s", fmtSec(l.P50), fmtSec(l.P99), fmtSec(l.Max))
		}
		b.WriteString("\n")
	}
	writeRouterView(&b, r)

	if len(r.Checks) > 0 {
		b.WriteString("\nchecks:\n")
		width := 0
		for _, c := range r.Checks {
			width = max(width, len(c.Name))
		}
		for _, c := range r.Checks {
			name := c.Name + strings.Repeat(" ", width-len(c.Name))
			switch c.Status {
			case CheckOK:
				fmt.Fprintf(&b, "  %s %s  %s\n", p.Green("✓"), safe(name), safe(c.Detail))
			case CheckFailed:
				fmt.Fprintf(&b, "  %s %s  %s\n", p.Red("✗"), p.Red(safe(name)), safe(c.Detail))
			default:
				fmt.Fprintf(&b, "  %s %s  %s\n", p.Gray("-"), p.Gray(safe(name)), p.Gray("skipped: "+safe(c.Detail)))
			}
		}
		if f := r.Failed(); len(f) > 0 {
			fmt.Fprintf(&b, "%s\n", p.Red(fmt.Sprintf("%d of %d checks failed", len(f), len(r.Checks))))
		} else {
			fmt.Fprintf(&b, "%s\n", p.Green("all checks passed"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func describeLoad(r *Report) string {
	var shape string
	switch r.Mode {
	case ModeBurst:
		shape = fmt.Sprintf("burst of %d", r.Load.Requests)
	case ModeClosed:
		shape = fmt.Sprintf("closed, %d workers for %s", r.Load.Concurrency, fmtSec(r.Load.DurationSeconds))
	case ModeOpen:
		shape = fmt.Sprintf("open, %s req/s for %s", trimFloat(r.Load.Rate), fmtSec(r.Load.DurationSeconds))
	default:
		shape = safe(r.Mode)
	}
	return fmt.Sprintf("%s → %s (%d actors, %s, seed %d)", shape, safe(r.Target), r.Load.Actors, safe(r.Load.Distribution), r.Load.Seed)
}

func fmtSec(s float64) string { return FormatDuration(time.Duration(s * float64(time.Second))) }

func outcomePaint(p Painter, o Outcome, s string) string {
	switch o {
	case Served:
		return p.Green(s)
	case Shed, BudgetExhausted, Unavailable, ClientTimeout:
		return p.Yellow(s)
	case NotFound, Unauthenticated, PermissionDenied, Other:
		return s
	}
	return p.Red(s)
}

func writeOutcomeTable(b *strings.Builder, r *Report, p Painter) {
	header := []string{"OUTCOME", "COUNT", "SHARE", "P50", "P90", "P99", "MAX"}
	rows := [][]string{}
	var outs []Outcome
	for _, o := range AllOutcomes() {
		s := r.Stats(o)
		if s.Count == 0 {
			continue
		}
		row := []string{o.String(), fmt.Sprint(s.Count), fmtShare(s.Ratio), "", "", "", ""}
		if l := s.Latency; l != nil {
			row[3], row[4], row[5], row[6] = fmtSec(l.P50), fmtSec(l.P90), fmtSec(l.P99), fmtSec(l.Max)
		}
		rows = append(rows, row)
		outs = append(outs, o)
	}
	if len(rows) == 0 {
		b.WriteString("no requests were sent\n")
		return
	}
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	line := func(cells []string, paint func(int, string) string) {
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(paint(i, c) + pad)
			} else {
				b.WriteString("  " + pad + paint(i, c))
			}
		}
		b.WriteString("\n")
	}
	line(header, func(_ int, s string) string { return p.Bold(s) })
	for k, row := range rows {
		o := outs[k]
		line(row, func(i int, s string) string {
			if i == 0 {
				return outcomePaint(p, o, s)
			}
			return s
		})
	}
	for _, o := range outs {
		d := r.Stats(o).Details
		if len(d) == 0 {
			continue
		}
		fmt.Fprintf(b, "  %s: %s\n", o, formatDetails(d))
	}
	if r.ServedLate > 0 {
		fmt.Fprintf(b, "  served: %d after the park budget (served late)\n", r.ServedLate)
	}
}

func fmtShare(f float64) string {
	return fmt.Sprintf("%.1f%%", f*100)
}

func formatDetails(d map[string]int64) string {
	type kv struct {
		k string
		v int64
	}
	var list []kv
	for k, v := range d {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].v != list[j].v {
			return list[i].v > list[j].v
		}
		return list[i].k < list[j].k
	})
	var parts []string
	for i, e := range list {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("… %d more", len(list)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", safe(e.k), e.v))
	}
	return strings.Join(parts, ", ")
}

func writeRouterView(b *strings.Builder, r *Report) {
	if m := r.Metrics; m != nil {
		who, active := "router", "parking_active"
		if r.Dataplane() == DataplaneAgentgateway {
			who, active = "agentgateway", "parking permits"
		}
		fmt.Fprintf(b, "\n%s metrics (%s):\n", who, safe(m.URL))
		var parts []string
		if m.RejectedDelta != nil && who != "agentgateway" {
			parts = append(parts, fmt.Sprintf("parking_rejected +%s", formatFloat(*m.RejectedDelta)))
		}
		if m.ActivePeak != nil {
			s := fmt.Sprintf("%s highest scraped %s", active, formatFloat(*m.ActivePeak))
			if m.After != nil {
				s += fmt.Sprintf(", %s after", formatFloat(val(m.After.ParkingActive)))
			}
			parts = append(parts, s)
		}
		if len(parts) > 0 {
			fmt.Fprintf(b, "  %s\n", strings.Join(parts, "; "))
		}
		if len(m.WaitDelta) > 0 {
			var keys []string
			for k := range m.WaitDelta {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var ws []string
			for _, k := range keys {
				w := m.WaitDelta[k]
				mean := ""
				if w.Count > 0 {
					mean = fmt.Sprintf(" (mean %s)", fmtSec(w.SumSeconds/w.Count))
				}
				ws = append(ws, fmt.Sprintf("%s %s%s", safe(k), formatFloat(w.Count), mean))
			}
			fmt.Fprintf(b, "  parking wait: %s\n", strings.Join(ws, ", "))
		}
		if m.ScrapeErrors > 0 {
			fmt.Fprintf(b, "  %d scrapes failed", m.ScrapeErrors)
			if m.LastError != "" {
				fmt.Fprintf(b, " (last: %s)", safe(m.LastError))
			}
			b.WriteString("\n")
		}
	}
	if s := r.Statusz; s != nil {
		fmt.Fprintf(b, "\nrouter statusz (%s):\n", safe(s.URL))
		if s.NoParkingCard {
			// atenet main: statusz without a parking card.
			b.WriteString("  no parking card: this router does not park requests\n")
		}
		if why := r.parkingOffReason(); why != "" {
			// 6210ad86 --parked-request-max=0, PR #221
			// --parking-enabled=false: the card shows a max wait it was
			// configured with, which does not apply.
			fmt.Fprintf(b, "  parking is OFF (%s): the router parks nothing; the checks about parking are not judged\n", why)
		}
		for _, e := range []struct {
			when string
			p    *StatuszParking
		}{{"before", s.Before}, {"after", s.After}} {
			if e.p == nil && s.NoParkingCard {
				continue
			}
			if e.p == nil {
				fmt.Fprintf(b, "  %s: unavailable\n", e.when)
				continue
			}
			fmt.Fprintf(b, "  %s: %s\n", e.when, describeParking(e.p))
		}
		if s.ActivePeak != nil {
			fmt.Fprintf(b, "  active, highest scraped %s\n", formatFloat(*s.ActivePeak))
		}
	}
}

func describeParking(p *StatuszParking) string {
	var parts []string
	if p.Enabled != nil {
		if *p.Enabled {
			parts = append(parts, "parking enabled")
		} else {
			parts = append(parts, "parking disabled")
		}
	}
	if p.Active != nil {
		s := "active " + formatFloat(*p.Active)
		if p.MaxParked != nil {
			s += " of " + formatFloat(*p.MaxParked)
		}
		parts = append(parts, s)
	}
	if len(p.MaxWait) > 0 && string(p.MaxWait) != "null" {
		// The router may write seconds or a duration string.
		if secs, err := strconv.ParseFloat(string(p.MaxWait), 64); err == nil {
			parts = append(parts, "max wait "+fmtSec(secs))
		} else {
			parts = append(parts, "max wait "+safe(strings.Trim(string(p.MaxWait), `"`)))
		}
	}
	if len(parts) == 0 {
		return "(empty card)"
	}
	return strings.Join(parts, ", ")
}
