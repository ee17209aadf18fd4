package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// create is a create body as sf-client sends it (client-python 6c25293c
// create_instance: name, cpus, memory in MiB, disk specs with sizes in GiB).
func create(name string, cpus, memory int, extra ...string) string {
	b := fmt.Sprintf(`{"name": %q, "cpus": %d, "memory": %d, "network": [], "disk": [{"size": 8, "base": "debian:12", "bus": null, "type": "disk"}], "ssh_key": null, "user_data": null, "namespace": null`, name, cpus, memory)
	for _, e := range extra {
		b += ", " + e
	}
	return b + "}"
}

// nameOf is the instance name in a create body.
func nameOf(body []byte) string {
	var b struct{ Name string }
	json.Unmarshal(body, &b)
	return b.Name
}

// refuseNamed writes a transient refusal that names the create it
// answers, so a test can tell whose refusal a client was handed.
func refuseNamed(w http.ResponseWriter, stage, retryAfter, name string, n int) {
	w.Header().Set("Retry-After", retryAfter)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Attempt", strconv.Itoa(n))
	w.WriteHeader(http.StatusInsufficientStorage)
	fmt.Fprintf(w, `{"error": "No nodes with enough idle CPU (%s, attempt %d)", "status": 507, "stage": %q, "transient": true}`, name, n, stage)
}

func created(w http.ResponseWriter, name string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"uuid": "uuid-%s", "name": %q, "state": "initial"}`, name, name)
}

// sentAt lists when the upstream received each create of the named
// instance.
func sentAt(r *rig, start time.Time, name string) []time.Duration {
	var out []time.Duration
	for _, a := range r.up.got() {
		if nameOf(a.body) == name {
			out = append(out, a.at.Sub(start))
		}
	}
	return out
}

func (r *rig) goDo(ctx context.Context, method, path, body string) chan reply {
	ch := make(chan reply, 1)
	go func() {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		ch <- r.do(ctx, method, path, rd)
	}()
	return ch
}

// A create held behind a refusal is sent when the refusal's Retry-After
// has passed, not before; refused again, the gate closes for the new
// Retry-After; once a create goes through, the next held one goes at once.
func TestGateReleasesAHeldCreateWhenTheWindowEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		r = newRig(t, Options{Gate: true, Budget: time.Hour}, func(n int, w http.ResponseWriter, _ *http.Request) {
			name := nameOf(r.up.got()[n-1].body)
			if n <= 2 { // a's only attempt and b's first
				refuseNamed(w, "sufficient_idle_cpu", "15", name, n)
				return
			}
			created(w, name)
		})
		start := time.Now()
		actx, cancelA := context.WithCancel(t.Context())
		a := r.goDo(actx, "POST", "/instances", create("a", 2, 2048))
		time.Sleep(time.Second)
		cancelA() // a leaves during its own wait: nobody is replaying at 15s
		if got := <-a; got.err == nil {
			t.Fatalf("a got %d after leaving", got.status)
		}
		time.Sleep(4 * time.Second)
		b := r.goDo(t.Context(), "POST", "/instances", create("b", 2, 2048))
		time.Sleep(15 * time.Second) // t=20: b went at 15, was refused, waits to 30
		c := r.goDo(t.Context(), "POST", "/instances", create("c", 2, 2048))
		gb, gc := <-b, <-c
		if got, want := sentAt(r, start, "b"), []time.Duration{15 * time.Second, 30 * time.Second}; !equalDurations(got, want) {
			t.Errorf("b (arrived at 5s) was sent at %v, want %v: when a's window ended, then when its own did", got, want)
		}
		if got, want := sentAt(r, start, "c"), []time.Duration{30 * time.Second}; !equalDurations(got, want) {
			t.Errorf("c (arrived at 20s) was sent at %v, want %v: at once after b went through", got, want)
		}
		if gb.status != 200 || gc.status != 200 || !strings.Contains(string(gb.body), `"b"`) || !strings.Contains(string(gc.body), `"c"`) {
			t.Errorf("b got %d %s, c got %d %s", gb.status, gb.body, gc.status, gc.body)
		}
		if s := r.proxy.Summary(); s.HeldBack != 2 || s.Waited != 1 || !s.Gate {
			t.Errorf("summary %+v, want 2 sends held back (b on arrival, c on arrival), 1 refusal waited out", s)
		}
		if s := r.proxy.Summary().String(); s != "proxy: 3 requests forwarded, 1 refusal waited out, 0 refusals handed back, 2 sends held back by the capacity gate" {
			t.Errorf("summary line %q", s)
		}
		checkGolden(t, "gate-window.txt", r.log.String())
	})
}

// One refusal closes the gate for creates asking at least as much of the
// refused stage's resource, on the same or a narrower set of nodes; smaller
// creates, other routes and methods pass at once.
func TestGateClosesForEqualOrLargerShapesOnly(t *testing.T) {
	pin := `"placed_on": "node1"`
	tests := []struct {
		name    string
		stage   string
		refused string // the create refused at 0s
		next    string // method and path, then the body sent at 1s
		held    bool
	}{
		{"same vCPUs", "sufficient_idle_cpu", create("r", 4, 1024), "POST /instances " + create("x", 4, 1024), true},
		{"more vCPUs", "sufficient_idle_cpu", create("r", 4, 1024), "POST /instances " + create("x", 8, 512), true},
		{"fewer vCPUs, more memory", "sufficient_idle_cpu", create("r", 4, 1024), "POST /instances " + create("x", 2, 65536), false},
		{"less memory", "sufficient_idle_memory", create("r", 1, 4096), "POST /instances " + create("x", 8, 2048), false},
		{"more memory", "sufficient_idle_memory", create("r", 1, 4096), "POST /instances " + create("x", 1, 8192), true},
		{"more disk", "sufficient_free_disk", create("r", 1, 1024), "POST /instances " + strings.Replace(create("x", 1, 1024), `"size": 8`, `"size": 20`, 1), true},
		{"less disk, idle disk stage", "sufficient_idle_disk", strings.Replace(create("r", 1, 1024), `"size": 8`, `"size": 20`, 1), "POST /instances " + create("x", 1, 1024), false},
		{"capacity_guard holds every create", "capacity_guard", create("r", 8, 8192), "POST /instances " + create("x", 1, 512), true},
		{"queue_state holds every create", "queue_state", create("r", 8, 8192), "POST /instances " + create("x", 1, 512), true},
		{"a pinned refusal does not hold a create that may go anywhere", "sufficient_idle_cpu", create("r", 2, 1024, pin), "POST /instances " + create("x", 4, 1024), false},
		{"a refusal that could go anywhere holds a pinned create", "sufficient_idle_cpu", create("r", 2, 1024), "POST /instances " + create("x", 4, 1024, pin), true},
		{"another route", "capacity_guard", create("r", 1, 512), "POST /instances/uuid-r/reboot " + create("x", 1, 512), false},
		{"another method", "capacity_guard", create("r", 1, 512), "GET /instances", false},
		{"a body the scheduler cannot weigh", "capacity_guard", create("r", 1, 512), `POST /instances {"name": "x", "cpus": "lots"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Options{Gate: true, Budget: time.Minute}, func(n int, w http.ResponseWriter, _ *http.Request) {
					if n == 1 {
						refuseNamed(w, tt.stage, "15", "r", n)
						return
					}
					created(w, "x")
				})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				r.goDo(ctx, "POST", "/instances", tt.refused)
				synctest.Wait()
				time.Sleep(time.Second)
				method, rest, _ := strings.Cut(tt.next, " ")
				path, body, _ := strings.Cut(rest, " ")
				x := r.goDo(ctx, method, path, body)
				synctest.Wait()
				sent := r.up.count() == 2
				if sent == tt.held {
					t.Errorf("after a %s refusal of %s, %s %s %s was sent at once: %v", tt.stage, tt.refused, method, path, body, sent)
				}
				if !tt.held {
					if got := <-x; got.status != 200 {
						t.Errorf("the create that passed got %d %s", got.status, got.body)
					}
				}
			})
		})
	}
}

