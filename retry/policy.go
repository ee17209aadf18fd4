package retry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Classifier tells whether an answer is a transient capacity refusal and at
// which stage. The client supplies it, so the 507 body is read by one parser
// (client.NewAPIError) and this package stays free of the client's types.
type Classifier func(status int, header http.Header, body []byte) (stage string, transient bool)

// Policy is the configuration of the transient-capacity retry. A zero
// Policy (Enabled false) sends every request exactly once.
type Policy struct {
	// Enabled is --retry-transient-capacity.
	Enabled bool
	// Budget bounds the sleeping of one call: each wait is
	// min(Retry-After, Budget - elapsed) and with nothing left the call
	// stops. The request sent after the last sleep keeps its own
	// per-request timeout, so a call may end one round trip after Budget.
	Budget time.Duration
	// Notify is called once before each wait.
	Notify func(Notice)
	// Wait, when positive, replaces the server's Retry-After hint (still
	// clamped to [MinWait, MaxWait] and cut to the budget left): the
	// "different retry delay" that shakenfist capacity_refusals.md
	// (0c24a714) puts in operator tooling
	// (`shakectl proxy --retry-wait`). Zero follows the server.
	Wait time.Duration
	// Classify decides which 507s are transient; nil retries nothing.
	Classify Classifier
	// Method and Path are the call's request, Path relative to the API
	// root ("/instances", no /api prefix): a transient refusal is
	// replayed only when Replayable(Method, Path) says so. The zero
	// value is on no list, so a Policy that does not say what it sends
	// replays nothing.
	Method, Path string
	// Now is the wall clock for Retry-After HTTP-dates; nil is time.Now.
	// The budget itself is measured on the monotonic clock.
	Now func() time.Time
	// ReadLimit bounds how much of a 507 body is read to classify it.
	ReadLimit int64
	// Log receives one debug line per retry decision; nil is silent.
	Log func(string)
}

// Call is the state of one API call under a Policy: its start, the number of
// requests sent, the next wait. Its methods are go-retryablehttp's hooks; a
// fresh Call serves each API call, so the budget is per call and nothing is
// shared between concurrent calls; the repeats of one call (a 406 answered
// "not ready yet") go through the same Call, and so share its start, its
// budget and its refusal count (client-python 74d6e129 _request_url keeps
// one deadline and one counter across both loops).
type Call struct {
	p        Policy
	start    time.Time
	attempts atomic.Int32
	// refused counts the transient refusals of the call. The attempt cap
	// applies to them, as client-python 74d6e129's transient_attempts
	// does: a call that also repeats a 406 (its network not ready yet)
	// shares this Call, so the 406 repeats neither reset the count nor
	// use it up.
	refused  atomic.Int32
	next     Notice
	bodySum  [32]byte
	hasSum   bool
	endedAt  atomic.Int64 // nanoseconds since start, set by Finish
	finished atomic.Bool
}

// NewCall starts a call now.
func (p Policy) NewCall() *Call {
	if p.ReadLimit <= 0 {
		p.ReadLimit = 64 << 10
	}
	return &Call{p: p, start: time.Now()}
}

// Client returns a go-retryablehttp client wired to this call's hooks and
// sending through hc (whose Timeout bounds each attempt).
func (c *Call) Client(hc *http.Client) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient: hc,
		// The library's logger would print to stderr in its own format;
		// the client's --debug lines cover every attempt instead.
		Logger: nil,
		// RetryMax is a backstop: CheckRetry itself stops at MaxAttempts.
		RetryMax:     MaxAttempts - 1,
		CheckRetry:   c.CheckRetry,
		Backoff:      c.Backoff,
		ErrorHandler: c.ErrorHandler,
		PrepareRetry: c.PrepareRetry,
	}
}

// Attempts is the number of requests this call has sent (answered or not).
func (c *Call) Attempts() int { return int(c.attempts.Load()) }

// Attempt is the number of the request being sent now (1-based), for debug
// lines.
func (c *Call) Attempt() int { return c.Attempts() + 1 }

// Enabled reports whether this call may retry at all.
func (c *Call) Enabled() bool { return c.p.Enabled }

// Elapsed is how long the call has taken so far (or took, once Finish was
// called).
func (c *Call) Elapsed() time.Duration {
	if c.finished.Load() {
		return time.Duration(c.endedAt.Load())
	}
	return time.Since(c.start)
}

// Finish freezes Elapsed.
func (c *Call) Finish() {
	if c.finished.CompareAndSwap(false, true) {
		c.endedAt.Store(int64(time.Since(c.start)))
	}
}

// SetBody records the request body so that every retry can be checked to
// replay exactly the same bytes.
func (c *Call) SetBody(body []byte) {
	c.bodySum = sha256.Sum256(body)
	c.hasSum = true
}

func (c *Call) now() time.Time {
	if c.p.Now != nil {
		return c.p.Now()
	}
	return time.Now()
}

func (c *Call) logf(format string, a ...any) {
	if c.p.Log != nil {
		c.p.Log(fmt.Sprintf(format, a...))
	}
}

// Answer is an answer to one of a call's requests, as the caller read and
// classified it: the proxy reads a refusal itself, because it hands the
// body on byte for byte.
type Answer struct {
	// Status is the HTTP status; 0 when there was no answer.
	Status int
	Header http.Header
	// Stage and Transient are the body as the Classifier reads it.
	Stage     string
	Transient bool
}

