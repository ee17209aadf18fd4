package network

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/clusteroperation"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdDelete builds `shakectl network delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NETWORK",
		Short: "Delete a virtual network (and wait for it, within --async)",
		Long: `Delete a network, named by UUID or name.

The server's answer decides what happens next (both generations are spoken;
"shakectl help generations"):

  2026 (develop): 202 with a cluster operation, {"op_type": "net_op",
  "op_uuid": …}. shakectl follows the operation (GET
  /clusteroperations/net_op/UUID) until it is "complete", and prints it.
  When it ends in "error" or "abort" the command fails (exit 1) with the
  operation's error, after printing the operation.

  2024: 200 with the network as it is: "delete-wait" while instances still
  have interfaces on it (it goes once they do), or nothing when it was
  already deleted. shakectl then waits until the network is deleted, and
  prints it.

The wait is bounded by --timeout, else the --async budget: pause (the
default) 60s, giving up quietly with what it last saw; block 1h, failing
with exit code 124; continue does not wait, and prints the operation's
handle (2026) or the network (2024) at once. "shakectl cluster-operation
show net_op/UUID" follows a handle later.

Freeing a network also frees its addresses: that is the way out of an
exhausted address pool ("No free addresses on network", a 507 without a
stage).`,
		Example: `  shakectl network delete net1
  shakectl network delete net1 --async block --timeout 5m
  shakectl network delete net1 --async continue -o json   # the operation handle`,
		Args:              cmdutil.RefArgs("NETWORK"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteNetworkNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			start := time.Now()
			d, err := s.Client.StartNetworkDelete(s.Ctx, args[0])
			if err != nil {
				return err
			}
			if d.Operation != nil {
				return followDeleteOperation(s, start, args[0], *d.Operation)
			}
			n := d.Network
			if n == nil {
				// 200 null: the server had already deleted it.
				s.Note("already_deleted", "network %s was already deleted", args[0])
				return nil
			}
			if s.Cfg.Async != "continue" && n.Lifecycle() != client.StateDeleted {
				n, err = cmdutil.WaitFor(s, cmdutil.WatchedNetwork(s.Client), start, n, args[0], client.StateDeleted, cmdutil.UntilState(client.StateDeleted), s.Cfg.Async == "pause")
			}
			return cmdutil.PrintResult(s, networkResource.Detail, n, err)
		},
	}
}

// followDeleteOperation waits for a 2026 network delete's cluster
// operation within the command's deadline, as client-python 74d6e129
// delete_network does (poll GET /clusteroperations/{op_type}/{op_uuid}
// until complete; raise ClusterOperationFailed on error or abort), and
// prints what it ended with: the operation, or under --async continue the
// handle. A failed operation is printed too (it is the data a script
// wants) before its error ends the command non-zero.
func followDeleteOperation(s *cmdutil.Session, start time.Time, ref string, h client.OperationHandle) error {
	budget := s.Cfg.Deadline()
	if budget <= 0 {
		// --async continue without --timeout: do not wait.
		s.Note("operation_started", "network %s is being deleted by cluster operation %s/%s; \"shakectl cluster-operation show %s/%s\" follows it", ref, h.OpType, h.OpUUID, h.OpType, h.OpUUID)
		return s.PrintDetail(clusteroperation.HandleDetail(h))
	}
	ctx, cancel := cmdutil.WithDeadline(s.F.Context, max(budget-time.Since(start), time.Nanosecond))
	defer cancel()
	op, err := s.Client.WaitClusterOperation(ctx, h)
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
			err = &cmdutil.WaitTimeoutError{What: fmt.Sprintf("cluster operation %s/%s (deleting network %s) did not complete", h.OpType, h.OpUUID, ref), State: client.State(state), Budget: budget}
			break
		}
		err = nil
		s.Note("still_waiting", "cluster operation %s/%s (deleting network %s) is still %s after %s; \"shakectl cluster-operation show %s/%s\" shows it", h.OpType, h.OpUUID, ref, cmdutil.OrUnknown(state), budget, h.OpType, h.OpUUID)
		if op == nil {
			return s.PrintDetail(clusteroperation.HandleDetail(h))
		}
	default:
		return err
	}
	if op != nil {
		if perr := s.PrintDetail(clusteroperation.Detail(op)); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}