// Whatever the gate does, each client gets the server's answer to its own
// request: every create is sent at least once, and a refusal handed back
// is one the server gave that very create.
func TestGateNeverHandsARefusalToAnotherRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		r = newRig(t, Options{Gate: true, Budget: 40 * time.Second}, func(n int, w http.ResponseWriter, _ *http.Request) {
			refuseNamed(w, "capacity_guard", "15", nameOf(r.up.got()[n-1].body), n)
		})
		const clients = 6
		var res []chan reply
		for i := range clients {
			res = append(res, r.goDo(t.Context(), "POST", "/instances", create(fmt.Sprintf("c%d", i), 1, 512)))
			time.Sleep(3 * time.Second)
		}
		for i, ch := range res {
			got := <-ch
			name := fmt.Sprintf("c%d", i)
			if got.status != 507 || !strings.Contains(string(got.body), "("+name+", attempt "+got.header.Get("X-Attempt")+")") {
				t.Errorf("%s got %d %s (X-Attempt %s), want a refusal of its own create", name, got.status, got.body, got.header.Get("X-Attempt"))
			}
			n, _ := strconv.Atoi(got.header.Get("X-Attempt"))
			if att := r.up.got(); n < 1 || n > len(att) || nameOf(att[n-1].body) != name {
				t.Errorf("%s was handed the answer to attempt %d, which was not its create", name, n)
			}
			if len(sentAt(r, time.Time{}, name)) == 0 {
				t.Errorf("%s never reached the server", name)
			}
		}
	})
}

