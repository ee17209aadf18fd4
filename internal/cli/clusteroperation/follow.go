package clusteroperation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// Follow waits for a cluster operation (a 2026 network delete's) within
// the command's deadline, as client-python 74d6e129 delete_network does (poll GET /clusteroperations/{op_type}/{op_uuid}
// until complete; raise ClusterOperationFailed on error or abort), and
// prints what it ended with: the operation, or under --async continue the
// handle. A failed operation is printed too (it is the data a script
// wants) before its error ends the command non-zero.
func Follow(s *cmdutil.Session, start time.Time, what string, h client.OperationHandle) error {
	budget := s.Cfg.Deadline()
	if budget <= 0 {
		// --async continue without --timeout: do not wait.
		s.Note("operation_started", "cluster operation %s/%s started (%s); \"shakectl cluster-operation show --wait %s/%s\" follows it", h.OpType, h.OpUUID, what, h.OpType, h.OpUUID)
		return s.PrintDetail(HandleDetail(h))
	}
	ctx, cancel := cmdutil.WithDeadline(s.F.Context, max(budget-time.Since(start), time.Nanosecond))
	defer cancel()
	op, err := wait(ctx, s, what, h)
	var failed *client.ClusterOperationFailed
	switch {
	case err == nil, errors.As(err, &failed):
	case ctx.Err() != nil && s.F.Context.Err() == nil:
		// The deadline, not the server: pause gives up quietly with
		// what it saw, block fails with exit 124.
		if !errors.Is(context.Cause(ctx), cmdutil.ErrTimeout) {
			return context.Cause(ctx)
		}
		state := ""
		if op != nil {
			state = op.State
		}
		if s.Cfg.Async != "pause" {
			err = &cmdutil.WaitTimeoutError{What: fmt.Sprintf("cluster operation %s/%s (%s) did not complete", h.OpType, h.OpUUID, what), State: client.State(state), Budget: budget}
			break
		}
		err = nil
		s.Note("still_waiting", "cluster operation %s/%s (%s) is still %s after %s; \"shakectl cluster-operation show --wait %s/%s\" waits for it", h.OpType, h.OpUUID, what, cmdutil.OrUnknown(state), budget, h.OpType, h.OpUUID)
		if op == nil {
			return s.PrintDetail(HandleDetail(h))
		}
	default:
		return err
	}
	if op != nil {
		if perr := s.PrintDetail(Detail(op)); perr != nil && err == nil {
			err = perr
		}
	}
	return err
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
