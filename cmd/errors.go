package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// DescribeError turns an error into what the user reads: one line of
// message, a hint where one helps, and the facts a program wants with -o json
// (status, stage, transient, attempts, elapsed_seconds, request_id).
func DescribeError(err error) output.ErrorReport {
	r := output.ErrorReport{Message: err.Error()}
	var (
		apiErr    *client.APIError
		capacity  *client.CapacityRefusal
		usage     *UsageError
		transport *client.TransportError
		respErr   *client.ResponseError
		failed    *InstanceFailedError
		waited    *WaitTimeoutError
	)
	switch {
	case errors.Is(err, ErrInterrupted):
		r.Message = "interrupted"
	case errors.As(err, &usage):
		r.Message = usage.Msg
		if !strings.Contains(usage.Msg, configHowTo) {
			r.Hint = "see --help for usage"
		}
	case errors.As(err, &apiErr):
		describeAPIError(&r, apiErr)
		if errors.As(err, &capacity) {
			r.Stage = capacity.Stage
			t := capacity.Transient
			r.Transient = &t
			r.Hint = capacityHint(capacity, apiErr)
		}
	case errors.As(err, &waited):
		r.Hint = "give the wait more time with --timeout (or --async block, up to 1h)"
	case errors.As(err, &failed):
		r.Hint = fmt.Sprintf("\"shakectl instance events %s\" shows what happened", failed.Ref)
	case errors.As(err, &transport):
		r.Attempts = transport.Attempts
		setElapsed(&r, transport.Attempts, transport.Elapsed)
		if errors.Is(err, ErrTimeout) {
			var te *TimeoutError
			if errors.As(err, &te) {
				r.Message = fmt.Sprintf("%s %s: no answer within %s (--timeout)", transport.Method, pathOf(transport.URL), te.Timeout)
			}
			r.Hint = "give a longer --timeout, or check that the server is responding"
		} else {
			r.Hint = "check the API URL (--api-url, SHAKENFIST_API_URL) and that the server is running"
		}
	case errors.As(err, &respErr):
		r.Status = respErr.StatusCode
		r.RequestID = respErr.RequestID
		switch {
		case strings.Contains(respErr.Problem, "HTML"):
			r.Hint = "the API URL must point at the Shakenfist API itself (e.g. http://host:13000/api), not a web page or login proxy"
		case strings.Contains(respErr.Problem, "truncated"), strings.Contains(respErr.Problem, "empty"):
			r.Hint = "the answer was cut short: a proxy or the server may have failed mid-answer; try again"
		default:
			r.Hint = "the server's answer is not what the Shakenfist API sends; check the API URL and the server's version"
		}
	case errors.Is(err, ErrTimeout):
		r.Hint = "give a longer --timeout"
	}
	r.Message = oneLineMessage(r.Message)
	return r
}

func describeAPIError(r *output.ErrorReport, apiErr *client.APIError) {
	r.Message = apiErr.Error()
	r.Status = apiErr.StatusCode
	r.RequestID = apiErr.RequestID
	if apiErr.Attempts > 1 {
		r.Message += fmt.Sprintf(" (gave up after %d attempts in %s)", apiErr.Attempts, roundDuration(apiErr.Elapsed))
	}
	r.Attempts = apiErr.Attempts
	setElapsed(r, apiErr.Attempts, apiErr.Elapsed)
	switch code := apiErr.StatusCode; {
	case code == http.StatusUnauthorized:
		r.Hint = "the namespace and key were refused: " + configHowTo
	case code == http.StatusForbidden:
		r.Hint = "this namespace's key is not allowed to do that; use a key of the owning namespace (or system)"
	case code == http.StatusNotFound && apiErr.Method == http.MethodPost && strings.HasSuffix(pathOf(apiErr.URL), "/instances"):
		r.Hint = "a node named in the request (--placement) is not in the active node list; \"shakectl node list\" shows the nodes"
	case code == http.StatusNotFound:
		r.Hint = "nothing has that name or UUID; the list commands show what exists"
	case code == http.StatusConflict:
		r.Hint = "a hard placement constraint (affinity require_with_tag / require_without_tag) cannot be met by any node; the cluster is not full, relax the constraint"
	case code >= 300 && code < 400:
		r.Hint = "the API URL must point at the Shakenfist API itself (e.g. http://host:13000/api); an expired session on a login proxy also redirects"
	case code == http.StatusBadRequest:
		r.Hint = "the server refused the request's parameters"
	case code >= 500 && code != http.StatusInsufficientStorage:
		if apiErr.RequestID != "" {
			r.Hint = "the server failed; try again, and quote request id " + apiErr.RequestID + " when reporting it"
		} else {
			r.Hint = "the server failed; try again later"
		}
	case code == http.StatusInsufficientStorage:
		// A 507 without a JSON body: no stage, no transient mark.
		r.Hint = "the cluster refused for lack of capacity without saying where; waiting will not necessarily help"
	}
}

func setElapsed(r *output.ErrorReport, attempts int, elapsed time.Duration) {
	if attempts > 0 {
		secs := elapsed.Round(time.Millisecond).Seconds()
		r.ElapsedSeconds = &secs
	}
}

func capacityHint(c *client.CapacityRefusal, apiErr *client.APIError) string {
	switch {
	case c.Transient:
		if apiErr != nil && apiErr.Attempts > 1 {
			return fmt.Sprintf("the cluster is still short of capacity at stage %s; try again later or give a longer --timeout", c.Stage)
		}
		return fmt.Sprintf("the cluster is short of capacity at stage %s right now; --retry-transient-capacity waits and retries as the server suggests", c.Stage)
	case c.Stage == "cpu_max_per_instance":
		return "no node in the cluster hosts that many vCPUs; ask for fewer vCPUs"
	case c.Stage == "is_hypervisor":
		return "no candidate node is a hypervisor; check --placement and \"shakectl node list\""
	case c.Stage == "pre_schedule":
		return "there were no candidate nodes to place on; check --placement and \"shakectl node list\""
	case c.Stage == "":
		return "the network's address pool is exhausted: add address space or free a network; retrying will not help"
	case c.Stage == "unknown":
		return "the server gave no stage for this refusal, which should not happen; report it to the cluster's operators"
	}
	return fmt.Sprintf("waiting will not fix a refusal at stage %s; change the request", c.Stage)
}

func roundDuration(d time.Duration) string {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// oneLineMessage keeps an error to one line of printable text, whatever the
// server or the operating system put into it.
func oneLineMessage(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// pathOf is the path of a URL, for messages.
func pathOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[i+3+j:]
		}
		return "/"
	}
	return u
}