// A held create is sent at the latest one round trip before its budget
// ends, so its client gets its own answer within the budget, even while
// the window that holds it is still open.
func TestGateSendsAHeldCreateBeforeItsBudgetEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		r = newRig(t, Options{Gate: true, Budget: 20 * time.Second}, func(n int, w http.ResponseWriter, _ *http.Request) {
			time.Sleep(2 * time.Second) // each round trip takes 2s
			refuseNamed(w, "sufficient_idle_cpu", "60", nameOf(r.up.got()[n-1].body), n)
		})
		start := time.Now()
		a := r.goDo(t.Context(), "POST", "/instances", create("a", 4, 1024))
		time.Sleep(5 * time.Second)
		b := r.goDo(t.Context(), "POST", "/instances", create("b", 4, 1024)) // the window lasts until 62s
		ga, gb := <-a, <-b
		if got, want := sentAt(r, start, "b"), []time.Duration{23 * time.Second}; !equalDurations(got, want) {
			t.Errorf("b (arrived at 5s, budget 20s, round trips of 2s) was sent at %v, want %v", got, want)
		}
		if el := gb.at.Sub(start); el != 25*time.Second || gb.status != 507 || !strings.Contains(string(gb.body), "(b, attempt") {
			t.Errorf("b got %d %s at %s, want its own refusal at 25s (the end of its budget)", gb.status, gb.body, el)
		}
		if got, want := sentAt(r, start, "a"), []time.Duration{0, 20 * time.Second}; !equalDurations(got, want) {
			t.Errorf("a was sent at %v, want %v (its last wait cut to the budget, as without the gate)", got, want)
		}
		if ga.status != 507 || !strings.Contains(string(ga.body), "(a, attempt 2)") {
			t.Errorf("a got %d %s, want its own second refusal", ga.status, ga.body)
		}
	})
}

// A shutdown answers every held client at once: the one that has its own
// refusal gets it back, the one never sent gets a 503 that says so.
func TestGateShutdownAnswersEveryHeldClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		r = newRig(t, Options{Gate: true, Budget: time.Hour, Log: jsonLog}, func(n int, w http.ResponseWriter, _ *http.Request) {
			refuseNamed(w, "sufficient_idle_memory", "15", nameOf(r.up.got()[n-1].body), n)
		})
		a := r.goDo(t.Context(), "POST", "/instances", create("a", 1, 4096))
		time.Sleep(2 * time.Second)
		b := r.goDo(t.Context(), "POST", "/instances", create("b", 1, 8192))
		time.Sleep(3 * time.Second)
		stop := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := r.proxy.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		ga, gb := <-a, <-b
		if ga.status != 507 || !strings.Contains(string(ga.body), "(a, attempt 1)") || !ga.at.Equal(stop) {
			t.Errorf("a got %d %s after %s, want its own refusal at once", ga.status, ga.body, ga.at.Sub(stop))
		}
		if gb.status != 503 || !strings.Contains(string(gb.body), "the proxy stopped before this create was sent") || !gb.at.Equal(stop) {
			t.Errorf("b got %d %s after %s, want the 503 that says it was never sent, at once", gb.status, gb.body, gb.at.Sub(stop))
		}
		if n := r.up.count(); n != 1 {
			t.Errorf("%d creates reached the server, want 1 (b was held throughout)", n)
		}
		// b was never sent: not forwarded (issue 40, item 12), and the
		// summary says so.
		if s := r.proxy.Summary().String(); s != "proxy: 1 request forwarded, 0 refusals waited out, 1 refusal handed back, 1 send held back by the capacity gate, 1 held create never sent" {
			t.Errorf("summary %q", s)
		}
		// The two answers are written by two requests at once: their
		// lines in a fixed order.
		logLines := lines(r.log.String())
		sort.Strings(logLines)
		checkGolden(t, "gate-shutdown-json.txt", strings.Join(logLines, "\n")+"\n")
	})
}

// With the gate off, two creates of one shape each replay on their own
// clock, exactly as before the gate existed, and the summary says nothing
// of a gate.
func TestGateOffReplaysEachCreateOnItsOwnClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		r = newRig(t, Options{Budget: 20 * time.Second}, func(n int, w http.ResponseWriter, _ *http.Request) {
			refuseNamed(w, "sufficient_idle_cpu", "15", nameOf(r.up.got()[n-1].body), n)
		})
		start := time.Now()
		a := r.goDo(t.Context(), "POST", "/instances", create("a", 4, 1024))
		time.Sleep(time.Second)
		b := r.goDo(t.Context(), "POST", "/instances", create("b", 4, 1024))
		<-a
		<-b
		if got, want := sentAt(r, start, "b"), []time.Duration{time.Second, 16 * time.Second, 21 * time.Second}; !equalDurations(got, want) {
			t.Errorf("b was sent at %v, want %v", got, want)
		}
		if s := r.proxy.Summary(); s.Gate || s.HeldBack != 0 || strings.Contains(s.String(), "gate") {
			t.Errorf("summary %+v %q", s, s)
		}
	})
}

