package probe

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/probe/report"
)

// Addressing as data (issue 41): the actor goes where {actor} is, in the
// Host, the URL or a header, and a header template is expanded per
// request as the Host's is.

// headerEcho answers 200 and notes each request's Host and the header h.
type headerEcho struct {
	mu    sync.Mutex
	name  string
	seen  map[string]int
	hosts map[string]int
}

func newHeaderEcho(name string) *headerEcho {
	return &headerEcho{name: name, seen: map[string]int{}, hosts: map[string]int{}}
}

func (e *headerEcho) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.seen[strings.Join(r.Header.Values(e.name), ",")]++
	e.hosts[r.Host]++
	e.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func TestHeaderTemplateExpandsPerRequest(t *testing.T) {
	eachSenderInBubble(t, func(t *testing.T, kind string) {
		echo := newHeaderEcho(TargetActorHeader)
		target, dial := memDialTarget(t, echo)
		r, err := Run(context.Background(), Options{
			Target: target, Dial: dial, Transport: kind, Requests: 30, Seed: 3,
			Actors: []string{"a-1", "a-2", "a-3"}, Atespace: "ns",
			Header: http.Header{"Ate-Target-Actor": {"{atespace}/{actor}"}, "X-Json": {`{"k":1}`}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Count(report.Served) != 30 {
			t.Fatalf("outcomes %v, want 30 served", r.Outcomes)
		}
		want := map[string]bool{"ns/a-1": true, "ns/a-2": true, "ns/a-3": true}
		for v, n := range echo.seen {
			if !want[v] {
				t.Errorf("ate-target-actor %q sent %d times, want one of ns/a-1…3", v, n)
			}
		}
		if len(echo.seen) != 3 {
			t.Errorf("header values %v, want each actor's", echo.seen)
		}
		// The header carries the actor: the Host is the target's own.
		if len(echo.hosts) != 1 || echo.hosts["target.test"] != 30 {
			t.Errorf("Hosts %v, want target.test only", echo.hosts)
		}
		if r.Load.Addressing != "header ate-target-actor: {atespace}/{actor}" {
			t.Errorf("load.addressing %q", r.Load.Addressing)
		}
	})
}

func TestAddressingForms(t *testing.T) {
	for _, c := range []struct {
		form, header, value, host, addressing string
	}{
		{TargetActorHeader, "ate-target-actor", "default/actor-0001", "target.test", "header ate-target-actor: {atespace}/{actor} (form ate-target-actor)"},
		{"x-ate-headers", "x-ate-atespace", "default", "target.test", "header x-ate-actor-name: {actor}; header x-ate-atespace: {atespace} (form x-ate-headers)"},
		{"atespace", "ate-target-actor", "", "actor-0001.default.actors.resources.substrate.ate.dev", "host {actor}.{atespace}.actors.resources.substrate.ate.dev (form atespace)"},
		{"pr221", "ate-target-actor", "", "actor-0001.actors.resources.substrate.ate.dev", "host {actor}.actors.resources.substrate.ate.dev (form pr221)"},
	} {
		t.Run(c.form, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				echo := newHeaderEcho(c.header)
				target, dial := memDialTarget(t, echo)
				r, err := Run(context.Background(), Options{Target: target, Dial: dial, Requests: 2, Seed: 1, Actors: []string{"actor-0001"}, Addressing: c.form})
				if err != nil {
					t.Fatal(err)
				}
				if echo.seen[c.value] != 2 || echo.hosts[c.host] != 2 {
					t.Errorf("%s %v, Hosts %v; want %q and Host %q", c.header, echo.seen, echo.hosts, c.value, c.host)
				}
				if r.Load.Addressing != c.addressing {
					t.Errorf("load.addressing %q, want %q", r.Load.Addressing, c.addressing)
				}
			})
		})
	}
}

func TestAddressingRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"unknown placeholder in a header", Options{Header: http.Header{"Ate-Target-Actor": {"{atespace}/{actr}"}}},
			`invalid Header Ate-Target-Actor value "{atespace}/{actr}": unknown placeholder {actr} (known: {actor}, {atespace})`},
		{"nothing carries the actor", Options{HostTemplate: "gateway.example"}, `invalid HostTemplate "gateway.example": it must contain {actor}`},
		{"unknown form", Options{Addressing: "envoy"}, `unknown Addressing "envoy": want pr221, atespace, x-ate-headers or ate-target-actor`},
		{"form and template", Options{Addressing: "pr221", URLTemplate: "/{actor}"}, `Addressing pr221 names where the actor goes`},
		{"form and its own header", Options{Addressing: TargetActorHeader, Header: http.Header{"Ate-Target-Actor": {"x/y"}}},
			`Addressing ate-target-actor sends the header ate-target-actor itself`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Target, o.Requests, o.Actors = "http://127.0.0.1:1", 1, []string{"a"}
			err := o.Validate()
			var oe *OptionError
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate = %v, want an option error with %q", err, c.want)
			}
		})
	}
	// A Host template without the actor is fine when a header carries it.
	o := Options{Target: "http://127.0.0.1:1", Requests: 1, Actors: []string{"a"}, HostTemplate: "gateway.example",
		Header: http.Header{"Ate-Target-Actor": {"{atespace}/{actor}"}}}
	if err := o.Validate(); err != nil {
		t.Errorf("a header carrying the actor beside a fixed Host: %v", err)
	}
}

// A dataplane that reads the actor from a header answers any other form
// with its 404; the report calls it an addressing problem and names the
// flag. Sent in the header yet refused, the header's value is to check.
func TestHeaderNotFoundNamesTheFlag(t *testing.T) {
	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		realAnswer(w, http.StatusNotFound, `invalid "ate-target-actor": expected <atespace>/<actor>`)
	})
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"sent in the Host", Options{}, "an addressing problem: the dataplane reads the actor from the ate-target-actor header, not from where it was sent (invalid header ate-target-actor: expected <atespace>/<actor>): use Addressing ate-target-actor"},
		{"sent in the header", Options{Header: http.Header{"Ate-Target-Actor": {"{actor}"}}}, "an addressing problem: the dataplane cannot read the actor from the ate-target-actor header sent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				target, dial := memDialTarget(t, refuse)
				o := c.o
				o.Target, o.Dial, o.Requests, o.Seed, o.Actors = target, dial, 3, 1, []string{"actor-0001"}
				r := runReplay(t, o)
				wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, c.want)
			})
		})
	}
	// The other way round: a Host-reading dataplane (6210ad86,
	// agentgateway 5f96588b7) sent the actor in a header.
	synctest.Test(t, func(t *testing.T) {
		target, dial := memDialTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			realAnswer(w, http.StatusNotFound, `invalid host "target.test": expected <actor>.<atespace>.actors.resources.substrate.ate.dev`)
		}))
		r := runReplay(t, Options{Target: target, Dial: dial, Requests: 3, Seed: 1, Actors: []string{"actor-0001"}, Addressing: TargetActorHeader})
		wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "a Host problem: the dataplane reads the actor from the Host, not a header")
		wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "use Addressing atespace")
	})
}
