package clusteroperation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shakenfist/shakectl/client"
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

// Await waits for a cluster operation within the command's deadline,
// counted from start (so several operations share one budget), and
// returns it as last seen. A nil operation and no error mean nothing was
// seen and the handle is all there is: --async continue without --timeout
// (no wait), or pause's budget ran out before the first answer. The error
// is a *client.ClusterOperationFailed when it ended in error or abort, a
// *cmdutil.WaitTimeoutError when --async block's budget or an explicit
// --timeout ran out; pause's own budget gives up quietly (a note on
// stderr, no error).
func Await(s *cmdutil.Session, start time.Time, what string, h client.OperationHandle) (*client.ClusterOperation, error) {
	budget := s.Cfg.Deadline()
	if budget <= 0 {
		// --async continue without --timeout: do not wait.
		s.Note("operation_started", "cluster operation %s/%s started (%s); \"shakectl cluster-operation show --wait %s/%s\" follows it", h.OpType, h.OpUUID, what, h.OpType, h.OpUUID)
		return nil, nil
	}
	ctx, cancel := cmdutil.WithDeadline(s.F.Context, max(budget-time.Since(start), time.Nanosecond))
	defer cancel()
	op, err := wait(ctx, s, what, h)
	var failed *client.ClusterOperationFailed
	switch {
	case err == nil, errors.As(err, &failed):
		return op, err
	case ctx.Err() != nil && s.F.Context.Err() == nil:
		// The deadline, not the server: pause gives up quietly with
		// what it saw, block fails with exit 124.
		if !errors.Is(context.Cause(ctx), cmdutil.ErrTimeout) {
			return nil, context.Cause(ctx)
		}
		state := ""
		if op != nil {
			state = op.State
		}
		if !s.Forgives(s.Cfg.Async.OnTimeout()) {
			return op, &cmdutil.WaitTimeoutError{What: fmt.Sprintf("cluster operation %s/%s (%s) did not complete", h.OpType, h.OpUUID, what), State: client.State(state), Budget: budget}
		}
		s.Note("still_waiting", "cluster operation %s/%s (%s) is still %s after %s; \"shakectl cluster-operation show --wait %s/%s\" waits for it", h.OpType, h.OpUUID, what, cmdutil.OrUnknown(state), budget, h.OpType, h.OpUUID)
		return op, nil
	default:
		return op, err
	}
}

// waitOperation polls the operation until it is final, as the client's
// WaitClusterOperation does, but keeps the last view it read when the
// deadline ends the wait (a poll cut short by the deadline has none), and
// tells a person at a terminal when the state changes.
func wait(ctx context.Context, s *cmdutil.Session, what string, h client.OperationHandle) (*client.ClusterOperation, error) {
	var last *client.ClusterOperation
	for {
		op, err := s.Client.GetClusterOperation(ctx, h)
		switch {
		case err != nil && ctx.Err() != nil:
			return last, ctx.Err()
		case err != nil:
			return last, err
		}
		if last != nil && last.State != op.State {
			s.Progress("cluster operation %s/%s (%s): %s", h.OpType, h.OpUUID, what, op.State)
		}
		last = op
		switch {
		case op.State == client.OperationComplete:
			return op, nil
		case op.Failed():
			return op, &client.ClusterOperationFailed{Handle: h, Op: op}
		}
		t := time.NewTimer(client.DefaultOperationPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return last, ctx.Err()
		case <-t.C:
		}
	}
}
