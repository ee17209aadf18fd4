package cmdutil

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/output/termtext"
)

// DescribeError turns an error into what the user reads: one line of
// message, a hint where one helps, and the facts a program wants with -o json
// (status, stage, transient, attempts, elapsed_seconds, request_id).
//
// The client's and output's messages name their options as placeholders
// ({Timeout}, {JQ}); the report writes them as the kernel's flags.
func DescribeError(err error) output.ErrorReport {
	r := output.ErrorReport{Message: fielderr.Render(err, libraryOptionName)}
	var (
		apiErr    *client.APIError
		capacity  *client.CapacityRefusal
		claim     *client.ClaimRefusal
		usage     *UsageError
		transport *client.TransportError
		respErr   *client.ResponseError
		failed    *InstanceFailedError
		waited    *WaitTimeoutError
		cusage    *client.UsageError
		unsup     *client.NotSupportedError
		opFailed  *client.ClusterOperationFailed
	)
	switch {
	case errors.Is(err, ErrTerminated):
		r.Message = "terminated"
	case errors.Is(err, ErrInterrupted):
		r.Message = "interrupted"
	case errors.As(err, &usage):
		r.Message = usage.Msg
		switch {
		case strings.Contains(usage.Msg, configHowToLead):
		case usage.Command != "":
			r.Hint = fmt.Sprintf("see '%s --help'", usage.Command)
		default:
			r.Hint = "see --help for usage"
		}
	case errors.As(err, &cusage):
		r.Hint = "see --help for the values this takes"
	case errors.As(err, &unsup):
		// Before the APIError case: a missing route is the server's
		// generation, not a failure to explain by its status.
		r.Message = unsup.Error()
		r.Hint = "this needs a newer Shakenfist server (the 2026 develop generation); \"shakectl help generations\" says what each offers"
		if unsup.Route == "GET /admin/resources" {
			r.Hint = "the 2024 release never routes /admin/resources; \"shakectl node events NODE --type resources\" shows what each node reported"
		}
	case errors.As(err, &opFailed):
		r.Hint = fmt.Sprintf("\"shakectl cluster-operation show %s/%s\" shows the operation, and \"shakectl cluster-operation show --chain %s\" what it depended on", opFailed.Handle.OpType, opFailed.Handle.OpUUID, opFailed.Handle.OpUUID)
	case errors.As(err, &apiErr):
		describeAPIError(&r, apiErr)
		var route *RouteNotFoundError
		if errors.As(err, &route) {
			r.Hint = route.Hint()
		}
		if errors.As(err, &capacity) {
			r.Stage = capacity.Stage
			t := capacity.Transient
			r.Transient = &t
			r.Hint = capacity.Hint(apiErr.Attempts, libraryOptionName)
		}
		if errors.As(err, &claim) {
			t := claim.Transient()
			r.Transient = &t
			r.Hint = claim.Hint()
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
		// The message is the client's: it names the request that got no
		// answer, the bound that ran out, and whether it may still have
		// taken effect.
		if errors.Is(err, ErrTimeout) {
			r.Hint = "give a longer --timeout, or check that the server is responding"
		} else if transport.Bound != "" || IsDeadline(err) {
			r.Hint = "give a longer --request-timeout, or check that the server is responding"
		} else if transport.MayHaveActed() {
			r.Hint = fmt.Sprintf("the connection broke after the %s was sent: check whether it took effect before running it again", transport.Method)
		} else {
			r.Hint = "check the API URL (--api-url, SHAKENFIST_API_URL) and that the server is running"
		}
	case errors.As(err, &respErr):
		r.Status = respErr.StatusCode
		r.RequestID = respErr.RequestID
		r.Hint = respErr.Hint()
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
	// Refused credentials are explained here, where it is known where
	// they come from; every other answer by the client (client/hints.go).
	switch code := apiErr.StatusCode; {
	case apiErr.IsHTML():
		r.Hint = apiErr.Hint(libraryOptionName)
	case code == http.StatusNotFound && apiErr.AtLogin():
		r.Hint = "the server does not know the namespace (POST /auth answered 404): check --namespace / SHAKENFIST_NAMESPACE; " + configHowTo("")
	case code == http.StatusUnauthorized && !apiErr.KeyAccepted: // after a good login, the request is refused (client's hint)
		r.Hint = "the namespace and key were refused: " + configHowTo("")
	case apiErr.NamespaceNotEmpty():
		r.Hint = "the namespace still holds instances or networks; \"shakectl namespace clean NAMESPACE --yes\" deletes them, then delete the namespace"
	case apiErr.RefusedParameter() != "":
		r.Hint = fmt.Sprintf("the server refused the parameter %s; see --help for what it takes", apiErr.RefusedParameter())
	default:
		r.Hint = apiErr.Hint(libraryOptionName)
	}
}

func setElapsed(r *output.ErrorReport, attempts int, elapsed time.Duration) {
	if attempts > 0 {
		secs := elapsed.Round(time.Millisecond).Seconds()
		r.ElapsedSeconds = &secs
	}
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
	return strings.Join(strings.Fields(termtext.Line(s)), " ")
}
