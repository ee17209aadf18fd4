package sim

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/internal/flagtable"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/sim/cluster"
)

type ClusterOptions struct {
	cfg        cluster.Config
	nodeTags   []string
	scriptPath string
}

// NewCmdCluster runs the Shakenfist cluster simulator until interrupted.
func NewCmdCluster(f *cmdutil.Factory) *cobra.Command {
	opts := &ClusterOptions{cfg: cluster.DefaultConfig()}
	c := cmdutil.Local(&cobra.Command{
		Use:   "cluster",
		Short: "Run a simulated Shakenfist cluster that refuses creates like a real one",
		Long: `Serve part of the Shakenfist REST API (/, /auth, /auth/namespaces, /instances
with events, interfaces, power actions and metadata, /networks, /interfaces,
/nodes, and on 2026 /clusteroperations) over a few simulated hypervisors with
CPU, memory and disk accounting, until Ctrl-C or SIGTERM. Routes, request
fields, validation messages, answer shapes and status codes follow the
Shakenfist server's source. It is a simulator, not the server: "shakectl help
simulators" says where it differs. Both API roots real
deployments use work: http://HOST:PORT and http://HOST:PORT/api.

Server generations (--server; "shakectl help generations" for what a client
sees differ, docs/shakenfist-generations.md for every answer and its commit):

  2026 (default)  today's develop: 507s with stage and transient ("No nodes
                  remaining at scheduling stage <stage>"), the capacity guard,
                  hard affinity (binary require_*/prefer_* form) checked after
                  the resource stages, DELETE /networks answered 202 with a
                  cluster operation (GET /clusteroperations/...), node UUIDs,
                  400s naming the parameter, 411/413 for bodies, scoped
                  tokens, capacity claims, /livez /readyz /healthz, a 409 for
                  powering on a paused instance
  2024            develop da448b1a, the v0.8 releases, which the released
                  sf-client speaks: 507 texts such as "No nodes with enough
                  idle CPU", synchronous network deletes, node names,
                  integer affinity weights, and the quirks the real 2024
                  server showed when recorded: provide_dhcp false is
                  answered true, and no routed address can be deleted (403
                  "address not routed by this network")

Both generations, as the real servers answer (sim/cluster/testdata/
conformance replays every recorded exchange against this simulator): a
delete-all naming the namespace "system" deletes every namespace's
instances (or networks: a 403 of "deleted" and "unable" while some are in
use); an instance the scheduler never placed answers its console, VDI,
screenshot, snapshot and power routes with 200 null; agent commands on an
instance not created are a 406 "instance <uuid> is not ready (<state>)";
no lock is held but an instance's delete lock while its node tears it down.

2024-only knobs: --legacy-refusals (below), --no-floating-network (a cluster
whose floating network record no network node has made yet: the first
float, add-routed, delete-routed or create with a floating interface
answers the 2024 server's 500 AttributeError("'NoneType' object has no
attribute 'ipam'") and makes the record, so the next one works; a bug of
that server, for rehearsing a client against it).

2026-only knobs: --auth-scopes (what the key's tokens may do; others get 403),
--network-op-errors N (the next N network delete operations end in "error"),
--power-fault TEXT (power on/off answer 500).

The API URL goes to stdout; how to authenticate goes to stderr, followed by
one line per request (--quiet turns both off).

Creates are scheduled with the 2024 scheduler's arithmetic (vCPUs up to
cores × --cpu-overcommit 16; memory less --ram-reservation 2 GiB, within
--ram-overcommit 3; disk while --min-free-disk 20 GiB stays free), and
refused as the capacity-refusal contract says:

  507 stage sufficient_idle_cpu / _memory / sufficient_free_disk, transient,
      Retry-After: 15 (--retry-after)       no node has the room right now
  507 stage capacity_guard, transient       --capacity-guard: back-to-back
                                            creates race the node metrics
  507 stage cpu_max_per_instance            more vCPUs than any node hosts
  507 stage is_hypervisor / pre_schedule    no hypervisor / no candidates
  507 without a stage                       the network's address pool is full
  409                                       require_with_tag / require_without_tag
                                            cannot be met by any node
  404                                       placed_on names an unknown node

With --server 2024 the same stages are sent over the 2024 texts (how shakectl
rehearsed the contract before 2026 was simulated), unless --legacy-refusals:
then exactly as the 2024 server, every scheduler refusal a 507 {"error",
"status"} with no stage, transient or Retry-After, and affinity only soft
(integer weights; no hard affinity 409). --legacy-refusals with --server 2026
is refused: a 2026 server always sends the contract.

New networks read "initial" for --network-deploy-time before "created"; an
instance create on an initial network is refused 406.

A refused create leaves an instance record in the initial-error state, holding its
addresses (not capacity), until its delete is processed --error-cleanup later.
A deleted instance keeps its state and all it holds until its node carries
the delete out, --delete-time later (0: at once; a cluster whose node
daemons are stopped never does, as when the 2024 server was recorded), and
returns its capacity --teardown-lag after that (5.5 s, the measured metrics
lag of a real cluster); a released address stays unusable for
--address-halo.

--script FILE gives canned answers for POST /instances, one per request, in
order, then normal scheduling resumes:

  - refuse: sufficient_idle_cpu     # as the scheduler would refuse
    repeat: 2
  - status: 503                     # exactly this answer, no side effects
    body: {error: "etcd is sulking"}
    headers: {Retry-After: "3"}
  - schedule: true                  # place normally`,
		Example: `  # A small cluster that fills up fast, with quick retries for a rehearsal
  shakectl sim cluster --nodes 2 --node-cpus 4 --retry-after 2 --teardown-lag 2s

  # Point shakectl at it from another terminal
  export SHAKENFIST_API_URL=http://127.0.0.1:13000 SHAKENFIST_NAMESPACE=system SHAKENFIST_KEY=demo
  shakectl instance create web1 2 2048 -d 20@debian:12

  # Rehearse a CI pipeline against two transient refusals
  shakectl sim cluster --script refusals.yaml --node-tags node1=ssd,gpu

  # The 2024 server, as the released sf-client knows it
  shakectl sim cluster --server 2024 --legacy-refusals

  # The 2024 server as it was recorded: no floating network yet, no node
  # daemon carrying deletes out
  shakectl sim cluster --server 2024 --legacy-refusals --no-floating-network --delete-time 24h

  # A 2026 network delete whose operation fails
  shakectl sim cluster --network-op-errors 1`,
	}, func(c *cobra.Command, _ []string) error {
		return runCluster(f, opts)
	})
	bindClusterFlags(c.Flags(), opts)
	return c
}

