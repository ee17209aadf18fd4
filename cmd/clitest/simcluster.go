package clitest

import (
	"testing"

	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// SimCluster serves the cluster simulator of generation gen ("2024" or
// "2026") on a loopback port for the test's lifetime, and a runner whose
// key is the system namespace's (blob list, sharing and other admin
// routes are system's). mutate, if given, changes the config before the
// start.
func SimCluster(t *testing.T, gen string, mutate func(*cluster.Config)) (CmdRun, *cluster.Server) {
	t.Helper()
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Generation = gen
	cfg.AuthNamespace, cfg.AuthKey = "system", TestKey
	if mutate != nil {
		mutate(&cfg)
	}
	sim, err := cluster.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return CmdRun{Url: sim.URL(), Env: map[string]string{"SHAKENFIST_NAMESPACE": "system"}}, sim
}

// SimClusterInMemory is SimCluster without a socket: the runner carries
// each request straight to the simulator's handler, so a test inside a
// testing/synctest bubble runs the simulator's timings (create, agent
// boot, deploys) on the bubble's virtual clock, however busy the machine.
func SimClusterInMemory(t *testing.T, gen string, mutate func(*cluster.Config)) (CmdRun, *cluster.Server) {
	t.Helper()
	cfg := cluster.DefaultConfig()
	cfg.Generation = gen
	cfg.AuthNamespace, cfg.AuthKey = "system", TestKey
	if mutate != nil {
		mutate(&cfg)
	}
	sim, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return CmdRun{Url: "http://sf.test", Transport: httpstub.HandlerTransport{Handler: sim.Handler()},
		Env: map[string]string{"SHAKENFIST_NAMESPACE": "system"}}, sim
}
