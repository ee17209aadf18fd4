package instance_test

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// A 2026 instance names its node by UUID; instance show keeps the server's
// value and adds the node's name, instance list shows the name. A 2024
// instance names its node by name, and nothing is resolved (no GET /nodes).
// Both against sim cluster of that generation, with a system key (only an
// admin may list nodes).
//
// The simulator is in memory on synctest's clock: the create's wait costs
// no wall time.
func TestInstanceNodeShownWithItsName(t *testing.T) {
	uuid := regexp.MustCompile(`(?m)^node\t[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n`)
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _ := clitest.SimClusterInMemory(t, gen, func(c *cluster.Config) { c.CreateTime = 20 * time.Millisecond })
				res := r.Run(t, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "-p", "node2", "-o", "simple")
				if res.Code != 0 {
					t.Fatal(res)
				}
				show := r.Run(t, "instance", "show", "web1", "-o", "simple")
				list := r.Run(t, "instance", "list", "-o", "columns=name,node")
				if gen == cluster.Generation2026 {
					if !uuid.MatchString(show.Stdout) || !strings.Contains(show.Stdout, "node_name\tnode2\n") || !strings.Contains(res.Stdout, "node_name\tnode2\n") {
						t.Errorf("2026 show/create: want the node UUID and node_name node2\n%s\n%s", show, res)
					}
				} else if !strings.Contains(show.Stdout, "node\tnode2\n") || strings.Contains(show.Stdout, "node_name") {
					t.Errorf("2024 show: want node node2 and no node_name\n%s", show)
				}
				if !strings.Contains(list.Stdout, "web1\tnode2") && !strings.Contains(list.Stdout, "web1  node2") {
					t.Errorf("list shows no node name:\n%s", list)
				}
			})
		})
	}
}
