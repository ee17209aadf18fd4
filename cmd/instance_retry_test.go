package cmd

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func transientRefusal(retryAfter string) fakeReply {
	return refusal("sufficient_idle_cpu", "true", map[string]string{"Retry-After": retryAfter})
}

// Each create takes the server one (virtual) second, so the budget left
// before each wait is visibly smaller than the one before.
func slowCreates(fa *fakeAPI) {
	fa.latency = map[string]time.Duration{"POST /instances": time.Second}
}

func TestRetryTransientCapacityRidesOutRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		slowCreates(fa)
		fa.createReplies = []fakeReply{transientRefusal("1"), transientRefusal("1")}
		fa.createState = "created"
		start := time.Now()
		res := inMemory(fa).run(t, "instance", "create", "web1", "2", "2048", "-d", "20@debian:12", "--retry-transient-capacity", "-o", "simple")
		if res.code != 0 {
			t.Fatal(res)
		}
		want := "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, 59s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 3/5, 57s left)\n"
		if res.stderr != want {
			t.Errorf("stderr\n%s\nwant\n%s", res.stderr, want)
		}
		if !strings.Contains(res.stdout, "name\tweb1\n") || !strings.Contains(res.stdout, "state\tcreated\n") {
			t.Errorf("stdout %q", res.stdout)
		}
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("took %s, want 3 creates of 1s and 2 waits of 1s", took)
		}
		var bodies []string
		for _, r := range fa.recorded() {
			if r.Method == "POST" && r.Path == "/instances" {
				bodies = append(bodies, r.Body)
			}
		}
		if len(bodies) != 3 || bodies[0] != bodies[1] || bodies[1] != bodies[2] {
			t.Errorf("the retries did not replay the identical request: %q", bodies)
		}
	})
}

func TestRetryTransientCapacityGivesUpAfterFiveAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		slowCreates(fa)
		for range 6 {
			fa.createReplies = append(fa.createReplies, transientRefusal("1"))
		}
		res := inMemory(fa).run(t, "instance", "create", "web1", "2", "2048", "-d", "20", "--retry-transient-capacity")
		if res.code != ExitCapacityTransient {
			t.Fatal(res)
		}
		want := "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, 59s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 3/5, 57s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 4/5, 55s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 5/5, 53s left)\n" +
			"error: POST /instances: 507 Insufficient Storage: schedule has no candidates at stage sufficient_idle_cpu (gave up after 5 attempts in 9s)\n" +
			"hint: the cluster is still short of capacity at stage sufficient_idle_cpu after 5 attempts, the most --retry-transient-capacity sends; try again later\n"
		if res.stderr != want {
			t.Errorf("stderr\n%s\nwant\n%s", res.stderr, want)
		}
		if n := fa.count("POST", "/instances"); n != 5 {
			t.Errorf("%d creates, want 5", n)
		}
	})
}

