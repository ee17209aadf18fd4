package instance_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

func TestInstanceCreateAsyncModes(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		getStates []string
		code      int
		took      time.Duration
		state     string // in stdout
		stderr    string
	}{
		{"continue returns at once", []string{"--async", "continue"}, nil, 0, 0, "initial", ""},
		{"pause waits while creating", nil, []string{"creating", "creating", "created"}, 0, 500*time.Millisecond + 750*time.Millisecond + 1125*time.Millisecond, "created", ""},
		{"pause counts preflight as creating", nil, []string{"preflight", "creating", "created"}, 0, 2375 * time.Millisecond, "created", ""},
		{"pause gives up quietly after 60s", nil, []string{"creating"}, 0, time.Minute, "creating",
			"instance web1 did not reach state created within 1m0s (last state: creating); \"shakectl instance await web1 --state created\" waits for it\n"},
		{"pause fails on an error state", nil, []string{"creating", "error"}, 1, 1250 * time.Millisecond, "error",
			"error: instance web1 is in state error\nhint: \"shakectl instance events web1\" shows what happened\n"},
		{"block waits through preflight", []string{"--async", "block"}, []string{"creating", "preflight", "created"}, 0, 2375 * time.Millisecond, "created", ""},
		{"block fails on created-error", []string{"--async", "block"}, []string{"preflight", "created-error"}, 1, 1250 * time.Millisecond, "created-error",
			"error: instance web1 is in state created-error\nhint: \"shakectl instance events web1\" shows what happened\n"},
		{"block fails on <x>-error", []string{"--async", "block"}, []string{"creating", "creating-error"}, 1, 1250 * time.Millisecond, "creating-error",
			"error: instance web1 is in state creating-error\nhint: \"shakectl instance events web1\" shows what happened\n"},
		{"block times out with 124", []string{"--async", "block", "--timeout", "10s"}, []string{"creating"}, 124, 10 * time.Second, "creating",
			"error: instance web1 did not reach state created within 10s (last state: creating)\nhint: give the wait more time with --timeout (or --async block, up to 1h)\n"},
		// An explicit --timeout is kept whatever --async is (issue 28).
		{"pause with --timeout exits 124", []string{"--timeout", "5s"}, []string{"creating"}, 124, 5 * time.Second, "creating",
			"error: instance web1 did not reach state created within 5s (last state: creating)\nhint: give the wait more time with --timeout (or --async block, up to 1h)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fa := clitest.NewStubs(t)
				fa.Reply("POST", "/instances", 200, clitest.CreatedInstance("web1", "initial"))
				if c.getStates != nil {
					fa.InTurn("GET", "/instances/"+clitest.NewInstanceUUID, clitest.InStates(clitest.CreatedInstance("web1", "initial"), c.getStates...)...)
				}
				start := time.Now()
				res := clitest.StubsInMemory(fa).Run(t, append([]string{"instance", "create", "web1", "1", "512", "-d", "8", "-o", "simple"}, c.args...)...)
				if res.Code != c.code {
					t.Fatalf("exit %d, want %d\n%s", res.Code, c.code, res)
				}
				if took := time.Since(start); took != c.took {
					t.Errorf("took %s, want %s", took, c.took)
				}
				if !strings.Contains(res.Stdout, "state\t"+c.state+"\n") {
					t.Errorf("stdout does not show state %s:\n%s", c.state, res.Stdout)
				}
				if res.Stderr != c.stderr {
					t.Errorf("stderr %q\nwant   %q", res.Stderr, c.stderr)
				}
			})
		})
	}
}

// batch is the fake cloud's instance batch, which the waits poll by name
// once and then by UUID.
var batch = string(clitest.FixtureInstances[2])

const batchUUID = "/instances/c3d2e1f0-aaaa-4bbb-8ccc-ddddeeee0003"

