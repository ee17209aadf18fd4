package retry

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Issue 34, item 10: a Retry-After that is there but cannot be read (or
// is empty) is
// named on the retry line and in its JSON event, with the default used;
// a readable or absent one adds nothing.
func TestUnreadableRetryAfterIsSaid(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		values     []string
		wait       time.Duration
		unreadable string
	}{
		{nil, DefaultWait, ""},
		{[]string{"7"}, 7 * time.Second, ""},
		{[]string{"soon"}, DefaultWait, "soon"},
		{[]string{"1.5"}, DefaultWait, "1.5"},
		{[]string{"5", "6"}, DefaultWait, "5, 6"},
		{[]string{""}, DefaultWait, `""`},
		{[]string{"  "}, DefaultWait, `"  "`},
	} {
		wait, unreadable := ReadRetryAfter(tt.values, now)
		got := ""
		if unreadable != nil {
			got = *unreadable
			if got == "" || strings.TrimSpace(got) == "" {
				got = strconv.Quote(got)
			}
		}
		if wait != tt.wait || got != tt.unreadable {
			t.Errorf("%q: %s %q, want %s %q", tt.values, wait, got, tt.wait, tt.unreadable)
		}
	}
	soon := "soon"
	n := Notice{Stage: "sufficient_idle_cpu", Wait: DefaultWait, Attempt: 2, Max: MaxAttempts, Left: 44 * time.Second, UnreadableRetryAfter: &soon}
	if want := `capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 44s left; Retry-After "soon" unreadable, the 15s default used)`; n.String() != want {
		t.Errorf("line %q\nwant %q", n.String(), want)
	}
	if want := `{"event":"retry","stage":"sufficient_idle_cpu","wait_seconds":15,"attempt":2,"max_attempts":5,"left_seconds":44,"unreadable_retry_after":"soon","message":"capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 44s left; Retry-After \"soon\" unreadable, the 15s default used)"}`; n.JSON() != want {
		t.Errorf("JSON %s\nwant %s", n.JSON(), want)
	}
	// An empty header is there and unread as much as garbage is.
	empty := ""
	n.UnreadableRetryAfter = &empty
	if want := `capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 44s left; Retry-After "" empty, the 15s default used)`; n.String() != want {
		t.Errorf("line %q\nwant %q", n.String(), want)
	}
	if want := `"unreadable_retry_after":""`; !strings.Contains(n.JSON(), want) {
		t.Errorf("JSON %s\nwant %s in it", n.JSON(), want)
	}
}
