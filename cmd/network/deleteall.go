package network

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/clusteroperation"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdDeleteAll builds `shakectl network delete-all`.
func NewCmdDeleteAll(f *cmdutil.Factory) *cobra.Command {
	var cleanWait bool
	c := builders.NewDeleteAllCmd(f, builders.DeleteAllSpec{
		Plural: "networks",
		Long: `Delete every network of a namespace (--namespace, else the one your key
belongs to; a system key must name one): DELETE /networks with
confirm, as sf-client's "network delete-all" sends it. A network that still
has interfaces is not deleted (a 2024 server lists it as unable; exit 1)
unless --wait-for-interfaces asks the server to delete it once they have
gone.

A 2026 server deletes in cluster operations, one per network: shakectl
follows each, as "network delete" follows its one, within one --timeout
(else the --async budget; continue does not wait and prints the handles),
and fails (exit 1) when any ends in error or abort, after printing them
all.`,
		Example: `  shakectl network delete-all --namespace ci --yes
  shakectl network delete-all --namespace ci --yes --async block --timeout 5m`,
		Delete: func(s *cmdutil.Session, sc builders.Scope) (output.Detail, error) {
			start := time.Now()
			res, err := s.Client.DeleteAllNetworks(s.Ctx, sc.Namespace, cleanWait)
			fields, err := NetworksDeletedFields(res, err)
			if err != nil || res == nil || len(res.Operations) == 0 {
				return output.Detail{Raw: cmdutil.RawOf(nil, res), Fields: fields}, err
			}
			return followDeletes(s, start, res, fields)
		},
	})
	c.Flags().BoolVar(&cleanWait, "wait-for-interfaces", false, "delete networks still in use once their interfaces are gone (the server's clean_wait)")
	return c
}

// followDeletes follows a 2026 delete-all's cluster operations one after
// another within the one deadline counted from the request (so N networks
// do not get N budgets), and shows each as it ended: "net_op/UUID
// complete", or its state and error. The JSON answer keeps the server's
// deleted list and puts each operation's last view (or, not followed, its
// handle) under operations. Every failure is in the error, joined, so the
// exit code says the worst happened.
func followDeletes(s *cmdutil.Session, start time.Time, res *client.NetworksDeleted, fields []output.Field) (output.Detail, error) {
	var (
		views []json.RawMessage
		lines []string
		errs  []error
	)
	for _, h := range res.Operations {
		op, err := clusteroperation.Await(s, start, "deleting network "+h.NetworkUUID, h)
		if !clusteroperation.Printable(err) {
			// The request failed or the run was interrupted: what the
			// operations did is unknown; their handles, printed, let
			// "shakectl cluster-operation show" follow them later.
			return output.Detail{Raw: cmdutil.RawOf(nil, res), Fields: fields}, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		line := h.OpType + "/" + h.OpUUID + " " + h.NetworkUUID
		if op == nil {
			raw, _ := json.Marshal(h)
			views = append(views, raw)
			lines = append(lines, line+" started")
			continue
		}
		views = append(views, cmdutil.RawOf(op.Raw, op))
		line += " " + op.State
		if msg := op.ErrorMessage(); msg != "" {
			line += ": " + msg
		}
		lines = append(lines, line)
	}
	raw, err := json.Marshal(struct {
		Deleted    []string          `json:"deleted"`
		Operations []json.RawMessage `json:"operations"`
	}{res.Deleted, views})
	if err != nil {
		return output.Detail{}, err
	}
	fields = append(fields, output.Field{Name: "operations", Value: strings.Join(lines, "; ")})
	if len(errs) > 1 {
		errs = append([]error{fmt.Errorf("%d of %d network delete operations did not complete", len(errs), len(res.Operations))}, errs...)
	}
	return output.Detail{Raw: raw, Fields: fields}, errors.Join(errs...)
}
