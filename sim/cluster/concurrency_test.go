package cluster

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
)

// TestParallelCreatesNeverOvercommit fires 200 creates at once over real
// HTTP: no node may end up charged beyond its capacity, every create gets
// an answer, and every placed instance is accounted for exactly once.
func TestParallelCreatesNeverOvercommit(t *testing.T) {
	srv, c := startSim(t, func(c *Config) {
		c.Nodes = 3
		c.NodeCPUs = 8
		c.NodeMemoryMiB = 16384
		c.NodeDiskGiB = 200
		c.TeardownLag = 0 // the second phase deletes and creates at once
	})
	const creates = 200
	type result struct {
		name         string
		status       int
		node, uuid   string
		cpus, memory int
		disk         int
		stage        string
	}
	results := make([]result, creates)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range results {
		results[k] = result{
			name:   fmt.Sprintf("vm%d", k),
			cpus:   1 + rng.IntN(4),
			memory: 512 * (1 + rng.IntN(8)),
			disk:   5 + rng.IntN(40),
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for k := range results {
		wg.Go(func() {
			<-start
			r := &results[k]
			a := c.create(r.name, r.cpus, r.memory, r.disk, nil)
			r.status = a.status
			m := a.obj(t)
			switch a.status {
			case http.StatusOK:
				r.node, _ = m["node"].(string)
				r.uuid, _ = m["uuid"].(string)
			case http.StatusInsufficientStorage:
				r.stage, _ = m["stage"].(string)
			}
		})
	}
	close(start)
	wg.Wait()

	charged := map[string]usage{}
	placed, refused := 0, 0
	for _, r := range results {
		switch r.status {
		case http.StatusOK:
			placed++
			charged[r.node] = charged[r.node].plus(usage{int64(r.cpus), int64(r.memory), int64(r.disk)})
		case http.StatusInsufficientStorage:
			refused++
			if !stageTransient[r.stage] || r.stage == "capacity_guard" {
				t.Errorf("%s refused at stage %q, want a resource stage", r.name, r.stage)
			}
		default:
			t.Errorf("%s: unexpected status %d", r.name, r.status)
		}
	}
	if placed+refused != creates {
		t.Fatalf("%d placed + %d refused != %d creates", placed, refused, creates)
	}
	if placed == 0 || refused == 0 {
		t.Fatalf("%d placed, %d refused: the test should fill the cluster", placed, refused)
	}
	for _, u := range srv.NodeUsage() {
		got := usage{u.UsedCPUs, u.UsedMemoryMiB, u.UsedDiskGiB}
		if got != charged[u.Name] {
			t.Errorf("node %s ledger %+v, but the creates it accepted add up to %+v", u.Name, got, charged[u.Name])
		}
		if !got.fitsIn(usage{u.CPUs, u.MemoryMiB, u.DiskGiB}) {
			t.Errorf("node %s over-committed: %+v of %d/%d/%d", u.Name, got, u.CPUs, u.MemoryMiB, u.DiskGiB)
		}
	}

	// No instance lost: every answer is a record, placed ones on their node.
	list := c.do("GET", "/instances", nil).list(t)
	if len(list) != creates {
		t.Errorf("%d instance records, want %d (placed and refused)", len(list), creates)
	}
	byUUID := map[string]map[string]any{}
	for _, i := range list {
		byUUID[i["uuid"].(string)] = i
	}
	for _, r := range results {
		if r.status != http.StatusOK {
			continue
		}
		i := byUUID[r.uuid]
		if i == nil || i["node"] != r.node || i["state"] != "initial" {
			t.Errorf("placed instance %s (%s on %s) is listed as %v", r.name, r.uuid, r.node, i)
		}
	}

	// Now delete and create concurrently; the ledger must still agree with
	// the records afterwards.
	for k := range results {
		wg.Go(func() {
			r := results[k]
			if r.status == http.StatusOK {
				if a := c.do("DELETE", "/instances/"+r.uuid, nil); a.status != http.StatusOK {
					t.Errorf("delete %s: %d %s", r.uuid, a.status, a.raw)
				}
				return
			}
			if a := c.create(r.name+"b", r.cpus, r.memory, r.disk, nil); a.status != http.StatusOK && a.status != http.StatusInsufficientStorage {
				t.Errorf("create %s: %d %s", r.name, a.status, a.raw)
			}
		})
	}
	wg.Wait()
	if err := srv.CheckAccounting(); err != nil {
		t.Fatal(err)
	}
}
