package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// DescribeError turns an error into what the user reads: one line of
// message, a hint where one helps, and the facts a program wants with -o json.
func DescribeError(err error) output.ErrorReport {
	r := output.ErrorReport{Message: err.Error()}
	var (
		apiErr   *client.APIError
		capacity *client.CapacityRefusal
		usage    *UsageError
	)
	if errors.As(err, &usage) {
		r.Message = usage.Msg
		r.Hint = "see --help for usage"
	}
	if errors.As(err, &apiErr) {
		r.Message = apiErr.Error()
		r.Status = apiErr.StatusCode
		r.RequestID = apiErr.RequestID
		if apiErr.Attempts > 1 {
			r.Message += fmt.Sprintf(" (gave up after %d attempts in %s)", apiErr.Attempts, roundDuration(apiErr.Elapsed))
		}
		if apiErr.Attempts > 0 {
			r.Attempts = apiErr.Attempts
			secs := apiErr.Elapsed.Seconds()
			r.ElapsedSeconds = &secs
		}
		switch apiErr.StatusCode {
		case http.StatusUnauthorized:
			r.Hint = "check the namespace and key: set SHAKENFIST_NAMESPACE and SHAKENFIST_KEY, or namespace/key in ~/.config/shakectl/config.yaml"
		case http.StatusForbidden:
			r.Hint = "the namespace's key is not allowed to do this"
		case http.StatusConflict:
			r.Hint = "a hard placement constraint (require_with_tag / require_without_tag) cannot be met by any node; relax it"
		}
	}
	if errors.As(err, &capacity) {
		r.Stage = capacity.Stage
		t := capacity.Transient
		r.Transient = &t
		r.Hint = capacityHint(capacity, apiErr)
	}
	if errors.Is(err, ErrInterrupted) {
		r.Message = "interrupted"
	}
	return r
}

func capacityHint(c *client.CapacityRefusal, apiErr *client.APIError) string {
	switch {
	case c.Transient:
		if apiErr != nil && apiErr.Attempts > 1 {
			return fmt.Sprintf("the cluster is still short of capacity at stage %s; try again later or give a longer --timeout", c.Stage)
		}
		return fmt.Sprintf("the cluster is short of capacity at stage %s right now; --retry-transient-capacity waits and retries as the server suggests", c.Stage)
	case c.Stage == "cpu_max_per_instance":
		return "no node in the cluster hosts that many vCPUs; ask for fewer"
	case c.Stage == "is_hypervisor":
		return "no candidate node is a hypervisor; check --placement and the node list"
	case c.Stage == "pre_schedule":
		return "there were no candidate nodes to place on; check --placement and the node list"
	case c.Stage == "":
		return "the network's address pool is exhausted: add address space or free a network; retrying will not help"
	case c.Stage == "unknown":
		return "the server gave no stage for this refusal; report it to the cluster's operators"
	}
	return "waiting will not fix this refusal; change the request"
}

func roundDuration(d time.Duration) string {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
