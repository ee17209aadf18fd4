package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/probe/report"
)

// cpuFractionPrefix starts the metric of each process's share of a CPU
// since it started (shakenfist da448b1a daemons/resources.py
// _emit_process_metrics: process_cpu_fraction_<name>, the name with every
// character but [a-zA-Z0-9] made "_").
const cpuFractionPrefix = "process_cpu_fraction_"

// hog is one process over the threshold.
type hog struct {
	Node      string  `json:"node"`
	Process   string  `json:"process"`
	Fraction  float64 `json:"fraction"`
	Threshold float64 `json:"threshold"`
	// Source says where the figure came from: "processmetrics", or the
	// node's newest "resources" event on a server without that route.
	Source string `json:"source"`
}

var hogResource = builders.Resource[hog]{
	Singular: "process", Plural: "processes",
	Columns: []builders.Column[hog]{
		builders.Field("NODE", func(h *hog) string { return h.Node }),
		builders.Field("PROCESS", func(h *hog) string { return h.Process }),
		builders.Field("CPU_FRACTION", func(h *hog) string { return strconv.FormatFloat(h.Fraction, 'f', 2, 64) }),
		builders.Field("THRESHOLD", func(h *hog) string { return strconv.FormatFloat(h.Threshold, 'f', 2, 64) }),
	},
	Raw: func(h *hog) json.RawMessage { return cmdutil.RawOf(nil, h) },
}

// maxThreshold bounds --threshold: a process's share of one CPU is at
// most the node's CPUs.
const maxThreshold = 1024

// NewCmdCPUHogs builds `shakectl node cpuhogs`.
func NewCmdCPUHogs(f *cmdutil.Factory) *cobra.Command {
	var (
		threshold float64
		ignore    []string
	)
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "cpuhogs", Short: "List Shakenfist processes using too much CPU",
		Long: `List the Shakenfist processes (and etcd) on every node whose share of a CPU,
averaged since the process started, is above --threshold (default 0.25, a
quarter of a CPU), as sf-client's node cpuhogs does (admin only). The
figures are those each node last recorded (GET /nodes/NODE/processmetrics;
a server without that route: the node's newest "resources" event).
Deleted nodes are skipped.

It exits 0 when no process is over the threshold, and 3 ("checks failed")
when one is, after listing them (sf-client exits 1): a monitoring script
tells a hog from a failure to ask (1, 4, ...).`,
		Example: `  shakectl node cpuhogs
  shakectl node cpuhogs --threshold 0.5 --ignore sf_eventlog,etcd -o json`,
	}, func(s *cmdutil.Session, _ []string) error {
		nodes, err := s.Client.ListNodes(s.Ctx)
		if err != nil {
			return err
		}
		skip := map[string]bool{}
		for _, p := range ignore {
			skip[strings.TrimSpace(p)] = true
		}
		hogs := []hog{}
		for _, n := range nodes {
			if n.State == string(client.StateDeleted) {
				continue
			}
			name := n.Name
			if name == "" {
				name = n.UUID
			}
			metrics, source, err := processMetrics(s, name)
			if err != nil {
				return err
			}
			for k, v := range metrics {
				p, ok := strings.CutPrefix(k, cpuFractionPrefix)
				if ok && v > threshold && !skip[p] {
					hogs = append(hogs, hog{Node: name, Process: p, Fraction: v, Threshold: threshold, Source: source})
				}
			}
		}
		sort.Slice(hogs, func(i, j int) bool {
			if hogs[i].Node != hogs[j].Node {
				return hogs[i].Node < hogs[j].Node
			}
			return hogs[i].Fraction > hogs[j].Fraction
		})
		if err := s.PrintList(hogResource.List(hogs)); err != nil {
			return err
		}
		if len(hogs) > 0 {
			return &hogsFound{n: len(hogs), threshold: threshold}
		}
		return nil
	})
	// A process of many threads may use more than one CPU; NaN, which
	// compares false with every share and so listed none, is
	// refused with every value outside the range.
	numflag.VarP(c.Flags(), &threshold, "threshold", "t", 0.25, numflag.Between[float64](0, maxThreshold), "the share of one CPU above which a process is listed")
	c.Flags().StringSliceVarP(&ignore, "ignore", "i", nil, "processes not to list, comma separated (as the metric names them, e.g. sf_eventlog)")
	return c
}

// processMetrics are a node's process figures: GET
// /nodes/NODE/processmetrics, else (a server that does not advertise
// node-process-metrics, as sf-client falls back) the extra of the node's
// newest resources event.
func processMetrics(s *cmdutil.Session, node string) (map[string]float64, string, error) {
	m, err := s.Client.NodeProcessMetrics(s.Ctx, node)
	if !errors.As(err, new(*client.NotSupportedError)) {
		return m, "processmetrics", err
	}
	events, err := s.Client.NodeEvents(s.Ctx, node, client.EventsQuery{Type: "resources", Limit: 1})
	if err != nil || len(events) == 0 {
		return nil, "", err
	}
	out := map[string]float64{}
	var extra map[string]json.RawMessage
	if json.Unmarshal(events[0].Extra, &extra) == nil {
		for k, raw := range extra {
			var f float64
			if json.Unmarshal(raw, &f) == nil {
				out[k] = f
			}
		}
	}
	return out, "resources event", nil
}

// hogsFound ends a run that listed processes over the threshold: exit 3,
// as a failed check.
type hogsFound struct {
	n         int
	threshold float64
}

func (e *hogsFound) Error() string {
	if e.n == 1 {
		return fmt.Sprintf("1 process uses more than %.2f of a CPU", e.threshold)
	}
	return fmt.Sprintf("%d processes use more than %.2f of a CPU", e.n, e.threshold)
}

func (e *hogsFound) Is(target error) bool { return target == report.ErrChecksFailed }

// ExitCode is the exit of a run whose check failed.
func (e *hogsFound) ExitCode() int { return cmdutil.ExitChecksFailed }
