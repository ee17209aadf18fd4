package instance_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// createsAfter answers POST /instances with refusals in turn, then with
// the instance created (created "" : the last refusal for every later
// create); each answer takes the server delay (virtual) time.
func createsAfter(t *testing.T, delay time.Duration, created string, refusals ...clitest.CannedReply) *clitest.Stubs {
	fa := clitest.NewStubs(t)
	var answers []httpstub.Responder
	for _, r := range refusals {
		answers = append(answers, r.Answer())
	}
	if created != "" {
		answers = append(answers, httpstub.String(200, clitest.CreatedInstance(created, "created")))
	}
	for i, a := range answers {
		if delay > 0 {
			answers[i] = httpstub.Delay(delay, a)
		}
	}
	fa.InTurn("POST", "/instances", answers...)
	return fa
}

func TestRetryTransientCapacityRidesOutRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each create takes the server one (virtual) second, so the budget
		// left before each wait is visibly smaller than the one before.
		fa := createsAfter(t, time.Second, "web1", clitest.TransientRefusal("1"), clitest.TransientRefusal("1"))
		start := time.Now()
		res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "2", "2048", "-d", "20@debian:12", "--retry-transient-capacity", "-o", "simple")
		if res.Code != 0 {
			t.Fatal(res)
		}
		want := "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, 59s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 3/5, 57s left)\n"
		if res.Stderr != want {
			t.Errorf("stderr\n%s\nwant\n%s", res.Stderr, want)
		}
		if !strings.Contains(res.Stdout, "name\tweb1\n") || !strings.Contains(res.Stdout, "state\tcreated\n") {
			t.Errorf("stdout %q", res.Stdout)
		}
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("took %s, want 3 creates of 1s and 2 waits of 1s", took)
		}
		bodies := fa.Bodies("POST", "/instances")
		if len(bodies) != 3 || bodies[0] != bodies[1] || bodies[1] != bodies[2] {
			t.Errorf("the retries did not replay the identical request: %q", bodies)
		}
	})
}

func TestRetryTransientCapacityGivesUpAfterFiveAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := createsAfter(t, time.Second, "", clitest.TransientRefusal("1"))
		res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "2", "2048", "-d", "20", "--retry-transient-capacity")
		if res.Code != cmdutil.ExitCapacityTransient {
			t.Fatal(res)
		}
		want := "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, 59s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 3/5, 57s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 4/5, 55s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 5/5, 53s left)\n" +
			"error: POST /instances: 507 Insufficient Storage: schedule has no candidates at stage sufficient_idle_cpu (gave up after 5 attempts in 9s)\n" +
			"hint: the cluster is still short of capacity at stage sufficient_idle_cpu after 5 attempts, the most --retry-transient-capacity sends; try again later\n"
		if res.Stderr != want {
			t.Errorf("stderr\n%s\nwant\n%s", res.Stderr, want)
		}
		if n := fa.Count("POST", "/instances"); n != 5 {
			t.Errorf("%d creates, want 5", n)
		}
	})
}

func TestRetryTransientCapacityGivesUpAtTheDeadlineWithTheLastRequestWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := createsAfter(t, time.Second, "", clitest.TransientRefusal("15"))
		start := time.Now()
		res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "2", "2048", "-d", "20", "--retry-transient-capacity", "--timeout", "3s", "-o", "json")
		if res.Code != cmdutil.ExitCapacityTransient {
			t.Fatal(res)
		}
		lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
		// Under -o json the retry line is a JSON object too (issue 14).
		if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"event":"retry"`) || !strings.Contains(lines[0], "retrying in 2s (attempt 2/5, 2s left)") {
			t.Fatalf("stderr:\n%s", res.Stderr)
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
		if res.Stdout != "" {
			t.Errorf("stdout %q", res.Stdout)
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
			fa := clitest.NewStubs(t)
			created := httpstub.String(200, clitest.CreatedInstance("web1", "created"))
			if c.posts == 1 {
				// Not retried: the refusal is the only answer.
				fa.Canned("POST", "/instances", clitest.TransientRefusal("1"))
			} else {
				fa.InTurn("POST", "/instances", clitest.TransientRefusal("1").Answer(), created)
			}
			r := clitest.StubsInMemory(fa)
			r.Env = c.env
			res := r.Run(t, append([]string{"instance", "create", "web1", "1", "512", "-d", "8"}, c.args...)...)
			if n := fa.Count("POST", "/instances"); n != c.posts {
				t.Errorf("%s: %d creates, want %d\n%s", c.name, n, c.posts, res)
			}
		}
	})
}

func TestRetryTransientCapacityFromTheConfigFileAndQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := createsAfter(t, 0, "web1", clitest.TransientRefusal("1"))
		r := clitest.StubsInMemory(fa)
		dir := t.TempDir()
		cfg := dir + "/c.yaml"
		clitest.WriteFile(t, cfg, "retry-transient-capacity: true\nquiet: true\n")
		r.Env = map[string]string{"SHAKECTL_CONFIG": cfg}
		res := r.Run(t, "instance", "create", "web1", "1", "512", "-d", "8")
		if res.Code != 0 || fa.Count("POST", "/instances") != 2 {
			t.Fatal(res)
		}
		if res.Stderr != "" {
			t.Errorf("--quiet (from the file) still printed: %q", res.Stderr)
		}
	})
}

func TestRetryDoesNotTouchPermanentRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := createsAfter(t, 0, "", clitest.Refusal("cpu_max_per_instance", "false", nil))
		res := clitest.StubsInMemory(fa).Run(t, "instance", "create", "web1", "64", "512", "-d", "8", "--retry-transient-capacity")
		if res.Code != cmdutil.ExitCapacityPermanent || fa.Count("POST", "/instances") != 1 || strings.Contains(res.Stderr, "retrying") {
			t.Fatal(res)
		}
	})
}

// The retry mode applies to the raw `api` call too: the same waits on
// stderr, the identical body replayed, the server's answer on stdout.
func TestRetryTransientCapacityAppliesToAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := createsAfter(t, time.Second, "raw1", clitest.TransientRefusal("15"), clitest.TransientRefusal("15"))
		r := clitest.StubsInMemory(fa)
		r.Stdin = `{"name": "raw1", "cpus": 1, "memory": 512, "disk": [{"size": 8}]}`
		start := time.Now()
		res := r.Run(t, "--retry-transient-capacity", "api", "POST", "/instances", "--input", "-")
		if res.Code != 0 {
			t.Fatal(res)
		}
		want := "capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 59s left)\n" +
			"capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 3/5, 43s left)\n"
		if res.Stderr != want {
			t.Errorf("stderr\n%s\nwant\n%s", res.Stderr, want)
		}
		if took := time.Since(start); took != 33*time.Second {
			t.Errorf("took %s, want 3 creates of 1s and 2 waits of 15s", took)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(res.Stdout), &obj); err != nil || obj["name"] != "raw1" {
			t.Errorf("stdout %q: want the created instance", res.Stdout)
		}
		bodies := fa.Bodies("POST", "/instances")
		if len(bodies) != 3 || bodies[0] != r.Stdin || bodies[1] != r.Stdin || bodies[2] != r.Stdin {
			t.Errorf("want the input replayed byte for byte three times, got %q", bodies)
		}
	})
}
