package cmdutil

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/retry"
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
		switch {
		case strings.Contains(usage.Msg, configHowTo):
		case usage.Command != "":
			r.Hint = fmt.Sprintf("see '%s --help'", usage.Command)
		default:
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
		if failed.Kind == "network" {
			r.Hint = fmt.Sprintf("\"shakectl network show %s\" shows it; the network node may have failed to deploy it", failed.Ref)
		}
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
			r.Hint = notAnAPIHint
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
		r.Message += fmt.Sprintf(" (gave up after %d attempts in %s)", apiErr.Attempts, RoundDuration(apiErr.Elapsed))
	}
	r.Attempts = apiErr.Attempts
	setElapsed(r, apiErr.Attempts, apiErr.Elapsed)
	msg := strings.ToLower(apiErr.Message)
	switch code := apiErr.StatusCode; {
	case apiErr.IsHTML() && code < 500:
		r.Hint = notAnAPIHint
	case code == http.StatusNotFound && apiErr.AtLogin():
		r.Hint = "the server does not know the namespace (POST /auth answered 404): check --namespace / SHAKENFIST_NAMESPACE; " + configHowTo
	case code == http.StatusUnauthorized:
		r.Hint = "the namespace and key were refused: " + configHowTo
	case code == http.StatusForbidden:
		r.Hint = "this namespace's key is not allowed to do that; use a key of the owning namespace (or system)"
	case code == http.StatusNotFound:
		r.Hint = notFoundHint(msg)
	case code == http.StatusConflict:
		r.Hint = conflictHint(msg)
	case code == http.StatusNotAcceptable:
		r.Hint = "something the request depends on is not ready yet (a network still initial, an instance not created); wait for it, or give a longer --timeout or --async block"
	case code >= 300 && code < 400:
		r.Hint = "the API URL must point at the Shakenfist API itself (" + client.APIURLForms + "); an expired session on a login proxy also redirects"
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

// notAnAPIHint is the hint for an HTML answer: Flask's own 404 page for a
// route the API does not have (e.g. http://host:13000/api/auth), an Apache
// or proxy page.
const notAnAPIHint = "this is not a Shakenfist API: the URL answered with an HTML page; a real API URL is " + client.APIURLForms

// isAffinityConflict says a 409 is a seed server's hard-affinity refusal
// (seed 004): the only 409 that is a capacity refusal (exit 69).
func isAffinityConflict(apiErr *client.APIError) bool {
	return apiErr.StatusCode == http.StatusConflict && mentionsAffinity(strings.ToLower(apiErr.Message))
}

func mentionsAffinity(msg string) bool {
	return strings.Contains(msg, "affinity") || strings.Contains(msg, "require_with")
}

// conflictHint reads a 409 by its message: shakenfist da448b1a sends 409
// for a taken fixed address and for a power action the instance's state
// forbids; a seed server also for hard affinity.
func conflictHint(msg string) string {
	switch {
	case mentionsAffinity(msg):
		return "a hard placement constraint (affinity require_with_tag / require_without_tag) cannot be met by any node; the cluster is not full, relax the constraint"
	case strings.Contains(msg, "in use"):
		return "that fixed address is already taken on the network; choose another with -n NET@ADDR, or leave the address out"
	case strings.Contains(msg, "lifecycle state"):
		return "the instance's power state does not allow that (e.g. it is powered off); \"shakectl instance poweron\" first"
	}
	return "the request conflicts with the resource's current state"
}

// notFoundHint reads a 404 by its message: the server names what it could
// not find (shakenfist da448b1a).
func notFoundHint(msg string) string {
	switch {
	case strings.Contains(msg, "namespace"):
		return "the namespace does not exist or does not trust yours; \"shakectl namespace list\" shows the namespaces you can see"
	case strings.Contains(msg, "network"):
		return "no network of yours has that name or UUID; \"shakectl network list\" shows them"
	case strings.Contains(msg, "node"):
		return "the node (--placement) does not exist, is not ready, or is not a candidate; \"shakectl node list\" shows the nodes"
	case strings.Contains(msg, "label") || strings.Contains(msg, "artifact") || strings.Contains(msg, "blob"):
		return "the disk's base image (label or artifact) was not found; check the BASE of -d SIZE@BASE"
	case strings.Contains(msg, "instance"):
		return "no instance of yours has that name or UUID; \"shakectl instance list\" shows them"
	}
	return "nothing has that name or UUID; the list commands show what exists"
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
		if apiErr != nil && apiErr.Attempts >= retry.MaxAttempts {
			return fmt.Sprintf("the cluster is still short of capacity at stage %s after %d attempts, the most --retry-transient-capacity sends; try again later", c.Stage, apiErr.Attempts)
		}
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
		return schedulerMessageHint(strings.ToLower(c.Message))
	case c.Stage == "unknown":
		return "the server gave no stage for this refusal, which should not happen; report it to the cluster's operators"
	}
	return fmt.Sprintf("waiting will not fix a refusal at stage %s; change the request", c.Stage)
}

// schedulerMessageHint reads a 507 without a stage by its message: servers
// before seed 004 (shakenfist da448b1a scheduler.py) send every refusal
// that way, and only "No free addresses on network" (CongestedNetwork) is
// about the address pool.
func schedulerMessageHint(msg string) string {
	switch {
	case strings.Contains(msg, "free addresses") || strings.Contains(msg, "address pool") || strings.Contains(msg, "congested"):
		return "the network's address pool is exhausted: add address space or free a network; retrying will not help"
	case strings.Contains(msg, "vcpu limit"):
		return "no node in the cluster hosts that many vCPUs; ask for fewer vCPUs"
	case strings.Contains(msg, "with metrics"):
		return "no hypervisor has reported its metrics (none is up, or --placement names a node that is not one); \"shakectl node list\" shows the nodes"
	case strings.Contains(msg, "idle cpu"):
		return "no node has enough idle vCPUs for the request; ask for fewer vCPUs or free some instances"
	case strings.Contains(msg, "idle ram"):
		return "no node has enough free memory for the request; ask for less memory or free some instances"
	case strings.Contains(msg, "disk space"):
		return "no node has enough free disk for the request (the scheduler keeps 20 GiB free); ask for smaller disks or free some instances"
	}
	return "the cluster refused for lack of capacity; this server does not say whether waiting helps"
}

func RoundDuration(d time.Duration) string {
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
