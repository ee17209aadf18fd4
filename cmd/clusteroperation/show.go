package clusteroperation

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdShow builds `shakectl cluster-operation show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	var chain, wait bool
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "show",
		Short: "Show one cluster operation, or the chain of operations it depends on",
		Long: `Show a cluster operation of a 2026 server: GET
/clusteroperations/OP_TYPE/OP_UUID, with its type (e.g. net_op), uuid,
state (complete, error and abort are final) and tasks. The handle
"network delete --async continue" prints names both parts; they may be
given as one argument, OP_TYPE/OP_UUID, as shakectl's messages write it.

--wait follows the operation until it is final, within --timeout or the
--async budget (pause 60s, then it prints what it saw; block 1h, then exit
124), and fails (exit 1) when it ends in error or abort, as "network
delete" does.

--chain lists the operation and every operation it depends on, newest
first (GET /clusteroperations/OP_UUID/chain; only the uuid is needed).
An operation of a namespace the key cannot see is refused (403, exit 4).`,
		Example: `  shakectl cluster-operation show net_op/1f0e…
  shakectl cluster-operation show --wait net_op/1f0e… --async block
  shakectl cluster-operation show --chain 1f0e… -o json`,
	}, func(s *cmdutil.Session, args []string) error {
		h, err := parseHandle(args, chain)
		if err != nil {
			return &cmdutil.UsageError{Msg: err.Error(), Command: s.F.Command.CommandPath()}
		}

		if chain && wait {
			return &cmdutil.UsageError{Msg: "--chain and --wait do not go together", Command: s.F.Command.CommandPath()}
		}
		start := time.Now()
		if chain {
			ops, err := s.Client.ClusterOperationChain(s.Ctx, h.OpUUID)
			if err != nil {
				return unsupported(err, "GET /clusteroperations/{uuid}/chain")
			}
			return s.PrintList(operationResource.List(ops))
		}
		if err := requireOperations(s); err != nil {
			return err
		}
		if wait {
			return Follow(s, start, "as asked", h)
		}
		op, err := s.Client.GetClusterOperation(s.Ctx, h)
		if err != nil {
			return unsupported(err, "GET /clusteroperations/{op_type}/{op_uuid}")
		}
		return s.PrintDetail(operationResource.Detail(op))
	})
	c.Flags().BoolVar(&wait, "wait", false, "wait until the operation is complete, or fail when it ends in error or abort")
	c.Flags().BoolVar(&chain, "chain", false, "list the operation and the operations it depends on, newest first")
	return builders.ArgsCheckedBy(c, "OP_TYPE/OP_UUID | OP_TYPE OP_UUID | --chain OP_UUID", func(c *cobra.Command, args []string) error {
		switch {
		case chain && len(args) == 1, !chain && (len(args) == 1 || len(args) == 2):
			return nil
		}
		return &cmdutil.UsageError{Msg: c.CommandPath() + " needs OP_TYPE/OP_UUID, OP_TYPE OP_UUID, or --chain OP_UUID", Command: c.CommandPath()}
	})
}

// parseHandle reads OP_TYPE/OP_UUID, OP_TYPE OP_UUID or (with --chain)
// a lone OP_UUID.
func parseHandle(args []string, chain bool) (client.OperationHandle, error) {
	var h client.OperationHandle
	switch {
	case len(args) == 2:
		h = client.OperationHandle{OpType: args[0], OpUUID: args[1]}
	case strings.Contains(args[0], "/"):
		t, u, _ := strings.Cut(args[0], "/")
		h = client.OperationHandle{OpType: t, OpUUID: u}
	case chain:
		h = client.OperationHandle{OpUUID: args[0]}
	default:
		return h, errors.New("want OP_TYPE/OP_UUID (e.g. net_op/UUID, as network delete prints it) or OP_TYPE OP_UUID")
	}
	if strings.TrimSpace(h.OpUUID) == "" || (!chain && strings.TrimSpace(h.OpType) == "") || strings.Contains(h.OpUUID, "/") {
		return h, errors.New("want OP_TYPE/OP_UUID, with neither part empty")
	}
	return h, nil
}

// requireOperations refuses early on a server whose root page lists
// capabilities but none of cluster operations' (a 2024 server): client-
// python 74d6e129 checks get-cluster-operations before polling, and the
// 2026 server also advertises network-delete-async (external_api/app.py,
// 2026 public copy).
func requireOperations(s *cmdutil.Session) error {
	caps, err := s.Client.Capabilities(s.Ctx)
	if err != nil || !caps.Known || caps.Has(client.CapGetClusterOperations) || caps.Has(client.CapNetworkDeleteAsync) {
		return nil
	}
	return &client.NotSupportedError{Feature: "cluster operations", Capability: client.CapGetClusterOperations}
}

// unsupported turns Flask's HTML 404 (the server has no such route) into
// a *client.NotSupportedError, as the client does for its own optional
// routes; every other error is returned as it is.
func unsupported(err error, route string) error {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound && apiErr.IsHTML() {
		return &client.NotSupportedError{Feature: "cluster operations", Route: route, Err: err}
	}
	return err
}
