package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/retry"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// These tests run the client against the cluster simulator, which spells
// the wire format itself: a mismatch in field names or refusal bodies shows
// up here. The simulator is in memory (httpstub.HandlerTransport): nothing
// here is about sockets, and the tests that wait for its timings (a
// Retry-After, a teardown) run in a synctest bubble on the virtual clock.

// counting counts the POST /instances requests that reach the simulator.
type counting struct {
	next    http.RoundTripper
	creates atomic.Int32
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.URL.Path == "/instances" {
		c.creates.Add(1)
	}
	return c.next.RoundTrip(r)
}

func startSim(t *testing.T, mutate func(*cluster.Config)) *cluster.Server {
	t.Helper()
	cfg := cluster.DefaultConfig()
	cfg.AuthKey = testKey
	cfg.RetryAfter = 1
	cfg.TeardownLag = 300 * time.Millisecond
	cfg.CreateTime = 10 * time.Millisecond
	cfg.ErrorCleanup = 50 * time.Millisecond
	// The capacities these tests count are the node sizes (no overcommit,
	// reservation or free-disk floor), and networks are usable at once.
	cfg.CPUOvercommit, cfg.RAMOvercommit, cfg.RAMReservationGiB, cfg.MinFreeDiskGiB = 1, 1, 0, 0
	cfg.NetworkDeployTime = 0
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func simClient(t *testing.T, s *cluster.Server, retryOpts *client.RetryOptions) (*client.Client, *counting) {
	t.Helper()
	ct := &counting{next: httpstub.HandlerTransport{Handler: s.Handler()}}
	c, err := client.New(client.Options{APIURL: "http://sim.test", Namespace: "system", Key: testKey,
		UserAgent: "shakectl/e2e", Timeout: 10 * time.Second, Transport: ct, Retry: retryOpts})
	if err != nil {
		t.Fatal(err)
	}
	return c, ct
}

// TestE2ERetryRidesOutATeardown fills a one-node cluster, and while a
// create waits out its transient refusal a background delete returns the
// capacity (after the teardown lag); a later attempt succeeds.
func TestE2ERetryRidesOutATeardown(t *testing.T) { synctest.Test(t, testE2ERetryRidesOutATeardown) }

func testE2ERetryRidesOutATeardown(t *testing.T) {
	s := startSim(t, func(c *cluster.Config) { c.Nodes = 1; c.NodeCPUs = 4 })
	var (
		once    sync.Once
		deleted = make(chan error, 1)
		got     []retry.Notice
		mu      sync.Mutex
	)
	admin, _ := simClient(t, s, nil)
	big, err := admin.CreateInstance(t.Context(), client.CreateInstanceRequest{Name: "big", CPUs: 4, Memory: 1024, Disk: []client.DiskRequest{{Size: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	notify := func(n retry.Notice) {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
		once.Do(func() {
			go func() {
				_, err := admin.DeleteInstance(context.WithoutCancel(t.Context()), big.UUID)
				deleted <- err
			}()
		})
	}
	c, ct := simClient(t, s, &client.RetryOptions{Budget: 30 * time.Second, Notify: notify})
	inst, err := c.CreateInstance(t.Context(), client.CreateInstanceRequest{Name: "web1", CPUs: 4, Memory: 1024, Disk: []client.DiskRequest{{Size: 10, Base: "debian:12"}}})
	if err != nil {
		t.Fatalf("create with retry: %v", err)
	}
	if err := <-deleted; err != nil {
		t.Fatalf("background delete: %v", err)
	}
	if inst.Name != "web1" || inst.CPUs != 4 || inst.UUID == "" {
		t.Errorf("instance = %+v", inst)
	}
	n := ct.creates.Load()
	if n < 2 || n > retry.MaxAttempts {
		t.Errorf("%d create requests, want 2..%d", n, retry.MaxAttempts)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != int(n)-1 || got[0].Stage != "sufficient_idle_cpu" || got[0].Wait != time.Second || got[0].Attempt != 2 {
		t.Errorf("notices = %+v for %d requests", got, n)
	}
}

// TestE2ERefusalKinds provokes the refusal kinds of the capacity-refusal
// contract (shakenfist/shakenfist docs/operator_guide/capacity_refusals.md
// at 0c24a714) that a real
// request can cause on the simulator, with the retry on, and checks how the
// client classifies them: non-transient kinds are sent exactly once.
// (sufficient_idle_cpu is the teardown test above; the rest below.)
func TestE2ERefusalKinds(t *testing.T) {
	s := startSim(t, func(c *cluster.Config) {
		c.Nodes = 2
		c.NodeCPUs = 4
		c.NodeMemoryMiB = 4096
		c.NodeDiskGiB = 50
		c.NonHypervisorNodes = 1
		c.NodeTags = map[string][]string{"node1": {"ssd"}}
	})
	setup, _ := simClient(t, s, nil)
	// The smallest network the real server accepts is a /29 (da448b1a
	// network.py: "network is below minimum size of /29"); holders take its
	// addresses until the pool refuses, which is the CongestedNetwork case.
	if _, err := setup.CreateNetwork(t.Context(), client.CreateNetworkRequest{Netblock: "10.9.0.0/29", Name: "tiny"}); err != nil {
		t.Fatal(err)
	}
	full := false
	for i := 0; i < 8 && !full; i++ {
		_, err := setup.CreateInstance(t.Context(), client.CreateInstanceRequest{Name: fmt.Sprintf("holder%d", i), CPUs: 0, Memory: 1,
			Disk: []client.DiskRequest{{Size: 1}}, Network: []client.NetworkRequest{{NetworkUUID: "tiny"}}})
		var apiErr *client.APIError
		switch {
		case err == nil:
		case errors.As(err, &apiErr) && apiErr.StatusCode == 507:
			full = true
		default:
			t.Fatalf("holder %d: %v", i, err)
		}
	}
	if !full {
		t.Fatal("a /29 took 8 instances without running out of addresses")
	}
	base := func(mod func(*client.CreateInstanceRequest)) client.CreateInstanceRequest {
		r := client.CreateInstanceRequest{Name: "x", CPUs: 1, Memory: 256, Disk: []client.DiskRequest{{Size: 1}}}
		mod(&r)
		return r
	}
	tests := []struct {
		name   string
		req    client.CreateInstanceRequest
		status int
		stage  string // "-" = no CapacityRefusal
	}{
		{"cpu_max_per_instance", base(func(r *client.CreateInstanceRequest) { r.CPUs = 5 }), 507, "cpu_max_per_instance"},
		{"is_hypervisor", base(func(r *client.CreateInstanceRequest) { r.PlacedOn = "control1" }), 507, "is_hypervisor"},
		{"sufficient_idle_memory", base(func(r *client.CreateInstanceRequest) { r.Memory = 8192 }), 507, "sufficient_idle_memory"},
		{"sufficient_free_disk", base(func(r *client.CreateInstanceRequest) { r.Disk[0].Size = 500 }), 507, "sufficient_free_disk"},
		{"CongestedNetwork", base(func(r *client.CreateInstanceRequest) { r.Network = []client.NetworkRequest{{NetworkUUID: "tiny"}} }), 507, ""},
		{"hard affinity 409", base(func(r *client.CreateInstanceRequest) {
			r.Metadata = map[string]any{"affinity": map[string]any{"require_with_tag": []string{"gpu"}}}
		}), 409, "-"},
		{"unknown node 404", base(func(r *client.CreateInstanceRequest) { r.PlacedOn = "node99" }), 404, "-"},
	}
	transient := map[string]bool{"sufficient_idle_memory": true, "sufficient_free_disk": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var notices notices
			budget := time.Hour
			if transient[tt.stage] {
				// A transient refusal that stays: budget 0 sends it once.
				budget = 0
			}
			c, ct := simClient(t, s, &client.RetryOptions{Budget: budget, Notify: notices.add})
			_, err := c.CreateInstance(t.Context(), tt.req)
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
				t.Fatalf("error = %v, want status %d", err, tt.status)
			}
			if ct.creates.Load() != 1 || len(notices.all()) != 0 || apiErr.Attempts != 1 {
				t.Errorf("%d requests, %d notices, attempts %d; want exactly one request", ct.creates.Load(), len(notices.all()), apiErr.Attempts)
			}
			var cr *client.CapacityRefusal
			hasRefusal := errors.As(err, &cr)
			if tt.stage == "-" {
				if hasRefusal {
					t.Errorf("%d classified as a capacity refusal: %+v", tt.status, cr)
				}
				return
			}
			if !hasRefusal {
				t.Fatalf("no CapacityRefusal in %v", err)
			}
			wantRA := time.Duration(0)
			if transient[tt.stage] {
				wantRA = time.Second
			}
			if cr.Stage != tt.stage || cr.Transient != transient[tt.stage] || cr.RetryAfter != wantRA || cr.Message == "" {
				t.Errorf("refusal = %+v, want stage %q transient %v retry-after %s", cr, tt.stage, transient[tt.stage], wantRA)
			}
		})
	}
}

// TestE2EScriptedStagesAndPreSchedule covers the kinds that need a script
// or an empty cluster: sufficient_idle_disk, queue_state and capacity_guard
// (transient), and pre_schedule (structural).
func TestE2EScriptedStagesAndPreSchedule(t *testing.T) {
	req := client.CreateInstanceRequest{Name: "s", CPUs: 1, Memory: 256, Disk: []client.DiskRequest{{Size: 1}}}
	for _, stage := range []string{"sufficient_idle_disk", "queue_state", "capacity_guard"} {
		t.Run(stage, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := startSim(t, func(c *cluster.Config) {
					c.Script = []cluster.ScriptedAnswer{{Refuse: stage, Repeat: 1}}
				})
				var notices notices
				c, ct := simClient(t, s, &client.RetryOptions{Budget: 30 * time.Second, Notify: notices.add})
				inst, err := c.CreateInstance(t.Context(), req)
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				got := notices.all()
				if inst.Name != "s" || ct.creates.Load() != 2 || len(got) != 1 || got[0].Stage != stage || got[0].Wait != time.Second {
					t.Errorf("instance %+v after %d requests, notices %+v", inst, ct.creates.Load(), got)
				}
			})
		})
	}
	t.Run("pre_schedule", func(t *testing.T) {
		s := startSim(t, func(c *cluster.Config) { c.Nodes = 0 })
		c, ct := simClient(t, s, &client.RetryOptions{Budget: time.Hour})
		_, err := c.CreateInstance(t.Context(), req)
		var cr *client.CapacityRefusal
		if !errors.As(err, &cr) || cr.Stage != "pre_schedule" || cr.Transient || cr.RetryAfter != 0 || ct.creates.Load() != 1 {
			t.Errorf("error = %v (%+v) after %d requests", err, cr, ct.creates.Load())
		}
	})
}

