package retry

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name   string
		values []string
		want   time.Duration
	}{
		{"the contract's 15", []string{"15"}, 15 * time.Second},
		{"missing", nil, DefaultWait},
		{"empty", []string{""}, DefaultWait},
		{"blank", []string{"   "}, DefaultWait},
		{"spaces around", []string{" 20 "}, 20 * time.Second},
		{"zero is raised to the floor", []string{"0"}, MinWait},
		{"one", []string{"1"}, time.Second},
		{"sixty", []string{"60"}, MaxWait},
		{"sixty-one is cut to the cap", []string{"61"}, MaxWait},
		{"9999", []string{"9999"}, MaxWait},
		{"huge number", []string{"99999999999999999999999999"}, MaxWait},
		{"leading zeros", []string{"0007"}, 7 * time.Second},
		// Signed integers are read as client-python 74d6e129 reads them
		// (Python int()) and clamped: test_a_hostile_header_is_clamped
		// asserts -60 -> 1 s.
		{"negative is raised to the floor", []string{"-60"}, MinWait},
		{"minus one", []string{"-1"}, MinWait},
		{"minus zero", []string{"-0"}, MinWait},
		{"huge negative", []string{"-99999999999999999999"}, MinWait},
		{"plus sign", []string{"+5"}, 5 * time.Second},
		{"plus sign over the cap", []string{"+600"}, MaxWait},
		{"sign alone", []string{"-"}, DefaultWait},
		{"two signs", []string{"+-5"}, DefaultWait},
		{"negative fraction", []string{"-1.5"}, DefaultWait},
		{"space after the sign", []string{"- 5"}, DefaultWait},
		{"fraction", []string{"12.5"}, DefaultWait},
		{"exponent", []string{"1e3"}, DefaultWait},
		{"hex", []string{"0x10"}, DefaultWait},
		{"word", []string{"soon"}, DefaultWait},
		{"unit", []string{"15s"}, DefaultWait},
		{"list in one value", []string{"5, 10"}, DefaultWait},
		{"several values", []string{"5", "10"}, DefaultWait},
		{"unicode digits", []string{"١٥"}, DefaultWait},
		{"NUL", []string{"1\x005"}, DefaultWait},
		{"date 20s ahead", []string{date(20 * time.Second)}, 20 * time.Second},
		{"date in the past", []string{date(-time.Hour)}, MinWait},
		{"date an hour ahead", []string{date(time.Hour)}, MaxWait},
		{"RFC 850 date", []string{now.Add(30 * time.Second).Format(time.RFC850)}, 30 * time.Second},
		{"ANSI C date", []string{now.Add(45 * time.Second).Format(time.ANSIC)}, 45 * time.Second},
		{"ISO date is not an HTTP-date", []string{now.Add(30 * time.Second).Format(time.RFC3339)}, DefaultWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseRetryAfter(tt.values, now); got != tt.want {
				t.Errorf("ParseRetryAfter(%q) = %s, want %s", tt.values, got, tt.want)
			}
		})
	}
}

func TestClamp(t *testing.T) {
	tests := []struct{ in, want time.Duration }{
		{-time.Hour, MinWait},
		{0, MinWait},
		{time.Millisecond, MinWait},
		{time.Second, time.Second},
		{30 * time.Second, 30 * time.Second},
		{time.Minute, time.Minute},
		{time.Minute + 1, MaxWait},
		{1<<63 - 1, MaxWait},
		{-1 << 63, MinWait},
	}
	for _, tt := range tests {
		if got := Clamp(tt.in); got != tt.want {
			t.Errorf("Clamp(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"15", "0", "61", "9999", "-1", "-60", "+5", "+", "-", "12.5", "soon", "", " ", "1e9",
		"99999999999999999999", "Sun, 29 Nov 2026 12:00:20 GMT", "Mon, 01 Jan 0001 00:00:00 GMT",
		"Fri, 31 Dec 9999 23:59:59 GMT", "5,10", "\x00", "１５"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, v string, twice bool) {
		values := []string{v}
		if twice {
			values = append(values, v)
		}
		got := ParseRetryAfter(values, now)
		if got < MinWait || got > MaxWait {
			t.Fatalf("ParseRetryAfter(%q) = %s, outside [%s, %s]", values, got, MinWait, MaxWait)
		}
		if twice && got != DefaultWait {
			t.Fatalf("several values %q gave %s, want the default %s", values, got, DefaultWait)
		}
		if t2 := strings.TrimSpace(v); len(t2) > 1 && t2[0] == '-' && isDigits(t2[1:]) && !twice && got != MinWait {
			t.Fatalf("negative %q gave %s, want the floor %s", v, got, MinWait)
		}
	})
}

func TestNoticeString(t *testing.T) {
	tests := []struct {
		n    Notice
		want string
	}{
		{Notice{Stage: "sufficient_idle_cpu", Wait: 15 * time.Second, Attempt: 2, Max: 5, Left: 44 * time.Second},
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 44s left)"},
		{Notice{Stage: "capacity_guard", Wait: 300 * time.Millisecond, Attempt: 5, Max: 5, Left: 300 * time.Millisecond},
			"capacity refused at stage capacity_guard (transient); retrying in 300ms (attempt 5/5, 300ms left)"},
		{Notice{Stage: "queue_state", Wait: 60 * time.Second, Attempt: 3, Max: 5, Left: 59*time.Minute + 12*time.Second},
			"capacity refused at stage queue_state (transient); retrying in 1m0s (attempt 3/5, 59m12s left)"},
		// A few milliseconds into a 60 s budget: the time left is rounded
		// down, never up to a minute that is no longer there.
		{Notice{Stage: "sufficient_idle_cpu", Wait: time.Second, Attempt: 2, Max: 5, Left: 60*time.Second - 3*time.Millisecond},
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, 59s left)"},
		// A wait cut to what is left of the budget reads as that budget.
		{Notice{Stage: "sufficient_idle_cpu", Wait: 3*time.Second - 3*time.Millisecond, Attempt: 2, Max: 5, Left: 3*time.Second - 3*time.Millisecond},
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 2s (attempt 2/5, 2s left)"},
	}
	for _, tt := range tests {
		if got := tt.n.String(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}