func TestRetryTransientCapacityGivesUpAtTheDeadlineWithTheLastRequestWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		slowCreates(fa)
		fa.createReplies = []fakeReply{transientRefusal("15"), transientRefusal("15"), transientRefusal("15")}
		start := time.Now()
		res := inMemory(fa).run(t, "instance", "create", "web1", "2", "2048", "-d", "20", "--retry-transient-capacity", "--timeout", "3s", "-o", "json")
		if res.code != ExitCapacityTransient {
			t.Fatal(res)
		}
		lines := strings.Split(strings.TrimSuffix(res.stderr, "\n"), "\n")
		// Under -o json the retry line is a JSON object too (issue 14).
		if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"event":"retry"`) || !strings.Contains(lines[0], "retrying in 2s (attempt 2/5, 2s left)") {
			t.Fatalf("stderr:\n%s", res.stderr)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(lines[1]), &obj); err != nil {
			t.Fatal(err)
		}
		// The second request started at the deadline's edge (3s) and was
		// not cut short: the call ends one round trip after its budget.
		if obj["attempts"] != 2.0 || obj["elapsed_seconds"] != 4.0 || obj["transient"] != true || obj["stage"] != "sufficient_idle_cpu" || obj["exit_code"] != 75.0 {
			t.Errorf("error object %v", obj)
		}
		if took := time.Since(start); took != 4*time.Second {
			t.Errorf("took %s", took)
		}
		if res.stdout != "" {
			t.Errorf("stdout %q", res.stdout)
		}
	})
}

func TestRetryTransientCapacityIsOffByDefaultAndSwitchedOnByEnvOrFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			name  string
			env   map[string]string
			args  []string
			posts int
		}{
			{"default", nil, nil, 1},
			{"env", map[string]string{"SHAKECTL_RETRY_TRANSIENT_CAPACITY": "true"}, nil, 2},
			{"flag off beats env", map[string]string{"SHAKECTL_RETRY_TRANSIENT_CAPACITY": "true"}, []string{"--retry-transient-capacity=false"}, 1},
			{"--async continue leaves no budget", nil, []string{"--retry-transient-capacity", "--async", "continue"}, 1},
		} {
			fa := newFakeAPI(t)
			fa.createReplies = []fakeReply{transientRefusal("1")}
			fa.createState = "created"
			r := inMemory(fa)
			r.env = c.env
			res := r.run(t, append([]string{"instance", "create", "web1", "1", "512", "-d", "8"}, c.args...)...)
			if n := fa.count("POST", "/instances"); n != c.posts {
				t.Errorf("%s: %d creates, want %d\n%s", c.name, n, c.posts, res)
			}
		}
	})
}

func TestRetryTransientCapacityFromTheConfigFileAndQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		fa.createReplies = []fakeReply{transientRefusal("1")}
		fa.createState = "created"
		r := inMemory(fa)
		dir := t.TempDir()
		cfg := dir + "/c.yaml"
		writeFile(t, cfg, "retry-transient-capacity: true\nquiet: true\n")
		r.env = map[string]string{"SHAKECTL_CONFIG": cfg}
		res := r.run(t, "instance", "create", "web1", "1", "512", "-d", "8")
		if res.code != 0 || fa.count("POST", "/instances") != 2 {
			t.Fatal(res)
		}
		if res.stderr != "" {
			t.Errorf("--quiet (from the file) still printed: %q", res.stderr)
		}
	})
}

func TestRetryDoesNotTouchPermanentRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		fa.createReplies = []fakeReply{refusal("cpu_max_per_instance", "false", nil)}
		res := inMemory(fa).run(t, "instance", "create", "web1", "64", "512", "-d", "8", "--retry-transient-capacity")
		if res.code != ExitCapacityPermanent || fa.count("POST", "/instances") != 1 || strings.Contains(res.stderr, "retrying") {
			t.Fatal(res)
		}
	})
}

// The retry mode applies to the raw `api` call too: the same waits on
// stderr, the identical body replayed, the server's answer on stdout.
func TestRetryTransientCapacityAppliesToAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		slowCreates(fa)
		fa.createReplies = []fakeReply{transientRefusal("15"), transientRefusal("15")}
		r := inMemory(fa)
		r.stdin = `{"name": "raw1", "cpus": 1, "memory": 512, "disk": [{"size": 8}]}`
		start := time.Now()
		res := r.run(t, "--retry-transient-capacity", "api", "POST", "/instances", "--input", "-")
		if res.code != 0 {
			t.Fatal(res)
		}
		want := "capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 59s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 3/5, 43s left)\n"
		if res.stderr != want {
			t.Errorf("stderr\n%s\nwant\n%s", res.stderr, want)
		}
		if took := time.Since(start); took != 33*time.Second {
			t.Errorf("took %s, want 3 creates of 1s and 2 waits of 15s", took)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(res.stdout), &obj); err != nil || obj["name"] != "raw1" {
			t.Errorf("stdout %q: want the created instance", res.stdout)
		}
		var bodies []string
		for _, rq := range fa.recorded() {
			if rq.Method == "POST" && rq.Path == "/instances" {
				bodies = append(bodies, rq.Body)
			}
		}
		if len(bodies) != 3 || bodies[0] != r.stdin || bodies[1] != r.stdin || bodies[2] != r.stdin {
			t.Errorf("want the input replayed byte for byte three times, got %q", bodies)
		}
	})
}