// CheckRetry retries exactly one kind of answer: a 507 whose body says
// "transient": true (per Classify) to a request on ReplayableRoutes, while
// fewer than MaxAttempts requests have been sent and some budget is left.
// Transport errors and every other status end the call with that answer —
// unlike retryablehttp's DefaultRetryPolicy, which retries all 5xx and
// connection errors. It reads the 507's body (ReadLimit) and puts it back.
func (c *Call) CheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	var a Answer
	if err == nil && resp != nil {
		a.Status, a.Header = resp.StatusCode, resp.Header
	}
	if c.p.Enabled && a.Status == http.StatusInsufficientStorage && c.p.Classify != nil {
		body, rerr := peekBody(resp, c.p.ReadLimit)
		if rerr != nil {
			// A 507 whose body cannot be read is not known to be transient.
			c.attempts.Add(1)
			c.logf("retry: not retrying: reading the 507 body: %v", rerr)
			return false, nil
		}
		a.Stage, a.Transient = c.p.Classify(a.Status, a.Header, body)
	}
	_, again := c.Check(ctx, a)
	return again, nil
}

// Check counts one request of the call and decides on its answer, as
// CheckRetry does, for a caller that read and classified the answer
// itself: whether to send the request again, and after how long (the
// Retry-After, clamped, cut to the budget left). Announce tells the user
// before the wait.
func (c *Call) Check(ctx context.Context, a Answer) (wait time.Duration, again bool) {
	c.attempts.Add(1)
	if !c.p.Enabled || a.Status != http.StatusInsufficientStorage || !a.Transient {
		return 0, false
	}
	if !Replayable(c.p.Method, c.p.Path) {
		// Marked transient, but its replay could double what the first
		// attempt did (an upload chunk already appended): handed back as
		// it came (client-python#420).
		c.logf("retry: not retrying: %s", NotReplayable(c.p.Method, c.p.Path))
		return 0, false
	}
	r := int(c.refused.Add(1))
	if r >= MaxAttempts {
		c.logf("retry: giving up: %d of %d attempts sent", r, MaxAttempts)
		return 0, false
	}
	left := c.p.Budget - time.Since(c.start)
	if left <= 0 {
		c.logf("retry: giving up: budget of %s spent after %d attempt(s)", HumanDuration(c.p.Budget), r)
		return 0, false
	}
	if ctx.Err() != nil {
		return 0, false
	}
	hint, unreadable := c.RetryAfter(a.Header)
	wait = min(hint, left)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		// The caller's context would end during the sleep, and no request
		// could follow it: end now with the refusal in hand.
		c.logf("retry: giving up: the call's context ends before the %s wait does", HumanDuration(wait))
		return 0, false
	}
	c.next = Notice{Stage: a.Stage, Wait: wait, Attempt: r + 1, Max: MaxAttempts, Left: left, UnreadableRetryAfter: unreadable}
	return wait, true
}

// RetryAfter is the wait a transient refusal with header h asks for under
// this policy: its Retry-After (ReadRetryAfter, on the policy's clock), or
// Policy.Wait in its place; clamped to [MinWait, MaxWait], not cut to the
// budget. unreadable is as ReadRetryAfter says.
func (c *Call) RetryAfter(h http.Header) (wait time.Duration, unreadable *string) {
	if c.p.Wait > 0 {
		return Clamp(c.p.Wait), nil
	}
	return ReadRetryAfter(h.Values("Retry-After"), c.now())
}

// Announce tells of the wait the last check decided on: the debug line
// and Notify, the line on stderr.
func (c *Call) Announce() {
	c.logf("retry: %s", c.next)
	if c.p.Notify != nil {
		c.p.Notify(c.next)
	}
}

// Backoff announces the wait CheckRetry decided on and returns it: the
// Retry-After, clamped, cut to the budget left. retryablehttp's
// DefaultBackoff would ignore a 507's Retry-After and grow exponentially
// instead.
func (c *Call) Backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	c.Announce()
	return c.next.Wait
}

// PrepareRetry checks, before each retry, that the request replays the
// first attempt's body byte for byte (the contract: same instance name,
// same fields). A request whose body cannot be replayed is not resent.
func (c *Call) PrepareRetry(req *http.Request) error {
	if !c.hasSum {
		return nil
	}
	if req.GetBody == nil {
		return errors.New("retry: the request body cannot be replayed")
	}
	rc, err := req.GetBody()
	if err != nil {
		return fmt.Errorf("retry: replaying the request body: %w", err)
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return fmt.Errorf("retry: replaying the request body: %w", err)
	}
	if !bytes.Equal(h.Sum(nil), c.bodySum[:]) {
		return errors.New("retry: the replayed request body differs from the first attempt's")
	}
	return nil
}

// ErrorHandler hands back the last answer itself when the loop stops on a
// response: the caller turns the server's own refusal into its typed error,
// instead of retryablehttp's "giving up after 5 attempt(s)".
func (c *Call) ErrorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	return resp, nil
}

// peekBody reads up to limit bytes of the body and puts them back in front
// of whatever was not read, so the caller still sees the whole answer.
func peekBody(resp *http.Response, limit int64) ([]byte, error) {
	if resp.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	resp.Body = &replayBody{Reader: io.MultiReader(bytes.NewReader(b), resp.Body), Closer: resp.Body}
	return b, err
}

type replayBody struct {
	io.Reader
	io.Closer
}