func runCluster(f *cmdutil.Factory, opts *ClusterOptions) error {
	cfg := opts.cfg
	tags, err := cluster.ParseNodeTags(opts.nodeTags)
	if err != nil {
		return cmdutil.UsageErrorf("--node-tags: %s", err)
	}
	if len(tags) > 0 {
		cfg.NodeTags = tags
	}
	if opts.scriptPath != "" {
		raw, err := userfile.Read(f.Context, f.IOStreams.In, opts.scriptPath, userfile.Script("--script"))
		if err != nil {
			return cmdutil.ReadFileError(err)
		}
		script, err := cluster.ParseScript(raw)
		if err != nil {
			return cmdutil.UsageErrorf("--script %s: %s", opts.scriptPath, err)
		}
		cfg.Script = script
	}
	if err := cfg.Validate(); err != nil {
		return &cmdutil.UsageError{Msg: fielderr.Render(err, ClusterFlagName)}
	}
	conf, err := f.Config()
	if err != nil {
		return err
	}

	// The request log's lines are notes (one JSON object each under -o
	// json, none under --quiet), written whole among our own.
	n := f.IOStreams.Notifier()
	cfg.Log = n.Lines("log")
	ctx := f.Context
	if cfg.Listener, err = network.Listener(ctx, f.Net, cfg.Listen); err != nil {
		return err
	}
	srv, err := cluster.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.Close()

	if !ClusterAddrIsLoopback(srv.Addr()) {
		n.Warn(fmt.Sprintf("listening on %s, which other machines can reach; the simulator's credentials are not a secret", srv.Addr()))
	}
	// The banner comes first: a script that waits for the URL on stdout
	// may take it as the sign that start-up is complete.
	n.Block("banner", clusterBanner(srv.URL(), cfg))
	if conf.JSONOutput() {
		fmt.Fprintln(f.IOStreams.Out, output.JSONLine(map[string]string{"api_url": srv.URL(), "namespace": cfg.AuthNamespace}))
	} else {
		fmt.Fprintln(f.IOStreams.Out, srv.URL())
	}

	<-ctx.Done()
	n.Note("shutting_down", "sim cluster: shutting down")
	return srv.Close()
}

