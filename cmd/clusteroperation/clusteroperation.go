package clusteroperation

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// NewCmd groups the cluster operation commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "cluster-operation <command>",
		Aliases: []string{"cluster-operations", "clusterop"},
		Short:   "Follow the cluster operations a 2026 server runs (e.g. a network delete)",
		Long: `A 2026 (develop) Shakenfist server does some work asynchronously, as a
cluster operation: "network delete" is answered 202 with a handle,
{"op_type": "net_op", "op_uuid": …}, and the operation then runs to
"complete", or ends in "error" or "abort". "shakectl network delete"
follows its operation by itself; these commands look one up later (after
--async continue, or a wait that ran out of time).

A 2024 server has no cluster operations: it deletes networks synchronously,
and these commands say it does not support them.`,
		Example: `  shakectl cluster-operation show net_op/1f0e…
  shakectl cluster-operation show net_op 1f0e… -o json
  shakectl cluster-operation show --chain 1f0e…`,
	}
	c.AddCommand(NewCmdShow(f))
	return c
}

// viewField reads one field of the operation's own object. The summary
// shape (operation_type, uuid, state, tasks) is the chain example's in
// shakenfist external_api/clusteroperation.py @1bd1c112; the other fields
// are not named by any source read, so they are shown only when present.
func viewField(op *client.ClusterOperation, name string) string {
	var fields map[string]any
	if json.Unmarshal(op.Raw, &fields) != nil {
		return ""
	}
	switch v := fields[name].(type) {
	case string:
		return v
	case float64:
		if name == "created_at" {
			return builders.FormatUnix(v)
		}
		return strings.TrimSpace(output.JSONLine(v))
	}
	return ""
}

var operationResource = builders.Resource[client.ClusterOperation]{
	Singular: "cluster operation", Plural: "cluster operations",
	Columns: []builders.Column[client.ClusterOperation]{
		builders.Field("UUID", func(o *client.ClusterOperation) string { return o.UUID }),
		builders.Field("TYPE", func(o *client.ClusterOperation) string { return o.OperationType }),
		builders.StateField("STATE", func(o *client.ClusterOperation) string { return o.State }),
		builders.Field("TASKS", func(o *client.ClusterOperation) string { return strings.Join(o.Tasks, ",") }),
	},
	Fields: []builders.Column[client.ClusterOperation]{
		builders.Field("uuid", func(o *client.ClusterOperation) string { return o.UUID }),
		builders.Field("operation_type", func(o *client.ClusterOperation) string { return o.OperationType }),
		builders.StateField("state", func(o *client.ClusterOperation) string { return o.State }),
		builders.Field("tasks", func(o *client.ClusterOperation) string { return strings.Join(o.Tasks, ",") }),
		{Name: "target_object_type", Value: func(o *client.ClusterOperation) string { return viewField(o, "target_object_type") }, OmitEmpty: true},
		{Name: "target_uuid", Value: func(o *client.ClusterOperation) string { return viewField(o, "target_uuid") }, OmitEmpty: true},
		{Name: "namespace", Value: func(o *client.ClusterOperation) string { return viewField(o, "namespace") }, OmitEmpty: true},
		{Name: "created_at", Value: func(o *client.ClusterOperation) string { return viewField(o, "created_at") }, OmitEmpty: true},
		{Name: "error", Value: (*client.ClusterOperation).ErrorMessage, OmitEmpty: true},
	},
	Raw: func(o *client.ClusterOperation) json.RawMessage { return cmdutil.RawOf(o.Raw, o) },
}

// Detail is how a command prints an operation it followed (network delete).
func Detail(op *client.ClusterOperation) output.Detail { return operationResource.Detail(op) }

// HandleDetail prints an operation's handle, as the server sent it, when
// nothing more is known (--async continue): op_type and op_uuid.
func HandleDetail(h client.OperationHandle) output.Detail {
	raw, _ := json.Marshal(h)
	return output.Detail{
		Fields: []output.Field{{Name: "op_type", Value: h.OpType}, {Name: "op_uuid", Value: h.OpUUID}},
		Raw:    raw,
	}
}
