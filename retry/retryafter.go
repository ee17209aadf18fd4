// Package retry implements the opt-in transient-capacity retry of the
// Shakenfist capacity-refusal contract (shakenfist/shakenfist
// docs/operator_guide/capacity_refusals.md at 0c24a714, "Client-side retry") on
// go-retryablehttp's hooks: which answers are retried, how long to wait, how
// many attempts, and the caller's deadline.
package retry

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	// DefaultWait is used when Retry-After is missing or malformed: the
	// contract's fixed 15 seconds.
	DefaultWait = 15 * time.Second
	// MinWait and MaxWait bound any wait, so a hostile header can neither
	// make the client spin nor park it for an hour.
	MinWait = 1 * time.Second
	MaxWait = 60 * time.Second
	// MaxAttempts caps the requests of one call (1 + 4 retries): every
	// refused create costs the cluster an instance record and IPAM work.
	MaxAttempts = 5
)

// ParseRetryAfter turns the Retry-After header values of an answer into the
// wait before the next attempt: integer seconds, read as client-python
// 74d6e129 reads them (Python int(): an optional sign, so "+5" is 5 s and
// "-60" is clamped to MinWait, as its test_a_hostile_header_is_clamped
// asserts), or an HTTP-date relative to now (RFC 9110 allows it;
// client-python falls back to 15 s there, shakectl honours it). Missing or
// malformed (fractional, garbage, empty, several values) gives DefaultWait;
// the result is always clamped to [MinWait, MaxWait].
func ParseRetryAfter(values []string, now time.Time) time.Duration {
	d, _ := ReadRetryAfter(values, now)
	return d
}

// ReadRetryAfter is ParseRetryAfter that also says when the header was
// there but could not be read (empty, several values, a fraction,
// garbage): unreadable is its text then (the values joined with ", ",
// which may be ""), nil when it was read or absent. The retry line says
// the default was used for it.
func ReadRetryAfter(values []string, now time.Time) (wait time.Duration, unreadable *string) {
	d, ok := parseRetryAfter(values, now)
	if !ok {
		text := strings.Join(values, ", ")
		return d, &text
	}
	return d, nil
}

func parseRetryAfter(values []string, now time.Time) (time.Duration, bool) {
	if len(values) == 0 {
		return DefaultWait, true
	}
	if len(values) != 1 {
		return DefaultWait, false
	}
	v := strings.TrimSpace(values[0])
	if v == "" {
		return DefaultWait, false
	}
	sign, digits := 1, v
	switch v[0] {
	case '+':
		digits = v[1:]
	case '-':
		sign, digits = -1, v[1:]
	}
	if isDigits(digits) {
		// Anything longer than the cap's digits is beyond either bound;
		// this also keeps huge numbers from overflowing the conversion.
		if len(strings.TrimLeft(digits, "0")) > 6 {
			return Clamp(time.Duration(sign) * 2 * MaxWait), true
		}
		n, _ := strconv.Atoi(digits)
		return Clamp(time.Duration(sign*n) * time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return Clamp(t.Sub(now)), true
	}
	return DefaultWait, false
}

// Clamp bounds a wait to [MinWait, MaxWait].
func Clamp(d time.Duration) time.Duration {
	return min(max(d, MinWait), MaxWait)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
