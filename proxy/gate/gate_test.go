package gate

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func shapeOf(t *testing.T, body string) Shape {
	t.Helper()
	s, ok := ShapeOf([]byte(body))
	if !ok {
		t.Fatalf("no shape in %s", body)
	}
	return s
}

// With the gate off (a nil Gate) a create gets a nil Pass, and every send
// is admitted at once, however it is answered.
func TestGateOffAdmitsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g *Gate
		p := g.Enter(shapeOf(t, `{"cpus": 1, "memory": 512}`), time.Minute, func(Hold) { t.Error("held with the gate off") })
		if p != nil {
			t.Fatalf("Enter on the gate off: %v", p)
		}
		start := time.Now()
		for range 3 {
			if r := p.Admit(t.Context(), nil); r != (Release{Reason: Free}) {
				t.Errorf("Admit: %+v", r)
			}
			p.Report(Answer{Status: 507, Transient: true, Stage: "sufficient_idle_cpu", RetryAfter: 15 * time.Second})
		}
		p.Leave()
		if el := time.Since(start); el != 0 {
			t.Errorf("Admit took %s", el)
		}
	})
}

// The gate keeps every moment on the clock it is given: here a wall clock
// years away from the time package's and without a monotonic reading. A
// refusal at 0 with a 15 s Retry-After holds a create that arrives at 5 s
// for the 10 s left of the window, and lets it go first when it ends.
func TestGateKeepsTimeOnItsOwnClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		base := time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return base.Add(time.Since(start)) }
		g := New(clock)
		s := shapeOf(t, `{"cpus": 2, "memory": 2048}`)

		a := g.Enter(s, time.Hour, nil)
		if r := a.Admit(t.Context(), nil); r.Reason != Free || r.Held {
			t.Fatalf("the first create: %+v", r)
		}
		a.Report(Answer{SentAt: clock(), At: clock(), Status: 507, Transient: true, Stage: "sufficient_idle_cpu", RetryAfter: 15 * time.Second})
		a.Leave()

		time.Sleep(5 * time.Second)
		var holds []Hold
		b := g.Enter(s, time.Hour, func(h Hold) { holds = append(holds, h) })
		defer b.Leave()
		r := b.Admit(t.Context(), nil)
		if el := time.Since(start); el != 15*time.Second {
			t.Errorf("b was let go at %s, want 15s", el)
		}
		if r != (Release{Reason: First, Held: true, HeldFor: 10 * time.Second}) {
			t.Errorf("b: %+v, want let go first after being held 10s", r)
		}
		want := Hold{Stage: "sufficient_idle_cpu", Why: "a create asking 2 vCPUs was refused at stage sufficient_idle_cpu and this one asks 2", Asks: 2, RefusedAsking: 2, Window: 10 * time.Second}
		if len(holds) != 1 || holds[0] != want {
			t.Errorf("holds %+v, want one %+v", holds, want)
		}
	})
}

// A held create whose client goes away, or whose proxy stops, is not let
// go: Admit says which, and that it was held.
func TestGateAdmitEndsWhenTheClientGoesOrTheProxyStops(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reason
	}{{"client gone", Gone}, {"proxy stopped", Stopped}} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := New(time.Now)
				s := shapeOf(t, `{"cpus": 1, "memory": 512}`)
				a := g.Enter(s, time.Hour, nil)
				a.Admit(t.Context(), nil)
				a.Report(Answer{SentAt: time.Now(), At: time.Now(), Status: 507, Transient: true, Stage: "capacity_guard", RetryAfter: time.Minute})
				a.Leave()

				ctx, cancel := context.WithCancel(t.Context())
				stop := make(chan struct{})
				b := g.Enter(s, time.Hour, nil)
				defer b.Leave()
				got := make(chan Release, 1)
				go func() { got <- b.Admit(ctx, stop) }()
				time.Sleep(3 * time.Second)
				if tt.want == Gone {
					cancel()
				} else {
					close(stop)
				}
				if r := <-got; r != (Release{Reason: tt.want, Held: true, HeldFor: 3 * time.Second}) {
					t.Errorf("Admit: %+v, want %s after being held 3s", r, tt.want)
				}
				cancel()
			})
		})
	}
}

// A create that is sent again keeps its place in line while it waits out
// its own Retry-After: when that wait and the window end together, it
// goes first, ahead of a create that arrived after it.
func TestGateReplayKeepsItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(time.Now)
		s := shapeOf(t, `{"cpus": 1, "memory": 512}`)
		a := g.Enter(s, time.Hour, nil)
		defer a.Leave()
		a.Admit(t.Context(), nil)
		now := time.Now()
		a.Report(Answer{SentAt: now, At: now, Status: 507, Transient: true, Stage: "capacity_guard", RetryAfter: 15 * time.Second, Retry: now.Add(15 * time.Second)})

		time.Sleep(time.Second)
		b := g.Enter(s, time.Hour, nil)
		defer b.Leave()
		gotB := make(chan Release, 1)
		go func() { gotB <- b.Admit(t.Context(), nil) }()
		time.Sleep(14 * time.Second) // a's own wait ends with the window
		if r := a.Admit(t.Context(), nil); r.Reason != First || r.Held {
			t.Errorf("a, after its own wait: %+v, want first, not held", r)
		}
		synctest.Wait()
		select {
		case r := <-gotB:
			t.Fatalf("b was let go (%+v) while a was out finding out", r)
		default:
		}
		a.Report(Answer{SentAt: time.Now(), At: time.Now(), Status: 202})
		if r := <-gotB; r.Reason != Next || r.HeldFor != 14*time.Second {
			t.Errorf("b: %+v, want next after being held 14s", r)
		}
	})
}
