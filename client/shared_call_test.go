package client_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/retry"
)

// client-python 74d6e129 _request_url runs the 406 repeat and the
// transient-capacity retry in one loop, with one deadline and one
// transient_attempts counter; so does one shakectl call.

var notReady406 = answer{status: 406, body: `{"error": "network 2f1e0d9c-1111-4222-8333-444455556601 is not ready (initial)", "status": 406}`}

var createOnNet = client.CreateInstanceRequest{Name: "web1", CPUs: 1, Memory: 1024,
	Disk:    []client.DiskRequest{{Size: 8}},
	Network: []client.NetworkRequest{{NetworkUUID: "2f1e0d9c-1111-4222-8333-444455556601"}}}

func sharedClient(t *testing.T, f *createStubs, budget time.Duration, n *notices) *client.Client {
	t.Helper()
	c, err := client.New(client.Options{APIURL: "http://sf.test:13000", Namespace: "system", Key: testKey,
		Transport: f, NotReadyBudget: budget, Retry: &client.RetryOptions{Budget: budget, Notify: n.add}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNotReadyRepeatsDoNotResetTheAttemptCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := refusal507("sufficient_idle_cpu", true, "15")
		f := newCreateStubs(t, notReady406, refused, notReady406, refused, refused, refused, refused)
		var n notices
		c := sharedClient(t, f, time.Hour, &n)
		start := time.Now()
		_, err := c.CreateInstance(t.Context(), createOnNet)
		var apiErr *client.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 507 {
			t.Fatalf("err = %v, want the fifth transient refusal", err)
		}
		// 2 repeats of the 406 and 5 refusals: the cap counts refusals
		// across the repeats, as transient_attempts does.
		if got := len(f.apiRequests()); got != 7 || apiErr.Attempts != 7 {
			t.Errorf("%d requests (attempts %d), want 7", got, apiErr.Attempts)
		}
		var attempts []int
		for _, x := range n.all() {
			attempts = append(attempts, x.Attempt)
		}
		if len(attempts) != 4 || attempts[0] != 2 || attempts[3] != 5 {
			t.Errorf("notice attempts = %v, want [2 3 4 5]", attempts)
		}
		if took := time.Since(start); took != 1*time.Second+15*time.Second+1*time.Second+3*15*time.Second {
			t.Errorf("took %s", took)
		}
	})
}

func TestNotReadyRepeatsAndRetriesShareOneDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := refusal507("sufficient_idle_cpu", true, "15")
		f := newCreateStubs(t, notReady406, refused, notReady406, refused, refused)
		var n notices
		c := sharedClient(t, f, 20*time.Second, &n)
		start := time.Now()
		_, err := c.CreateInstance(t.Context(), createOnNet)
		var cr *client.CapacityRefusal
		if !errors.As(err, &cr) || !cr.Transient {
			t.Fatalf("err = %v, want the server's transient refusal", err)
		}
		// 0s 406, 1s 507, 16s 406, 17s 507 (3s left: a 3s wait), 20s 507
		// and the budget is spent. A budget per repeat would have gone on.
		if got := len(f.apiRequests()); got != 5 {
			t.Errorf("%d requests, want 5", got)
		}
		if took := time.Since(start); took != 20*time.Second {
			t.Errorf("took %s, want the one 20s budget", took)
		}
		want := []retry.Notice{
			{Stage: "sufficient_idle_cpu", Wait: 15 * time.Second, Attempt: 2, Max: 5, Left: 19 * time.Second},
			{Stage: "sufficient_idle_cpu", Wait: 3 * time.Second, Attempt: 3, Max: 5, Left: 3 * time.Second},
		}
		if got := n.all(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("notices = %+v, want %+v", got, want)
		}
	})
}

func TestATransientRefusalWithoutAStageIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noStage := answer{status: 507, header: map[string]string{"Retry-After": "15"},
			body: `{"error": "No nodes remaining at scheduling stage sufficient_idle_cpu", "status": 507, "transient": true}`}
		f := newCreateStubs(t, noStage, ok200(instanceJSON))
		c := newClient(t, f, time.Hour, nil, nil)
		if _, err := c.CreateInstance(t.Context(), createReq); err != nil {
			t.Fatalf("err = %v", err)
		}
		if g := gaps(f.apiRequests()); len(g) != 1 || g[0] != 15*time.Second {
			t.Errorf("waits = %v, want one of 15s", g)
		}
	})
}

// Every golden /instances refusal of both generations under the retry: the
// transient field alone decides whether it is sent again.
func TestGoldenRefusalsAreRetriedExactlyWhenMarkedTransient(t *testing.T) {
	for _, row := range refusalRows(t) {
		if row.Path != "/instances" || row.Method != "POST" {
			continue
		}
		t.Run(row.Generation+" "+row.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				want := 1
				answers := []answer{{status: row.Status, header: row.Header, body: string(row.Body)}}
				if row.Transient {
					want = 2
					answers = append(answers, ok200(instanceJSON))
				}
				f := newCreateStubs(t, answers...)
				c := newClient(t, f, time.Hour, nil, nil)
				_, err := c.CreateInstance(t.Context(), createReq)
				if got := len(f.apiRequests()); got != want || (want == 1) != (err != nil) {
					t.Errorf("%d requests, err %v; want %d", got, err, want)
				}
			})
		})
	}
}