// TestE2EDefaultTimingsOnTheVirtualClock runs the simulator in-process with
// its real defaults (Retry-After 15, teardown lag 5.5 s) inside a synctest
// bubble: a delete frees the only node's capacity 5.5 s later, so the
// create waits exactly one 15 s Retry-After.
func TestE2EDefaultTimingsOnTheVirtualClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := cluster.DefaultConfig()
		cfg.AuthKey = testKey
		cfg.Nodes = 1
		cfg.NodeCPUs = 4
		cfg.CPUOvercommit, cfg.RAMOvercommit, cfg.RAMReservationGiB, cfg.MinFreeDiskGiB = 1, 1, 0, 0
		s, err := cluster.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ct := &counting{next: httpstub.HandlerTransport{Handler: s.Handler()}}
		var notices notices
		c, err := client.New(client.Options{APIURL: "http://sim.test", Namespace: "system", Key: testKey, Transport: ct,
			Retry: &client.RetryOptions{Budget: time.Minute, Notify: notices.add}})
		if err != nil {
			t.Fatal(err)
		}
		req := client.CreateInstanceRequest{Name: "a", CPUs: 4, Memory: 1024, Disk: []client.DiskRequest{{Size: 10}}}
		first, err := c.CreateInstance(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteInstance(t.Context(), first.UUID); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		req.Name = "b"
		if _, err := c.CreateInstance(t.Context(), req); err != nil {
			t.Fatalf("create b: %v", err)
		}
		if took := time.Since(start); took != 15*time.Second || ct.creates.Load() != 3 {
			t.Errorf("create b took %s over %d creates, want 15s and 3", took, ct.creates.Load())
		}
		if got := notices.all(); len(got) != 1 || got[0].String() != "capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 1m0s left)" {
			t.Errorf("notices = %v", got)
		}
	})
}