func TestInstanceAwait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.InTurn("GET", "/instances/batch", clitest.InStates(batch, "creating")...)
		fa.InTurn("GET", batchUUID, clitest.InStates(batch, "creating", "created")...)
		res := clitest.StubsInMemory(fa).Run(t, "instance", "await", "batch", "--for", "state", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tcreated\n") {
			t.Fatal(res)
		}
		if n := fa.Count("GET", "/instances/batch"); n != 1 {
			// After the first answer the wait polls by UUID.
			t.Errorf("%d GETs by name", n)
		}
		if n := fa.Count("GET", "/instances/c3d2e1f0-aaaa-4bbb-8ccc-ddddeeee0003"); n != 2 {
			t.Errorf("%d GETs by uuid, want 2", n)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.InTurn("GET", "/instances/batch", clitest.InStates(batch, "creating")...)
		res := clitest.StubsInMemory(fa).Run(t, "instance", "await", "batch", "--for", "state", "--async", "continue")
		if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "did not reach state created within 0s (last state: creating)") {
			t.Fatal(res)
		}
		if n := len(fa.Requests()); n != 2 {
			t.Errorf("%d requests; --async continue looks once", n)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("GET", "/instances/web1", 200, web1)
		fa.Reply("GET", web1UUID, 200, web1)
		start := time.Now()
		res := clitest.StubsInMemory(fa).Run(t, "instance", "await", "web1", "--state", "deleted", "--timeout", "30s")
		if res.Code != cmdutil.ExitTimeout || time.Since(start) != 30*time.Second {
			t.Fatal(res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("GET", "/instances/web1", 200, web1)
		fa.InTurn("GET", web1UUID, clitest.InStates(web1, "deleted")...)
		res := clitest.StubsInMemory(fa).Run(t, "instance", "await", "web1", "--state", "created-error")
		if res.Code != 1 || !strings.HasPrefix(res.Stderr, "error: instance web1 was deleted\n") {
			t.Fatal(res)
		}
	})
}

func TestInstanceAwaitNeedsAState(t *testing.T) {
	res := clitest.AgainstStubs(clitest.NewStubs(t)).Run(t, "instance", "await", "web1", "--state", " ")
	if res.Code != cmdutil.ExitUsage {
		t.Fatal(res)
	}
	// A state the server never reports would wait forever.
	res = clitest.AgainstStubs(clitest.NewStubs(t)).Run(t, "instance", "await", "web1", "--state", "stopped")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "is not an instance state") {
		t.Fatal(res)
	}
}

func TestInstanceAwaitCompletesStates(t *testing.T) {
	res := clitest.AgainstStubs(clitest.NewStubs(t)).Run(t, "__complete", "instance", "await", "web1", "--state", "cre")
	for _, want := range []string{"creating\n", "created\n", "created-error\n", "creating-error\n"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("no %q in %q", want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, ":0\n") {
		t.Errorf("completion offers files: %q", res.Stdout)
	}
}

func TestInstanceDeleteWaitsForDeletedOr404(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		// The server answers 200 with the instance as it was (created) and
		// deletes it in a queued task: here it is then hard-deleted (404).
		fa.Reply("DELETE", "/instances/web1", 200, web1)
		fa.Reply("GET", web1UUID, 404, `{"error":"instance not found","status":404}`)
		res := clitest.StubsInMemory(fa).Run(t, "instance", "delete", "web1", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tcreated\n") || fa.Count("GET", "/instances/6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01") != 1 {
			t.Fatal(res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/instances/web1", 200, web1)
		fa.InTurn("GET", web1UUID, clitest.InStates(web1, "deleted")...)
		res := clitest.StubsInMemory(fa).Run(t, "instance", "delete", "web1", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdeleted\n") {
			t.Fatal(res)
		}
	})
}

func TestSlowServerHitsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		// The server takes an hour to answer (on the virtual clock).
		fa.Register(clitest.Route("GET", "/instances"), httpstub.Delay(time.Hour, httpstub.String(200, "[]")))
		start := time.Now()
		res := clitest.StubsInMemory(fa).Run(t, "instance", "list", "--timeout", "2s")
		if res.Code != cmdutil.ExitTimeout {
			t.Fatal(res)
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("took %s", took)
		}
		want := "error: GET http://sf.test/instances: no answer within 2s (--timeout)\nhint: give a longer --timeout, or check that the server is responding\n"
		if res.Stderr != want {
			t.Errorf("stderr %q\nwant   %q", res.Stderr, want)
		}
	})
}

func TestInterruptedWaitExits130(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.InTurn("GET", "/instances/batch", clitest.InStates(batch, "creating")...)
		fa.InTurn("GET", batchUUID, clitest.InStates(batch, "creating")...)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		// Ctrl-C ten seconds into the wait, as Main's signal handler does.
		time.AfterFunc(10*time.Second, func() { cancel(cmdutil.ErrInterrupted) })
		r := clitest.StubsInMemory(fa)
		r.Ctx = ctx
		res := r.Run(t, "instance", "await", "batch", "--for", "state", "--async", "block", "-o", "simple")
		if res.Code != cmdutil.ExitInterrupted || !strings.HasPrefix(res.Stderr, "error: interrupted\n") {
			t.Fatal(res)
		}
		if !strings.Contains(res.Stdout, "state\tcreating\n") {
			t.Errorf("the last state seen is not printed: %q", res.Stdout)
		}
	})
}