// clusterBanner is what the simulator says when it starts.
func clusterBanner(url string, cfg cluster.Config) string {
	var w strings.Builder
	key := cfg.AuthKey
	if key != cluster.DefaultConfig().AuthKey {
		key = "<the key given with --auth-key>"
	}
	fmt.Fprintf(&w, "Shakenfist cluster simulator at %s\n", url)
	fmt.Fprintf(&w, "  %d hypervisor(s) of %d vCPUs, %d MiB, %d GiB", cfg.Nodes, cfg.NodeCPUs, cfg.NodeMemoryMiB, cfg.NodeDiskGiB)
	if cfg.NonHypervisorNodes > 0 {
		fmt.Fprintf(&w, " + %d non-hypervisor node(s)", cfg.NonHypervisorNodes)
	}
	fmt.Fprintf(&w, "; Retry-After %ds, teardown lag %s, create time %s", cfg.RetryAfter, cfg.TeardownLag, cfg.CreateTime)
	if cfg.CapacityGuard {
		fmt.Fprint(&w, ", capacity guard on")
	}
	if len(cfg.Script) > 0 {
		fmt.Fprintf(&w, ", %d scripted answer(s)", len(cfg.Script))
	}
	fmt.Fprintf(&w, "\nAuthenticate with namespace %q and key %s:\n", cfg.AuthNamespace, key)
	fmt.Fprintf(&w, "  export SHAKENFIST_API_URL=%s SHAKENFIST_NAMESPACE=%s SHAKENFIST_KEY=%s\n", url, cfg.AuthNamespace, key)
	fmt.Fprintf(&w, "Press Ctrl-C to stop.\n")
	return w.String()
}

func ClusterAddrIsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// clusterFlags are sim cluster's flags, as routerFlags are sim router's:
// each names the field the cluster's errors give the value ({Generation}),
// so an error names the flag the user typed.
func clusterFlags() flagtable.Table[*cluster.Config, *ClusterOptions] {
	type (
		fs = *pflag.FlagSet
		cc = *cluster.Config
		op = *ClusterOptions
	)
	return flagtable.Table[*cluster.Config, *ClusterOptions]{
		{Field: "Listen", Name: "listen", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringVar(&d.Listen, n, d.Listen, "address to listen on (HOST:PORT; port 0 picks a free one)")
		}},
		{Field: "AuthNamespace", Name: "auth-namespace", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringVar(&d.AuthNamespace, n, d.AuthNamespace, "the namespace POST /auth accepts")
		}},
		{Field: "AuthKey", Name: "auth-key", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringVar(&d.AuthKey, n, d.AuthKey, "the key POST /auth accepts")
		}},
		{Field: "TokenTTL", Name: "token-ttl", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.TokenTTL, n, d.TokenTTL, numflag.Above(0, cluster.MaxTokenTTL), "how long a bearer token stays valid")
		}},
		{Field: "Nodes", Name: "nodes", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.Nodes, n, d.Nodes, numflag.Between(0, cluster.MaxNodes), "number of hypervisor nodes (node1..nodeN); 0 rehearses pre_schedule")
		}},
		{Field: "NodeCPUs", Name: "node-cpus", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.NodeCPUs, n, d.NodeCPUs, numflag.Between(1, cluster.MaxNodeCPUs), "cores per hypervisor (also the most vCPUs one instance may have)")
		}},
		{Field: "NodeMemoryMiB", Name: "node-memory", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.NodeMemoryMiB, n, d.NodeMemoryMiB, numflag.Between(1, cluster.MaxNodeMemoryMiB), "memory per hypervisor, MiB")
		}},
		{Field: "NodeDiskGiB", Name: "node-disk", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.NodeDiskGiB, n, d.NodeDiskGiB, numflag.Between(1, cluster.MaxNodeDiskGiB), "instance disk per hypervisor, GiB")
		}},
		{Field: "NonHypervisorNodes", Name: "non-hypervisor-nodes", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.NonHypervisorNodes, n, d.NonHypervisorNodes, numflag.Between(0, cluster.MaxNodes), "extra nodes (control1..controlN) that never host instances")
		}},
		{Field: "NodeTags", Name: "node-tags", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringArrayVar(&opts.nodeTags, n, nil, "tags of a node for hard affinity, NODE=TAG[,TAG...] (repeatable), e.g. node1=ssd,gpu")
		}},
		{Field: "RetryAfter", Name: "retry-after", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.RetryAfter, n, d.RetryAfter, numflag.Between(0, cluster.MaxRetryAfter), "Retry-After seconds on transient 507s (a real cluster always says 15)")
		}},
		{Field: "TeardownLag", Name: "teardown-lag", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.TeardownLag, n, d.TeardownLag, numflag.Between(0, cluster.MaxSimDuration), "how long a deleted instance's capacity stays charged")
		}},
		{Field: "CreateTime", Name: "create-time", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.CreateTime, n, d.CreateTime, numflag.Between(0, cluster.MaxSimDuration), "how long an instance takes from initial through preflight and creating to created")
		}},
		{Field: "DeleteTime", Name: "delete-time", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.DeleteTime, n, d.DeleteTime, numflag.Between(0, cluster.MaxSimDuration), "how long an instance's node takes to carry out a delete (until then it keeps its state); 0: at once")
		}},
		{Field: "ErrorCleanup", Name: "error-cleanup", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.ErrorCleanup, n, d.ErrorCleanup, numflag.Between(0, cluster.MaxSimDuration), "how long a refused create's error record (and its addresses) lingers")
		}},
		{Field: "AddressHalo", Name: "address-halo", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.AddressHalo, n, d.AddressHalo, numflag.Between(0, cluster.MaxSimDuration), "how long a released address stays unusable")
		}},
		{Field: "CapacityGuard", Name: "capacity-guard", Define: func(fl fs, n string, d cc, opts op) {
			fl.BoolVar(&d.CapacityGuard, n, d.CapacityGuard, "model the capacity admission guard: filters read lagging node metrics, so back-to-back creates are refused at capacity_guard")
		}},
		{Field: "CPUOvercommit", Name: "cpu-overcommit", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.CPUOvercommit, n, d.CPUOvercommit, numflag.Above[float64](0, cluster.MaxOvercommit), "vCPUs the scheduler places per core (CPU_OVERCOMMIT_RATIO)")
		}},
		{Field: "RAMOvercommit", Name: "ram-overcommit", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.RAMOvercommit, n, d.RAMOvercommit, numflag.Above[float64](0, cluster.MaxOvercommit), "instance memory the scheduler places per MiB of node memory (RAM_OVERCOMMIT_RATIO)")
		}},
		{Field: "RAMReservationGiB", Name: "ram-reservation", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.RAMReservationGiB, n, d.RAMReservationGiB, numflag.Between[float64](0, cluster.MaxNodeMemoryMiB/1024), "GiB of node memory kept for the system (RAM_SYSTEM_RESERVATION)")
		}},
		{Field: "MinFreeDiskGiB", Name: "min-free-disk", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.MinFreeDiskGiB, n, d.MinFreeDiskGiB, numflag.Between(0, cluster.MaxNodeDiskGiB), "GiB of node disk that must stay free (MINIMUM_FREE_DISK)")
		}},
		{Field: "Generation", Name: "server", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringVar(&d.Generation, n, d.Generation, "Shakenfist server generation to speak: 2026 (develop: capacity contract, async network deletes, claims, scopes, node UUIDs) or 2024 (develop da448b1a, the v0.8 releases); see docs/shakenfist-generations.md")
		}},
		{Field: "LegacyRefusals", Name: "legacy-refusals", Define: func(fl fs, n string, d cc, opts op) {
			fl.BoolVar(&d.LegacyRefusals, n, d.LegacyRefusals, `with --server 2024, refuse exactly as the 2024 server ({"error","status"} only, soft affinity)`)
		}},
		{Field: "NoFloatingNetwork", Name: "no-floating-network", Define: func(fl fs, n string, d cc, opts op) {
			fl.BoolVar(&d.NoFloatingNetwork, n, d.NoFloatingNetwork, "with --server 2024, no floating network record exists yet: the first call needing a floating address answers that server's 500 AttributeError and makes it")
		}},
		{Field: "AuthScopes", Name: "auth-scopes", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringSliceVar(&d.AuthScopes, n, d.AuthScopes, "2026: scopes of the --auth-key's tokens, e.g. instance.read,network.*,cluster-admin (default: every scope)")
		}},
		{Field: "NetworkOpErrors", Name: "network-op-errors", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.NetworkOpErrors, n, d.NetworkOpErrors, numflag.Between(0, cluster.MaxNetworkOpErrs), "2026: the next N network delete operations end in error, to rehearse a failed delete")
		}},
		{Field: "AgentTransferStall", Name: "agent-transfer-stall", Define: func(fl fs, n string, d cc, opts op) {
			fl.BoolVar(&d.AgentTransferStall, n, d.AgentTransferStall, "the agent's file transfers (instance upload/download) make no progress: 2026 expires them at progress_timeout_seconds")
		}},
		{Field: "Kerbside", Name: "kerbside", Define: func(fl fs, n string, d cc, opts op) {
			fl.BoolVar(&d.Kerbside, n, d.Kerbside, "2026: Kerbside is configured: advertise vdi-console-proxy, mint console tokens, and stand in for Kerbside's exchange at /kerbside/sf-console.vv")
		}},
		{Field: "PowerFault", Name: "power-fault", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringVar(&d.PowerFault, n, d.PowerFault, "2026: power on and off answer 500 'instance failed to power on: TEXT'")
		}},
		{Field: "NetworkDeployTime", Name: "network-deploy-time", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.NetworkDeployTime, n, d.NetworkDeployTime, numflag.Between(0, cluster.MaxSimDuration), "how long a new network stays initial before it is created (and an empty deleted network takes to read deleted)")
		}},
		{Field: "AgentBoot", Name: "agent-boot", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.AgentBoot, n, d.AgentBoot, numflag.Between(0, cluster.MaxSimDuration), "how long a created instance's agent takes to report ready (instance await waits for it)")
		}},
		{Field: "ArtifactFetchTime", Name: "artifact-fetch-time", Define: func(fl fs, n string, d cc, opts op) {
			numflag.Var(fl, &d.ArtifactFetchTime, n, d.ArtifactFetchTime, numflag.Between(0, cluster.MaxSimDuration), "how long a cached image's fetch takes (artifact cache) before the artifact is created; a URL whose host ends in .invalid fails to fetch")
		}},
		{Field: "Script", Name: "script", Define: func(fl fs, n string, d cc, opts op) {
			fl.StringVar(&opts.scriptPath, n, "", "YAML file of canned answers for POST /instances (see above)")
		}},
	}
}

// bindClusterFlags defines every flag of the table on fl, bound into
// opts.cfg (whose values are the defaults) and opts.
func bindClusterFlags(fl *pflag.FlagSet, opts *ClusterOptions) {
	clusterFlags().Bind(fl, &opts.cfg, opts)
}

// ClusterFlagName is the flag for a field the cluster's errors name, ""
// for none.
func ClusterFlagName(field string) string { return clusterFlags().Name(field) }