// Held creates go in the order they arrived, one at a time: the next is
// sent when the one ahead of it has its answer, not before.
func TestGateReleasesInArrivalOrderOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		r = newRig(t, Options{Gate: true, Budget: time.Hour}, func(n int, w http.ResponseWriter, _ *http.Request) {
			name := nameOf(r.up.got()[n-1].body)
			if n == 1 {
				refuseNamed(w, "capacity_guard", "15", name, n)
				return
			}
			time.Sleep(time.Second) // each placement takes a second
			created(w, name)
		})
		start := time.Now()
		actx, cancelA := context.WithCancel(t.Context())
		a := r.goDo(actx, "POST", "/instances", create("a", 1, 512))
		synctest.Wait()
		cancelA()
		<-a
		var res []chan reply
		for _, name := range []string{"d", "b", "c"} { // arrival order: d, b, c
			time.Sleep(time.Second)
			res = append(res, r.goDo(t.Context(), "POST", "/instances", create(name, 1, 512)))
		}
		for _, ch := range res {
			if got := <-ch; got.status != 200 {
				t.Errorf("got %d %s", got.status, got.body)
			}
		}
		var order []string
		var at []time.Duration
		for _, att := range r.up.got()[1:] {
			order = append(order, nameOf(att.body))
			at = append(at, att.at.Sub(start))
		}
		if strings.Join(order, ",") != "d,b,c" || !equalDurations(at, []time.Duration{15 * time.Second, 16 * time.Second, 17 * time.Second}) {
			t.Errorf("sent %v at %v, want d, b, c at 15s, 16s, 17s (arrival order, each after the answer to the one before)", order, at)
		}
	})
}

// A create let go at once after the one ahead of it went through ("next")
// with a few milliseconds of its budget left, and refused, has those
// milliseconds left to wait: it waits them, as the contract says
// (min(Retry-After, time left)), and is sent once more, at the end of its
// budget, and gets its own second refusal. (The gate bench's bursts show
// this at the end of their budgets: bench/results-gate.md.)
func TestGateNextWithMillisecondsLeftIsSentOnceMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		r = newRig(t, Options{Gate: true, Budget: 20 * time.Second}, func(n int, w http.ResponseWriter, _ *http.Request) {
			time.Sleep(5 * time.Millisecond) // each round trip takes 5ms
			name := nameOf(r.up.got()[n-1].body)
			if name == "b" {
				created(w, name)
				return
			}
			refuseNamed(w, "sufficient_idle_cpu", "60", name, n)
		})
		start := time.Now()
		actx, cancelA := context.WithCancel(t.Context())
		a := r.goDo(actx, "POST", "/instances", create("a", 1, 512))
		time.Sleep(time.Second)
		cancelA() // the window lasts until 60s; nobody is replaying a
		<-a
		b := r.goDo(t.Context(), "POST", "/instances", create("b", 1, 512))
		time.Sleep(10 * time.Millisecond)
		c := r.goDo(t.Context(), "POST", "/instances", create("c", 1, 512))
		gb, gc := <-b, <-c
		if got, want := sentAt(r, start, "b"), []time.Duration{20995 * time.Millisecond}; !equalDurations(got, want) || gb.status != 200 {
			t.Errorf("b was sent at %v, want %v (one round trip before its budget ends), and got %d", got, want, gb.status)
		}
		if got, want := sentAt(r, start, "c"), []time.Duration{21 * time.Second, 21010 * time.Millisecond}; !equalDurations(got, want) {
			t.Errorf("c was sent at %v, want %v: next after b went through, then after the 5ms its budget had left", got, want)
		}
		if gc.status != 507 || !strings.Contains(string(gc.body), "(c, attempt 4)") {
			t.Errorf("c got %d %s, want its own second refusal", gc.status, gc.body)
		}
		for _, want := range []string{
			"POST /instances: released by the capacity gate after 20s: the create ahead of it went through, so it goes at once",
			"POST /instances: capacity refused at stage sufficient_idle_cpu (transient); retrying in 5ms (attempt 2/5, 5ms left)",
		} {
			if !strings.Contains(r.log.String(), want+"\n") {
				t.Errorf("no line %q in\n%s", want, r.log.String())
			}
		}
	})
}
