package clitest

import (
	"net/http"
	"net/http/httptest"
	"testing"

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
	return CmdRun{Url: "http://sf.test", Transport: HandlerTransport{Handler: sim.Handler()},
		Env: map[string]string{"SHAKENFIST_NAMESPACE": "system"}}, sim
}

// HandlerTransport carries requests straight to an http.Handler (a
// simulator's), in memory, as a server would see them: a request whose
// context ended is not served, and a caller that gave up while the handler
// worked gets its context's error.
type HandlerTransport struct{ Handler http.Handler }

func (t HandlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	// A server always sees a body, if an empty one.
	in := req.Clone(req.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.Handler.ServeHTTP(rec, in)
	in.Body.Close()
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
