package clusteroperation

import (
	"errors"
	"fmt"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Follow waits for a cluster operation (a 2026 network delete's) within
// the command's deadline, as client-python 74d6e129 delete_network does (poll GET /clusteroperations/{op_type}/{op_uuid}
// until complete; raise ClusterOperationFailed on error or abort), and
// prints what it ended with: the operation, or under --async continue the
// handle. A failed operation is printed too (it is the data a script
// wants) before its error ends the command non-zero.
func Follow(s *cmdutil.Session, start time.Time, what string, h client.OperationHandle) error {
	op, err := Await(s, start, what, h)
	if err == nil && op == nil {
		return s.PrintDetail(HandleDetail(h))
	}
	if !Printable(err) {
		return err
	}
	if op != nil {
		if perr := s.PrintDetail(Detail(op)); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

// Printable says whether Await's outcome is worth printing: success, an
// operation that failed, or a wait that ran out (--async block); not a
// request that failed or an interrupted run.
func Printable(err error) bool {
	return err == nil || errors.As(err, new(*client.ClusterOperationFailed)) || errors.As(err, new(*cmdutil.WaitTimeoutError))
}

// Await waits for a cluster operation (client.ClusterOperationPoll)
// within the command's deadline, counted from start (so several
// operations share one budget), and returns it as last seen. A nil
// operation and no error mean nothing was seen and the handle is all
// there is: --async continue without --timeout (no wait). The error is a
// *client.ClusterOperationFailed when it ended in error or abort, a
// *cmdutil.WaitTimeoutError when --async block's budget or an explicit
// --timeout ran out; pause's own budget gives up quietly (a still_waiting
// note on stderr, no error).
func Await(s *cmdutil.Session, start time.Time, what string, h client.OperationHandle) (*client.ClusterOperation, error) {
	follow := fmt.Sprintf("\"shakectl cluster-operation show --wait %s/%s\"", h.OpType, h.OpUUID)
	if s.Cfg.Deadline() <= 0 {
		// --async continue without --timeout: do not wait.
		s.Note("operation_started", "cluster operation %s/%s started (%s); %s follows it", h.OpType, h.OpUUID, what, follow)
		return nil, nil
	}
	subject := fmt.Sprintf("cluster operation %s/%s (%s)", h.OpType, h.OpUUID, what)
	return builders.Await(s, builders.Wait[client.ClusterOperation]{
		Poll:      s.Client.ClusterOperationPoll(h),
		Start:     start,
		OnTimeout: s.Cfg.Async.OnTimeout(),
		Say: func(op *client.ClusterOperation) builders.Said {
			said := builders.Said{Subject: subject, Unmet: "did not complete", Later: follow + " waits for it"}
			if op != nil {
				said.State = op.State
			}
			return said
		},
	})
}
