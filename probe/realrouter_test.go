package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Answers recorded from the real routers (agent-substrate/substrate main
// 86e138f6 and PR #221 4a8f978b; reference/atenet-router.md): exact bodies,
// content-type text/plain and Envoy's server header.
const (
	realNoFreeWorkers = `actor "%s" unavailable: no free workers available`
	realInvalidHost   = `invalid host "%s": invalid actor_id: must start and end with a lower case alphanumeric character, and consist only of lower case alphanumeric characters or '-'`
)

func realAnswer(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Server", "envoy")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

// TestParkedFailsAgainstRouterWithoutParking: main answers a full pool at
// once with the same 503 a parking router sends when the budget ends. The
// probe must not call that a pass.
func TestParkedFailsAgainstRouterWithoutParking(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, _, _ := strings.Cut(r.Host, ".")
		realAnswer(w, 503, fmt.Sprintf(realNoFreeWorkers, actor))
	}))
	t.Cleanup(srv.Close)
	r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 20, Actors: GeneratedActors(4), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.count(BudgetExhausted) != 20 {
		t.Fatalf("budget_exhausted = %d, want 20", r.count(BudgetExhausted))
	}
	c := checksByName(r)[CheckParked]
	if c.Status != CheckFailed || !strings.Contains(c.Detail, "did not park") {
		t.Errorf("parked = %+v, want failed saying the router did not park", c)
	}
}

// TestFlightsTellLateJoinersFromUnparked: a late joiner's short
// budget_exhausted is the flight's, not a refusal without parking.
func TestFlightsTellLateJoinersFromUnparked(t *testing.T) {
	ev := []flightEvent{
		// Actor 1: parked 5s from 0; a joiner at 3s shares the flight's end.
		{actor: 1, outcome: BudgetExhausted, sentMs: 0, doneMs: 5000},
		{actor: 1, outcome: BudgetExhausted, sentMs: 3000, doneMs: 5001},
		// Actor 2: refused at once (main), twice in separate flights.
		{actor: 2, outcome: BudgetExhausted, sentMs: 10, doneMs: 17},
		{actor: 2, outcome: BudgetExhausted, sentMs: 100, doneMs: 104},
		// Actor 3: served first; its flight is not a refused one.
		{actor: 3, outcome: Served, sentMs: 0, doneMs: 900},
		{actor: 3, outcome: BudgetExhausted, sentMs: 800, doneMs: 850},
	}
	f := analyseFlights(ev, 0, 5*time.Second)
	if f.Flights != 3 || f.RefusedEarly != 2 || f.FastestFirstSeconds != 0.004 {
		t.Errorf("flights = %+v, want 3 refused flights, 2 early, fastest 4ms", f)
	}
	f = analyseFlights(ev[:2], 0, 5*time.Second)
	if f.Flights != 1 || f.RefusedEarly != 0 {
		t.Errorf("late joiner counted as unparked: %+v", f)
	}
}

// TestNothingReachedParkingFails: PR #221 answers the default (atespace)
// Host form with 404 invalid host; every other check would pass vacuously.
func TestNothingReachedParkingFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		realAnswer(w, 404, fmt.Sprintf(realInvalidHost, r.Host))
	}))
	t.Cleanup(srv.Close)
	r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 5, Actors: GeneratedActors(2)})
	if err != nil {
		t.Fatal(err)
	}
	c := checksByName(r)[CheckReachedParking]
	if c.Status != CheckFailed || !strings.Contains(c.Detail, "{actor}.actors.resources.substrate.ate.dev") {
		t.Errorf("reached_parking = %+v, want failed with the PR #221 host form", c)
	}
	if len(r.Failed()) == 0 {
		t.Error("a run that reached nothing passed")
	}
}

// TestAllClientTimeoutsIsNoAnswer: a router that answers nothing gives no
// verdict, not a pass.
func TestAllClientTimeoutsIsNoAnswer(t *testing.T) {
	srv := kindServer(t)
	r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 3, Actors: []string{"client-timeout"}, Timeout: 100 * time.Millisecond})
	var na *NoAnswerError
	if !errors.As(err, &na) || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v, want a NoAnswerError", err)
	}
	if r == nil || checksByName(r)[CheckReachedParking].Status != CheckFailed {
		t.Errorf("reached_parking did not fail: %+v", r)
	}
}
